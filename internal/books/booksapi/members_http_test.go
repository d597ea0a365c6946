package booksapi_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// POST /books/{bookId}/loans keeps the member-id rules of the accounts: a member id is kept for
// ever in the book's stream, so a new member's may not look like an email address (400
// InvalidRequest, nothing recorded); an erased member borrows nothing (410 Gone); a member
// with no account yet, under an opaque id, borrows as before.
func TestHTTPLendChecksTheMember(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		apitest.AddBook(t, a, "dune")
		t.Run("400 for a new member id that looks like an email address", func(t *testing.T) {
			for _, key := range []string{"", "lend-bob"} {
				r := a.Call(t, http.MethodPost, "/books/dune/loans", apitest.Obj{"loanId": "loan-1", "memberId": "bob@example.org"},
					"Idempotency-Key", key)
				p := apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				assert.Contains(t, p.Detail, "email address")
				assert.NotContains(t, p.Detail, "bob@example.org", "the detail does not repeat the id")
			}
		})
		t.Run("201 for a member with no account and an opaque id", func(t *testing.T) {
			res := apitest.Lend(t, a, "dune", "loan-1", "m-bob")
			assert.EqualValues(t, 2, res.Version, "the refused loans recorded nothing")
		})
		t.Run("410 Gone for an erased member", func(t *testing.T) {
			apitest.SetContact(t, a, "m-gone", "Gone Reader", "gone@example.org")
			apitest.RequireResult(t, a.Call(t, http.MethodPost, "/accounts/m-gone/erasure", nil), http.StatusCreated, "account-m-gone")
			apitest.AddBook(t, a, "emma")
			r := a.Call(t, http.MethodPost, "/books/emma/loans", apitest.Obj{"loanId": "loan-2", "memberId": "m-gone"})
			apitest.RequireProblem(t, r, http.StatusGone, "Gone")
			apitest.Lend(t, a, "emma", "loan-2", "m-bob") // nothing was recorded for m-gone
		})
		t.Run("201 for a member with an account", func(t *testing.T) {
			apitest.SetContact(t, a, "m-ann", "Ann Reader", "ann@example.org")
			apitest.AddBook(t, a, "snow-crash")
			apitest.Lend(t, a, "snow-crash", "loan-3", "m-ann")
		})
	})
}

// An account opened before member ids that look like email addresses were refused keeps
// working: its member still borrows.
func TestHTTPLendToAnAccountWithAnEmailLikeID(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	_, err := pgtest.Connect(t, url).Exec(context.Background(), `INSERT INTO events (stream_id, version, type, data) VALUES
		('account-old@example.org', 1, 'FineCharged', '{"amount":100,"reason":"a lost card"}')`)
	require.NoError(t, err)
	a := apitest.Launch(t, app.Config{DatabaseURL: url}, apitest.ServiceLogger(t, app.Config{})).API("postgres")
	apitest.AddBook(t, a, "dune")
	apitest.Lend(t, a, "dune", "loan-1", "old@example.org")
	apitest.AddBook(t, a, "emma")
	r := a.Call(t, http.MethodPost, "/books/emma/loans", apitest.Obj{"loanId": "loan-2", "memberId": "new@example.org"})
	apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
}
