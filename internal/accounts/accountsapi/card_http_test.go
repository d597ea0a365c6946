package accountsapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// PUT /accounts/{memberId}/card: 201 CardAssigned, the number in capitals; 200 for the card the
// account has; a replay under its key; 409 CardTaken for another member's number; a member moved
// to another number gives the old one up; 400 for a malformed number; an erasure gives the card
// up; GET shows it.
func TestHTTPCards(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		card := func(member, number string, headers ...string) apitest.Response {
			return a.Call(t, http.MethodPut, "/accounts/"+member+"/card", apitest.Obj{"cardNumber": number}, headers...)
		}
		apitest.SetContact(t, a, "alice", "Alice", "")
		first := card("alice", "lib-0042", "Idempotency-Key", "card-alice")
		res := apitest.RequireResult(t, first, http.StatusCreated, "account-alice")
		apitest.RequireEvent(t, res, "CardAssigned", `{"cardNumber":"LIB-0042"}`)
		apitest.RequireReplay(t, first, card("alice", "lib-0042", "Idempotency-Key", "card-alice"))
		res = apitest.RequireResult(t, card("alice", "LIB-0042"), http.StatusOK, "account-alice")
		assert.Empty(t, res.Events, "the card the account has")
		assert.Equal(t, ptr("LIB-0042"), apitest.GetAccount(t, a, "alice").CardNumber)

		p := apitest.RequireProblem(t, card("bob", "Lib-0042"), http.StatusConflict, "CardTaken")
		assert.Contains(t, p.Detail, "LIB-0042")
		assert.Contains(t, p.Detail, "account-alice", "the desk is told who has it")

		apitest.RequireResult(t, card("alice", "LIB-0043"), http.StatusCreated, "account-alice")
		apitest.RequireResult(t, card("bob", "LIB-0042"), http.StatusCreated, "account-bob")
		apitest.RequireProblem(t, card("bob", "LIB-0043"), http.StatusConflict, "CardTaken")

		for _, bad := range []string{"", "LIB 0044", "LIB.0044", "-LIB", "0123456789012345678901234567890123"} {
			p := apitest.RequireProblem(t, card("carol", bad), http.StatusBadRequest, "InvalidRequest")
			assert.Contains(t, p.Detail, "cardNumber", bad)
		}
		apitest.RequireBodyErrors(t, a, http.MethodPut, "/accounts/carol/card", `{"cardNumber":"LIB-1"}`)

		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/accounts/alice/erasure", nil), http.StatusCreated, "account-alice")
		apitest.RequireResult(t, card("carol", "LIB-0043"), http.StatusCreated, "account-carol")
		apitest.RequireProblem(t, card("alice", "LIB-0045"), http.StatusGone, "Gone")
		acc := apitest.GetAccount(t, a, "carol")
		assert.Equal(t, ptr("LIB-0043"), acc.CardNumber)
		assert.False(t, acc.PINSet)
	})
}

// The card's events are in the history, as they were recorded.
func TestHTTPCardInHistory(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		apitest.RequireResult(t, a.Call(t, http.MethodPut, "/accounts/dan/card", apitest.Obj{"cardNumber": "d-1"}), http.StatusCreated, "account-dan")
		var history struct {
			Entries []struct {
				Type string         `json:"type"`
				Data map[string]any `json:"data"`
			} `json:"entries"`
		}
		read(t, a, "/accounts/dan/history", &history)
		require.Len(t, history.Entries, 1)
		assert.Equal(t, "CardAssigned", history.Entries[0].Type)
		assert.Equal(t, map[string]any{"cardNumber": "D-1"}, history.Entries[0].Data)
	})
}
