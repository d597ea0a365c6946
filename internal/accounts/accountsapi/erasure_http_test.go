package accountsapi_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// POST /accounts/{memberId}/erasure with books still on loan: 409 AccountNotSettled, whose
// detail counts the books in plain English ("1 book is", "2 books are").
func TestHTTPEraseWithBooksOnLoan(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		apitest.SetContact(t, a, "m-ann", "Ann Reader", "ann@example.org")
		apitest.AddBook(t, a, "dune")
		apitest.Lend(t, a, "dune", "loan-1", "m-ann")
		p := apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/accounts/m-ann/erasure", nil), http.StatusConflict, "AccountNotSettled")
		assert.Contains(t, p.Detail, "1 book is still on loan")

		apitest.AddBook(t, a, "emma")
		apitest.Lend(t, a, "emma", "loan-2", "m-ann")
		p = apitest.RequireProblem(t, a.Call(t, http.MethodPost, "/accounts/m-ann/erasure", nil), http.StatusConflict, "AccountNotSettled")
		assert.Contains(t, p.Detail, "2 books are still on loan")
	})
}
