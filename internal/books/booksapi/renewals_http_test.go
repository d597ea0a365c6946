package booksapi_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// POST /books/{bookId}/loans/{loanId}/renewals: the key is required; a double click (one key,
// two requests at once) renews once, both answered alike; RENEWALS_MAX renewals, then 409
// RenewalLimitReached; a returned loan is 409 LoanNotCurrent, and an unknown book 404.
func TestHTTPRenewals(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{RenewalsMax: 2}, func(t *testing.T, a *apitest.API) {
		apitest.AddBook(t, a, "dune")
		lent := apitest.Lend(t, a, "dune", "loan-1", "m-ren")
		renew := func(key string) apitest.Response {
			headers := []string{}
			if key != "" {
				headers = []string{"Idempotency-Key", key}
			}
			return a.Call(t, http.MethodPost, "/books/dune/loans/loan-1/renewals", nil, headers...)
		}
		apitest.RequireProblem(t, renew(""), http.StatusBadRequest, "IdempotencyKeyMissing")

		answers := make([]apitest.Response, 2)
		var wg sync.WaitGroup
		for i := range answers {
			wg.Go(func() { answers[i] = renew("renew-1") })
		}
		wg.Wait()
		res := apitest.RequireResult(t, answers[0], http.StatusCreated, "book-dune")
		assert.Equal(t, string(answers[0].Body), string(answers[1].Body), "a double click: one renewal, one answer")
		require.Len(t, res.Events, 1)
		assert.Equal(t, "LoanRenewed", res.Events[0].Type)
		assert.Equal(t, lent.Version+1, res.Version, "renewed once")

		apitest.RequireResult(t, renew("renew-2"), http.StatusCreated, "book-dune")
		apitest.RequireProblem(t, renew("renew-3"), http.StatusConflict, "RenewalLimitReached")
		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
		apitest.RequireProblem(t, renew("renew-4"), http.StatusConflict, "LoanNotCurrent")
		apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/books/nope/loans/loan-1/renewals", nil, "Idempotency-Key", "k"), http.StatusNotFound, "NotFound")
	})
}
