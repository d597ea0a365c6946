package lostloans_test

// A copy declared lost, or claimed returned, at the desk, through the service on both stores.

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// addPriced adds the book id, a DVD that costs price to replace (0: no price of its own).
func addPriced(t *testing.T, a *apitest.API, id string, price int64) {
	t.Helper()
	body := apitest.Obj{"id": id, "title": "Dune", "author": "Frank Herbert", "isbn": apitest.ISBNFor(id), "materialType": "dvd"}
	if price > 0 {
		body["replacementPrice"] = price
	}
	apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books", body), http.StatusCreated, "book-"+id)
}

// A librarian declares a loan lost: the copy is lost in GET /books and the catalog, the loan
// ends on the account (the member may borrow again) and the copy's price is charged; the copy
// is lent, renewed and declared lost no more. Returned, it is back on the shelf and the charge
// is taken back.
func TestHTTPDeclaredLostAtTheDesk(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{MaxLoans: 1, BlockAt: 5000}), func(t *testing.T, a *apitest.API) {
		addPriced(t, a, "dune", 1800)
		addPriced(t, a, "emma", 0)
		apitest.Lend(t, a, "dune", "loan-1", "m-ann")
		lend := a.Call(t, http.MethodPost, "/books/emma/loans", apitest.Obj{"loanId": "loan-2", "memberId": "m-ann"})
		apitest.RequireProblem(t, lend, http.StatusConflict, "LoanLimitReached")

		lost := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/lost", apitest.Obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
		e := apitest.RequireEvent(t, lost, "LoanLost", `{"loanId":"loan-1","memberId":"m-ann","lostAt":"2026-12-01T09:00:00Z","charge":1800,"by":"librarian"}`)
		again := a.Call(t, http.MethodPost, "/books/dune/lost", apitest.Obj{"loanId": "loan-1"})
		assert.Empty(t, apitest.RequireResult(t, again, http.StatusOK, "book-dune").Events, "lost once")

		b := getBook(t, a, "dune")
		assert.Equal(t, "lost", b.Status)
		assert.JSONEq(t, "null", string(b.Loan))
		apitest.Eventually(t, 10*time.Second, func() bool { return listed(t, a, "lost", "dune") }, "the catalog lists dune as lost")
		assert.False(t, listed(t, a, "lent", "dune"))
		assert.False(t, listed(t, a, "available", "dune"))
		assert.EqualValues(t, 1800, apitest.GetAccount(t, a, "m-ann").Balance)
		require.Len(t, entries(t, a, "m-ann", "ReplacementCharged"), 1)
		assert.JSONEq(t, `{"bookId":"dune","loanId":"loan-1","amount":1800}`, string(entries(t, a, "m-ann", "ReplacementCharged")[0]))
		assert.Len(t, entries(t, a, "m-ann", "LoanClosed"), 1, "the loan ended on the account")
		assert.Empty(t, entries(t, a, "m-ann", "FineCharged"), "a charge of its own")
		apitest.Lend(t, a, "emma", "loan-2", "m-ann") // the member's limit freed up

		for _, c := range []struct {
			path string
			body apitest.Obj
			code string
		}{
			{"/books/dune/loans", apitest.Obj{"loanId": "loan-3", "memberId": "m-bob"}, "BookMissing"},
			{"/books/dune/loans/loan-1/renewals", nil, "LoanNotCurrent"},
			{"/books/dune/claimed-returned", apitest.Obj{"loanId": "loan-1"}, "LoanNotCurrent"},
			{"/books/emma/lost", apitest.Obj{"loanId": "loan-1"}, "LoanNotCurrent"},
		} {
			apitest.RequireProblem(t, a.Call(t, http.MethodPost, c.path, c.body, "Idempotency-Key", "k-"+c.path), http.StatusConflict, c.code)
		}
		apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/books/nope/lost", apitest.Obj{"loanId": "loan-1"}), http.StatusNotFound, "NotFound")
		apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/books/dune/lost", apitest.Obj{"loanId": "no/slash"}), http.StatusBadRequest, "InvalidRequest")
		apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/books/dune/lost", apitest.Obj{"loan": "loan-1"}), http.StatusBadRequest, "InvalidRequest")

		back := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
		apitest.RequireEvent(t, back, "LostCopyReturned", `{"loanId":"loan-1","memberId":"m-ann","returnedAt":"2026-12-01T09:00:00Z","was":"lost","charge":1800}`)
		assert.Equal(t, "available", getBook(t, a, "dune").Status)
		assert.Zero(t, apitest.GetAccount(t, a, "m-ann").Balance, "the charge taken back")
		assert.Len(t, entries(t, a, "m-ann", "ReplacementCredited"), 1)
		assert.Empty(t, entries(t, a, "m-ann", "RefundDue"), "nothing was paid: nothing to give back")
		apitest.Eventually(t, 10*time.Second, func() bool { return listed(t, a, "available", "dune") }, "dune back on the shelf in the catalog")
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-1"}), http.StatusOK, "book-dune")
		assert.Positive(t, e.Position)
	})
}

// A loan claimed returned ends with no charge, and the copy is flagged for the desk; found, it
// is returned under the loan; one not found is declared lost after all, and charged.
func TestHTTPClaimedReturned(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{}), func(t *testing.T, a *apitest.API) {
		addPriced(t, a, "dune", 1800)
		addPriced(t, a, "emma", 900)
		apitest.Lend(t, a, "dune", "loan-1", "m-cy")
		apitest.Lend(t, a, "emma", "loan-2", "m-cy")
		for _, id := range []string{"dune", "emma"} {
			loan := map[string]string{"dune": "loan-1", "emma": "loan-2"}[id]
			r := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/"+id+"/claimed-returned", apitest.Obj{"loanId": loan}), http.StatusCreated, "book-"+id)
			apitest.RequireEvent(t, r, "ClaimedReturned", `{"loanId":"`+loan+`","memberId":"m-cy","claimedAt":"2026-12-01T09:00:00Z"}`)
			assert.Equal(t, "claimedReturned", getBook(t, a, id).Status)
		}
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/claimed-returned", apitest.Obj{"loanId": "loan-1"}), http.StatusOK, "book-dune")
		apitest.Eventually(t, 10*time.Second, func() bool { return listed(t, a, "claimedReturned", "emma") }, "flagged for the desk")
		assert.Zero(t, apitest.GetAccount(t, a, "m-cy").Balance, "no charge")
		assert.Len(t, entries(t, a, "m-cy", "LoanClosed"), 2)

		found := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
		assert.Equal(t, []string{"LostCopyReturned"}, types(found))
		assert.Equal(t, "available", getBook(t, a, "dune").Status)

		lost := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/emma/lost", apitest.Obj{"loanId": "loan-2"}), http.StatusCreated, "book-emma")
		apitest.RequireEvent(t, lost, "LoanLost", `{"loanId":"loan-2","memberId":"m-cy","lostAt":"2026-12-01T09:00:00Z","charge":900,"by":"librarian"}`)
		assert.EqualValues(t, 900, apitest.GetAccount(t, a, "m-cy").Balance)
		assert.Len(t, entries(t, a, "m-cy", "LoanClosed"), 2, "closed once, at the claim")
	})
}
