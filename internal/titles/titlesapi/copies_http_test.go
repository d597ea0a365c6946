package titlesapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// A title's copy as GET /titles/{titleId} answers it.
type copyView struct {
	ID        string  `json:"id"`
	Barcode   *string `json:"barcode"`
	Status    string  `json:"status"`
	DueAt     *string `json:"dueAt"`
	HeldUntil *string `json:"heldUntil"`
	MemberID  string  `json:"memberId"`
	Mine      *bool   `json:"mine"`
}

type counts struct {
	Total        int `json:"total"`
	Available    int `json:"available"`
	HoldsWaiting int `json:"holdsWaiting"`
}

// GET /titles/{titleId} lists the title's copies in the order they were added, each read from
// its own stream: available, lent (with its due time) or held (until when); the member it is
// lent to or held for shown to staff only, a member told whether it is theirs; and the counts:
// every copy, those available, and the holds waiting in the copies' queues.
func TestHTTPTitleShowsItsCopies(t *testing.T) {
	t.Parallel()
	idp := apitest.StartProvider(t)
	apitest.ForEachStore(t, apitest.WithSignIn(app.Config{}, idp), func(t *testing.T, a *apitest.API) {
		libby := idp.Bearer(t, "libby")
		call := func(method, path string, body apitest.Obj, headers ...string) apitest.Response {
			return a.Call(t, method, path, body, append([]string{"Authorization", libby}, headers...)...)
		}
		apitest.RequireResult(t, call(http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"},
			"isbn": "0-441-01359-7"}), http.StatusCreated, "title-dune")
		for i, barcode := range []string{"31234000000017", "31234000000025", "31234000000033"} {
			id := []string{"dune-1", "dune-2", "dune-3"}[i]
			apitest.RequireResult(t, call(http.MethodPost, "/titles/dune/copies", apitest.Obj{"id": id, "barcode": barcode}), http.StatusCreated, "book-"+id)
		}
		apitest.RequireResult(t, call(http.MethodPost, "/books", apitest.Obj{"id": "dune-4", "title": "Dune", "author": "Frank Herbert",
			"isbn": "9780441013593"}), http.StatusCreated, "book-dune-4")
		for _, member := range []string{"alice", "bob", "carol"} {
			apitest.RequireResult(t, call(http.MethodPut, "/accounts/"+member, apitest.Obj{"name": member}), http.StatusCreated, "account-"+member)
		}
		lend := func(book, member string) {
			apitest.RequireResult(t, call(http.MethodPost, "/books/"+book+"/loans", apitest.Obj{"loanId": "loan-" + book, "memberId": member}),
				http.StatusCreated, "book-"+book)
		}
		hold := func(book, member string) {
			// A hold on one copy waits in its title's queue, for that copy alone.
			apitest.RequireResult(t, call(http.MethodPost, "/books/"+book+"/holds", apitest.Obj{"memberId": member}, "Idempotency-Key", "hold-"+book+member),
				http.StatusCreated, "title-dune")
		}
		lend("dune-1", "alice")
		hold("dune-1", "bob")
		lend("dune-2", "bob")
		hold("dune-2", "carol")
		apitest.RequireResult(t, call(http.MethodPost, "/books/dune-2/returns", apitest.Obj{"loanId": "loan-dune-2"}), http.StatusCreated, "book-dune-2")

		view := func(headers ...string) ([]copyView, counts) {
			var got struct {
				Copies []copyView `json:"copies"`
				Counts counts     `json:"counts"`
			}
			r := a.Call(t, http.MethodGet, "/titles/dune", nil, headers...)
			require.Equal(t, http.StatusOK, r.Status, "body: %s", r.Body)
			require.NoError(t, json.Unmarshal(r.Body, &got))
			require.Len(t, got.Copies, 4)
			return got.Copies, got.Counts
		}
		str := func(s string) *string { return &s }
		yes, no := true, false
		due, until := "2026-12-15T09:00:00Z", "2026-12-04T09:00:00Z"
		staff, c := view("Authorization", libby)
		assert.Equal(t, counts{Total: 4, Available: 2, HoldsWaiting: 1}, c)
		assert.Equal(t, []copyView{
			{ID: "dune-1", Barcode: str("31234000000017"), Status: "lent", DueAt: &due, MemberID: "alice"},
			{ID: "dune-2", Barcode: str("31234000000025"), Status: "held", HeldUntil: &until, MemberID: "carol"},
			{ID: "dune-3", Barcode: str("31234000000033"), Status: "available"},
			{ID: "dune-4", Status: "available"},
		}, staff)

		alice, _ := view("Authorization", idp.Bearer(t, "alice"))
		assert.Equal(t, copyView{ID: "dune-1", Barcode: str("31234000000017"), Status: "lent", DueAt: &due, Mine: &yes}, alice[0])
		assert.Equal(t, copyView{ID: "dune-2", Barcode: str("31234000000025"), Status: "held", HeldUntil: &until, Mine: &no}, alice[1])
		assert.Nil(t, alice[2].Mine, "nothing to be theirs on a copy on the shelf")

		anonymous, c := view()
		assert.Equal(t, counts{Total: 4, Available: 2, HoldsWaiting: 1}, c, "the counts are everyone's")
		assert.Equal(t, copyView{ID: "dune-2", Barcode: str("31234000000025"), Status: "held", HeldUntil: &until}, anonymous[1])
		assert.Empty(t, anonymous[0].MemberID)
	})
}
