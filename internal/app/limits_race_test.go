package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// accountEntries are a member's account's events, oldest first.
func accountEntries(t *testing.T, a *api, member string) []struct {
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
} {
	t.Helper()
	var h struct {
		MemberID string `json:"memberId"`
		Entries  []struct {
			Type string          `json:"type"`
			Data json.RawMessage `json:"data"`
		} `json:"entries"`
		Next *int64 `json:"next"`
	}
	r := a.Get(t, "/accounts/"+member+"/history?limit=1000")
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.NoError(t, json.Unmarshal(r.Body, &h))
	require.Nil(t, h.Next, "one page")
	slices.Reverse(h.Entries)
	return h.Entries
}

// Lending limits are exact under concurrency: a loan is written to the member's account in the
// same append as to the book, at the account's version it was decided on, so a fine or another
// loan recorded meanwhile makes the lend decide again. A member who owes 900 cents (BLOCK_AT is
// 1000) is sent twelve lends (MAX_LOANS is 10) and a fine of 200 at once, on two replicas
// where there is a database: at most ten loans, and none recorded on the account after the fine.
func TestLimitsHoldUnderConcurrentLendsAndFines(t *testing.T) {
	t.Parallel()
	const members, lends = 12, 12
	for _, store := range stores {
		t.Run(store.Name, func(t *testing.T) {
			t.Parallel()
			a, b := erasureRaceReplicas(t, store.Name)
			var blockedSeen, limitSeen int
			for m := range members {
				member := fmt.Sprintf("m-limit-%d", m)
				setContact(t, a, member, "Lim It", "")
				requireResult(t, a.Call(t, http.MethodPost, "/accounts/"+member+"/fines", obj{"amount": 900, "reason": "old fines"}), http.StatusCreated, "account-"+member)
				statuses := make([]int, lends)
				var all sync.WaitGroup
				for i := range lends {
					book := fmt.Sprintf("limit-%d-%d", m, i)
					addBook(t, a, book)
					all.Go(func() {
						via := []*api{a, b}[i%2]
						statuses[i] = via.Call(t, http.MethodPost, "/books/"+book+"/loans", obj{"loanId": "loan-1", "memberId": member}).Status
					})
				}
				all.Go(func() {
					requireResult(t, b.Call(t, http.MethodPost, "/accounts/"+member+"/fines", obj{"amount": 200, "reason": "a torn page"}), http.StatusCreated, "account-"+member)
				})
				all.Wait()

				lent := 0
				for _, s := range statuses {
					require.Contains(t, []int{http.StatusCreated, http.StatusConflict}, s)
					if s == http.StatusCreated {
						lent++
					}
				}
				opened, balance, fineSeen := 0, int64(0), false
				for _, e := range accountEntries(t, a, member) {
					switch e.Type {
					case "FineCharged":
						var f struct {
							Amount int64 `json:"amount"`
						}
						require.NoError(t, json.Unmarshal(e.Data, &f))
						balance += f.Amount
						fineSeen = fineSeen || f.Amount == 200
					case "LoanOpened":
						opened++
						require.LessOrEqual(t, balance, int64(1000), "%s: a loan recorded while the member owed %d", member, balance)
						require.LessOrEqual(t, opened, 10, "%s: more loans than MAX_LOANS", member)
					}
				}
				require.True(t, fineSeen)
				assert.Equal(t, lent, opened, "%s: each loan on the book is on the account", member)
				if lent < 10 {
					blockedSeen++
				} else {
					limitSeen++
				}
			}
			t.Logf("%d members: %d stopped by the fine, %d by MAX_LOANS", members, blockedSeen, limitSeen)
		})
	}
}
