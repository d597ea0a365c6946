package holds_test

// The holds view in the whole service, on PostgreSQL, with sign-in: its processor keeps it, its
// routes are routed and ruled, the catalog and GET /books/{bookId} show a book on the hold
// shelf as held without saying for whom, and an erasure takes the member out of the view. The
// service has no route yet that places a hold, so the books' commands run through a
// books.Service of the test's own on the service's database, as another replica would.

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/app"
	"library/internal/books"
	"library/internal/eventstore/pgstore"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// A member reads their own holds and no one else's (403), and not GET /holds; a librarian reads
// anyone's, and every hold; an operator neither; no one signed out. Anyone sees the book held,
// in GET /books and GET /books/{bookId}, and no member id with it. Once a member is erased, the
// view shows nothing of theirs.
func TestHTTPHoldsInTheService(t *testing.T) {
	t.Parallel()
	idp := apitest.StartProvider(t)
	databaseURL := pgtest.NewDatabase(t)
	serviceClock := apitest.NewClock()
	cfg := apitest.WithSignIn(apitest.FastBackground(app.Config{DatabaseURL: databaseURL, Tuning: app.Tuning{Now: serviceClock.Now}}), idp)
	a := apitest.Launch(t, cfg, apitest.ServiceLogger(t, cfg)).API("postgres")
	librarian := []string{"Authorization", idp.Bearer(t, "libby")}
	alice := []string{"Authorization", idp.Bearer(t, "alice")}
	oscar := []string{"Authorization", idp.Bearer(t, "oscar")}

	ctx := context.Background()
	store := pgstore.New(pgtest.Connect(t, databaseURL), slog.New(slog.NewTextHandler(io.Discard, nil)))
	w := &world{log: store, clock: &clock{now: apitest.T0}}
	w.books = books.NewService(store, aggregate.Options{}, w.clock.Now,
		books.Policy{LoanPeriod: 14 * day, MaxRenewals: 2, Holds: books.HoldPolicy{MaxQueue: 5, Pickup: pickup}}, nil)
	w.add(t, "dune", "Dune")
	w.lend(t, "dune", "l1", "zed")
	w.place(t, "dune", "alice", "bob")
	w.giveBack(t, "dune", "l1")
	until := w.untilOf()
	head, err := store.LastPosition(ctx)
	require.NoError(t, err)
	caughtUpTo(t, a, head, librarian)

	mine := holdsOf(t, a, "alice", alice...)
	require.Len(t, mine.Holds, 1)
	assert.Equal(t, "ready", mine.Holds[0].Status)
	assert.Equal(t, rfc3339(until), mine.Holds[0].Until)
	bobs := holdsOf(t, a, "bob", librarian...).Holds
	require.Len(t, bobs, 1)
	assert.Equal(t, place(1), bobs[0].Place)
	all := listHolds(t, a, nil, librarian...).Holds
	require.Len(t, all, 2)
	assert.Equal(t, []string{"alice", "bob"}, []string{all[0].MemberID, all[1].MemberID})
	apitest.RequireProblem(t, a.Send(t, http.MethodGet, "/accounts/bob/holds", nil, alice...), http.StatusForbidden, "Forbidden")
	apitest.RequireProblem(t, a.Send(t, http.MethodGet, "/holds", nil, alice...), http.StatusForbidden, "Forbidden")
	apitest.RequireProblem(t, a.Send(t, http.MethodGet, "/holds", nil, oscar...), http.StatusForbidden, "Forbidden")
	apitest.RequireProblem(t, a.Send(t, http.MethodGet, "/accounts/alice/holds", nil, oscar...), http.StatusForbidden, "Forbidden")
	apitest.RequireProblem(t, a.Get(t, "/accounts/alice/holds"), http.StatusUnauthorized, "Unauthorized")
	apitest.RequireProblem(t, a.Get(t, "/holds"), http.StatusUnauthorized, "Unauthorized")

	for _, caller := range [][]string{nil, alice, librarian} {
		book := a.Send(t, http.MethodGet, "/books/dune", nil, caller...)
		require.Equal(t, http.StatusOK, book.Status, "%s", book.Body)
		assert.Contains(t, string(book.Body), `"status":"held"`)
		assert.NotContains(t, string(book.Body), "alice")
		held := a.Send(t, http.MethodGet, "/books?status=held&minPosition="+strconv.FormatInt(head, 10), nil, caller...)
		require.Equal(t, http.StatusOK, held.Status, "%s", held.Body)
		assert.Contains(t, string(held.Body), `"id":"dune"`)
		assert.NotContains(t, string(held.Body), "alice")
	}

	bob := []string{"Authorization", idp.Bearer(t, "bob")}
	apitest.RequireResult(t, a.Call(t, http.MethodPut, "/accounts/bob", apitest.Obj{"name": "Bob"}, bob...), http.StatusCreated, "account-bob")
	erased := a.Send(t, http.MethodPost, "/accounts/bob/erasure", nil, bob...)
	res := apitest.RequireResult(t, erased, http.StatusCreated, "account-bob")
	caughtUpTo(t, a, res.Position, librarian)
	assert.Empty(t, holdsOf(t, a, "bob", librarian...).Holds)
	for _, status := range []string{"", "waiting", "ready"} {
		for _, h := range listHolds(t, a, url.Values{"status": {status}}, librarian...).Holds {
			assert.NotEqual(t, "bob", h.MemberID)
		}
	}
}

// caughtUpTo waits until the holds view has handled the event at position.
func caughtUpTo(t *testing.T, a *apitest.API, position int64, headers []string) {
	t.Helper()
	apitest.Eventually(t, 10*time.Second, func() bool {
		return listHolds(t, a, url.Values{"limit": {"1"}}, headers...).Position >= position
	}, "the holds view to handle position %d", position)
}
