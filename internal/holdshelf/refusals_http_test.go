package holdshelf_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// queueVersion is the stream version of the title whose queue the book's holds wait in, from
// GET /titles/{titleId}.
func queueVersion(t *testing.T, a *apitest.API, bookID string) int64 {
	t.Helper()
	var b struct {
		Version int64 `json:"version"`
	}
	r := a.Get(t, "/titles/"+strings.TrimPrefix(apitest.TitleStreamOf(bookID), "title-"))
	require.Equal(t, http.StatusOK, r.Status, "%s", r.Body)
	require.NoError(t, json.Unmarshal(r.Body, &b))
	return b.Version
}

// Every refusal of a hold is a clear 4xx with its code, and records nothing.
func TestHTTPHoldRefusals(t *testing.T) {
	t.Parallel()
	cfg := apitest.FastBackground(app.Config{HoldsMax: 2, BlockAt: 500})
	apitest.ForEachStore(t, cfg, func(t *testing.T, a *apitest.API) {
		for _, m := range []string{"ann", "ben", "cid", "dot"} {
			apitest.SetContact(t, a, m, m, "")
		}
		apitest.Fine(t, a, "dot", 501, "lost a book")
		apitest.AddBook(t, a, "dune")
		apitest.AddBook(t, a, "emma")
		apitest.Lend(t, a, "dune", "loan-1", "ann")
		apitest.RequireResult(t, hold(t, a, "dune", "ben", "k1"), http.StatusCreated, apitest.TitleStreamOf("dune"))
		before := queueVersion(t, a, "dune")

		cases := []struct {
			name, book, member string
			headers            []string
			status             int
			code, detail       string
		}{
			{"an unknown book", "nope", "ben", nil, http.StatusNotFound, "NotFound", ""},
			{"a member the library does not know", "dune", "zed", nil, http.StatusNotFound, "NotFound", "no such member"},
			{"a book on the shelf", "emma", "ben", nil, http.StatusConflict, "BookAvailable", "lend it instead"},
			{"a member who waits already", "dune", "ben", nil, http.StatusConflict, "AlreadyHeld", "place 1"},
			{"the borrower", "dune", "ann", nil, http.StatusConflict, "AlreadyHeld", "on loan to"},
			{"a member who owes too much", "dune", "dot", nil, http.StatusConflict, "MemberBlocked", "owes 501 cents"},
			{"no Idempotency-Key", "dune", "cid", []string{"Idempotency-Key", ""}, http.StatusBadRequest, "IdempotencyKeyMissing", ""},
			{"a bad member id", "dune", "a b", nil, http.StatusBadRequest, "InvalidRequest", "memberId"},
		}
		for i, c := range cases {
			headers := c.headers
			if headers == nil {
				headers = []string{"Idempotency-Key", "refused-" + string(rune('a'+i))}
			}
			r := a.Call(t, http.MethodPost, "/books/"+c.book+"/holds", apitest.Obj{"memberId": c.member}, headers...)
			p := apitest.RequireProblem(t, r, c.status, c.code)
			assert.Contains(t, p.Detail, c.detail, c.name)
		}
		apitest.RequireResult(t, hold(t, a, "dune", "cid", "k2"), http.StatusCreated, apitest.TitleStreamOf("dune"))
		apitest.SetContact(t, a, "eve", "Eve", "")
		apitest.RequireProblem(t, hold(t, a, "dune", "eve", "k4"), http.StatusConflict, "HoldQueueFull")
		require.Equal(t, before+1, queueVersion(t, a, "dune"), "only cid's hold was recorded")

		cancel := a.Call(t, http.MethodDelete, "/books/dune/holds/dot", nil)
		apitest.RequireProblem(t, cancel, http.StatusNotFound, "NotFound")
		apitest.RequireResult(t, a.Call(t, http.MethodDelete, "/books/dune/holds/ben", nil), http.StatusCreated, apitest.TitleStreamOf("dune"))
		apitest.RequireResult(t, hold(t, a, "dune", "eve", "k4"), http.StatusCreated, apitest.TitleStreamOf("dune")) // a place came free
	})
}

// A renewal is refused while members wait for the book, saying how many in words that agree
// with the number: one member waits, two members wait.
func TestHTTPRenewalRefusedWhileMembersWait(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{RenewalsMax: 2}), func(t *testing.T, a *apitest.API) {
		for _, m := range []string{"ann", "ben", "cid"} {
			apitest.SetContact(t, a, m, m, "")
		}
		apitest.AddBook(t, a, "dune")
		apitest.Lend(t, a, "dune", "loan-1", "ann")
		renew := func(key string) apitest.Problem {
			r := a.Call(t, http.MethodPost, "/books/dune/loans/loan-1/renewals", nil, "Idempotency-Key", key)
			return apitest.RequireProblem(t, r, http.StatusConflict, "HoldsWaiting")
		}

		apitest.RequireResult(t, hold(t, a, "dune", "ben", "hold-ben"), http.StatusCreated, apitest.TitleStreamOf("dune"))
		assert.Equal(t, "1 member waits for book dune: return it for them", renew("renew-1").Detail)
		apitest.RequireResult(t, hold(t, a, "dune", "cid", "hold-cid"), http.StatusCreated, apitest.TitleStreamOf("dune"))
		assert.Equal(t, "2 members wait for book dune: return it for them", renew("renew-2").Detail)
	})
}
