package holdshelf_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"library/internal/testkit/apitest"
	"library/internal/testkit/smtptest"
)

// An erased member leaves every queue: the one they wait in, and the shelf, where the book
// goes to the next in line. The book's state keeps their id nowhere.
func TestHTTPErasureCancelsTheMembersHolds(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	apitest.ForEachStore(t, shelfConfig(smtp, time.Hour), func(t *testing.T, a *apitest.API) {
		erin, fay := "erin-"+a.Store, "fay-"+a.Store
		apitest.SetContact(t, a, erin, "Erin", erin+"@example.org")
		apitest.SetContact(t, a, fay, "Fay", fay+"@example.org")
		for _, book := range []string{"dune", "emma"} {
			apitest.AddBook(t, a, book)
			apitest.Lend(t, a, book, "loan-"+book, "carol")
			apitest.RequireResult(t, hold(t, a, book, erin, "erin-"+book), http.StatusCreated, apitest.TitleStreamOf(book))
			apitest.RequireResult(t, hold(t, a, book, fay, "fay-"+book), http.StatusCreated, apitest.TitleStreamOf(book))
		}
		// Erin is first for dune, on its shelf, and waits for emma.
		back := apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", apitest.Obj{"loanId": "loan-dune"}), http.StatusCreated, "book-dune")
		assert.Equal(t, erin, heldFor(t, back))

		apitest.RequireResult(t, a.Call(t, http.MethodPost, "/accounts/"+erin+"/erasure", nil), http.StatusCreated, "account-"+erin)
		apitest.Eventually(t, 10*time.Second, func() bool {
			return apitest.ProcessorStatus(t, a, "hold-shelf").Lag == 0
		}, "the hold-shelf saga reads the erasure")

		lent := a.Call(t, http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "loan-2", "memberId": fay})
		apitest.RequireResult(t, lent, http.StatusCreated, "book-dune") // held for fay now: erin's hold went with her
		back = apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/emma/returns", apitest.Obj{"loanId": "loan-emma"}), http.StatusCreated, "book-emma")
		assert.Equal(t, fay, heldFor(t, back), "erin left emma's queue")
		apitest.RequireProblem(t, hold(t, a, "emma", erin, "again"), http.StatusGone, "Gone") // an erased member places no hold
	})
}
