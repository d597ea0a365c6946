package booksapi_test

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// Who borrowed which book is for staff: an anonymous reader of the catalog sees loans without
// borrowers, a member sees which loans are theirs, and staff see every borrower; the same on
// GET /books/{bookId}, which reads the book's own events.
func TestHTTPBorrowersAreForStaff(t *testing.T) {
	t.Parallel()
	idp := apitest.StartProvider(t)
	cfg := apitest.WithSignIn(apitest.FastBackground(app.Config{Tuning: app.Tuning{CatalogWait: 5 * time.Second}}), idp)
	apitest.ForEachStore(t, cfg, func(t *testing.T, a *apitest.API) {
		libby := idp.Bearer(t, "libby")
		var last apitest.Result
		for _, b := range []struct{ book, member string }{{"dune", "alice"}, {"emma", "bob"}} {
			apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books", apitest.Obj{"id": b.book, "title": b.book, "author": "A"},
				"Authorization", libby), http.StatusCreated, "book-"+b.book)
			last = apitest.RequireResult(t, a.Call(t, http.MethodPost, "/books/"+b.book+"/loans", apitest.Obj{"loanId": "loan-" + b.book, "memberId": b.member},
				"Authorization", libby), http.StatusCreated, "book-"+b.book)
		}
		loans := func(bearer string) map[string]apitest.Loan {
			var list apitest.CatalogList
			apitest.RequireJSON(t, a.Call(t, http.MethodGet, fmt.Sprintf("/books?minPosition=%d", last.Position), nil, "Authorization", bearer), &list)
			out := map[string]apitest.Loan{}
			for _, b := range list.Books {
				require.NotNil(t, b.Loan)
				out[b.ID] = *b.Loan
			}
			return out
		}
		yes, no := true, false
		anonymous := loans("")
		assert.Empty(t, anonymous["dune"].MemberID)
		assert.Nil(t, anonymous["dune"].Mine)
		alice := loans(idp.Bearer(t, "alice"))
		assert.Equal(t, &yes, alice["dune"].Mine)
		assert.Equal(t, &no, alice["emma"].Mine)
		assert.Empty(t, alice["emma"].MemberID, "not bob's name")
		staff := loans(libby)
		assert.Equal(t, "alice", staff["dune"].MemberID)
		assert.Equal(t, "bob", staff["emma"].MemberID)

		var book apitest.Book
		apitest.RequireJSON(t, a.Call(t, http.MethodGet, "/books/emma", nil, "Authorization", idp.Bearer(t, "alice")), &book)
		assert.Empty(t, book.Loan.MemberID)
		assert.Equal(t, &no, book.Loan.Mine)
	})
}
