package app_test

// Background work through the HTTP API, on both stores: the catalog behind GET /books, the
// late-fines saga, and /status and the admin endpoints. Loan emails are in internal/notifications' emails_http_test.go, and
// two replicas on one database in replicas_test.go.

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/config"
	"library/internal/processor"
	"library/internal/testkit/apitest"
)

type catalogList struct {
	Books []struct {
		ID      string `json:"id"`
		Title   string `json:"title"`
		Author  string `json:"author"`
		Status  string `json:"status"`
		Loan    *loan  `json:"loan"`
		Version int64  `json:"version"`
	} `json:"books"`
	Position int64   `json:"position"`
	Next     *string `json:"next"`
}

// GET /books lists the catalog view model; minPosition waits until it has handled that
// event; status filters.
func TestCatalog(t *testing.T) {
	t.Parallel()
	forEachStore(t, fastBackground(app.Config{Tuning: app.Tuning{CatalogWait: 3 * time.Second}}), func(t *testing.T, a *api) {
		addBook(t, a, "emma")
		addBook(t, a, "dune")
		lent := lend(t, a, "dune", "loan-1", "alice")

		var all catalogList
		requireJSON(t, a.Get(t, fmt.Sprintf("/books?minPosition=%d", lent.Position)), &all)
		require.Len(t, all.Books, 2)
		assert.GreaterOrEqual(t, all.Position, lent.Position)
		dune, emma := all.Books[0], all.Books[1]
		assert.Equal(t, "dune", dune.ID, "ordered by id")
		assert.Equal(t, "lent", dune.Status)
		require.NotNil(t, dune.Loan)
		assert.Equal(t, "loan-1", dune.Loan.LoanID)
		assert.Equal(t, "alice", dune.Loan.MemberID)
		assert.Equal(t, lent.Version, dune.Version)
		assert.Equal(t, "available", emma.Status)
		assert.Nil(t, emma.Loan)

		var lentOnly, available catalogList
		requireJSON(t, a.Get(t, "/books?status=lent"), &lentOnly)
		requireJSON(t, a.Get(t, "/books?status=available"), &available)
		require.Len(t, lentOnly.Books, 1)
		require.Len(t, available.Books, 1)
		assert.Equal(t, "dune", lentOnly.Books[0].ID)
		assert.Equal(t, "emma", available.Books[0].ID)

		// The book's own view and the catalog agree.
		r := a.Get(t, "/books/dune")
		requireJSON(t, r, &struct {
			ID, TitleID, Title, Author, Status string
			Loan                               *loan
			Version                            int64
		}{})

		returned := a.Call(t, http.MethodPost, "/books/dune/returns", obj{"loanId": "loan-1"})
		res := requireResult(t, returned, http.StatusCreated, "book-dune")
		requireJSON(t, a.Get(t, fmt.Sprintf("/books?minPosition=%d&status=lent", res.Position)), &lentOnly)
		assert.Empty(t, lentOnly.Books)

		// A position of an event the catalog does not read, with no book event after it: the
		// catalog passed it without writing its checkpoint there (it may not for ten seconds),
		// and the read answers within the 3 s it may wait.
		fined := requireResult(t, a.Call(t, http.MethodPost, "/accounts/alice/fines", obj{"amount": 300, "reason": "late"}),
			http.StatusCreated, "account-alice")
		requireJSON(t, a.Get(t, fmt.Sprintf("/books?minPosition=%d", fined.Position)), &catalogList{})

		for _, bad := range []string{"status=gone", "minPosition=-1", "minPosition=x", "minPosition=1&minPosition=2", "sort=id"} {
			requireProblem(t, a.Get(t, "/books?"+bad), http.StatusBadRequest, "InvalidRequest")
		}
		// A position past the log's last event is none the service returned: no wait for it.
		requireProblem(t, a.Get(t, fmt.Sprintf("/books?minPosition=%d", res.Position+1000)), http.StatusBadRequest, "InvalidRequest")

		// A replay rebuilds the catalog from the start, beside the first build, to the same books.
		apitest.Rebuilt(t, a, "catalog", apitest.ReplayView(t, a, "catalog"))
		var again catalogList
		requireJSON(t, a.Get(t, "/books"), &again)
		require.Len(t, again.Books, 2)
		assert.Equal(t, "available", again.Books[0].Status)
	})
}

// A late return charges daysLate * FINE_PER_DAY once, however often the saga is replayed.
func TestLateFines(t *testing.T) {
	t.Parallel()
	forEachStore(t, fastBackground(app.Config{FinePerDay: 30}), func(t *testing.T, a *api) {
		requireResult(t, a.Call(t, http.MethodPut, "/accounts/alice", obj{"name": "Alice"}), http.StatusCreated, "account-alice")
		addBook(t, a, "dune")
		due := a.Clock.Now().Add(24 * time.Hour).Format(time.RFC3339)
		requireResult(t, a.Call(t, http.MethodPost, "/books/dune/loans", obj{"loanId": "loan-1", "memberId": "alice", "dueAt": due}),
			http.StatusCreated, "book-dune")
		addBook(t, a, "emma")
		lend(t, a, "emma", "loan-2", "alice") // returned on time: no fine
		a.Clock.Advance(3*24*time.Hour + time.Hour)
		requireResult(t, a.Call(t, http.MethodPost, "/books/dune/returns", obj{"loanId": "loan-1"}), http.StatusCreated, "book-dune")
		requireResult(t, a.Call(t, http.MethodPost, "/books/emma/returns", obj{"loanId": "loan-2"}), http.StatusCreated, "book-emma")

		eventually(t, 10*time.Second, func() bool { return getAccount(t, a, "alice").Balance == 2*30 }, "the fine to be charged")
		caughtUp(t, a, "late-fines")
		version := getAccount(t, a, "alice").Version

		for generation := int64(1); generation <= 2; generation++ {
			require.Equal(t, http.StatusAccepted, admin(t, a, "late-fines", "replay").Status)
			eventually(t, 10*time.Second, func() bool {
				s := processorStatus(t, a, "late-fines")
				return s.Generation == generation && s.Lag == 0
			}, "replay %d to finish", generation)
		}
		acc := getAccount(t, a, "alice")
		assert.EqualValues(t, 60, acc.Balance, "charged once")
		assert.Equal(t, version, acc.Version, "replays record nothing")
	})
}

// /status names the replica and shows each processor; the admin endpoints want the token.
func TestStatusAndAdmin(t *testing.T) {
	t.Parallel()
	forEachStore(t, fastBackground(app.Config{ReplicaID: "replica-a"}), func(t *testing.T, a *api) {
		addBook(t, a, "dune")
		// The processors take their leases in the background: what a holder shows (the outbox's
		// relay) is there only once it holds them.
		var s statusView
		eventually(t, 10*time.Second, func() bool {
			s = getStatus(t, a)
			for _, p := range s.Processors {
				if !p.HoldsLease && p.State != processor.BuildRetired {
					return false
				}
			}
			return true
		}, "a single replica to hold every lease")
		assert.Equal(t, "replica-a", s.Replica)
		var names []string
		for _, p := range s.Processors {
			keys := []string{"name", "kind", "holdsLease", "checkpoint", "generation", "head", "lag", "parked", "deferred", "inFlight", "lastError"}
			what := p.Name
			switch {
			case p.State == processor.BuildRetired:
				continue // a first build that a new version of the view's code replaced
			case p.View != "": // a view's build: its first, or one of a newer version's code
				what = p.View
				keys = append(keys, "view", "version", "build", "state", "reads")
			}
			names = append(names, what+":"+string(p.Kind))
			switch p.Name {
			case "notifications":
				keys = append(keys, "relay", "timers") // this replica holds its lease; its reminders are timers
			case "hold-shelf", "lost-loans":
				keys = append(keys, "timers") // holds expire, and loans are lost, on timers
			}
			requireKeys(t, mustJSON(t, p), keys...)
		}
		assert.Equal(t, []string{"catalog:viewModel", "loans:viewModel", "holds:viewModel", "notifications:outbox", "late-fines:saga", "hold-shelf:saga", "adoption:saga", "due-dates:saga",
			"lost-loans:saga"}, names)
		caught := caughtUp(t, a, "catalog")
		assert.Equal(t, caught.Head, caught.Checkpoint)

		for _, auth := range []string{"", "Bearer wrong", "Basic " + adminToken, adminToken, "Bearer"} {
			r := a.Call(t, http.MethodPost, "/admin/processors/catalog/replay", nil, "Authorization", auth)
			requireProblem(t, r, http.StatusUnauthorized, "Unauthorized")
			assert.Contains(t, r.Header.Get("WWW-Authenticate"), "Bearer")
		}
		requireProblem(t, admin(t, a, "nope", "replay"), http.StatusNotFound, "NotFound")
		requireProblem(t, admin(t, a, "nope", "retry-parked"), http.StatusNotFound, "NotFound")
		requireProblem(t, admin(t, a, "notifications", "replay"), http.StatusUnprocessableEntity, "NotReplayable")
		r := admin(t, a, "notifications", "retry-parked")
		require.Equal(t, http.StatusAccepted, r.Status, "body: %s", r.Body)
		assert.JSONEq(t, `{"requeued":0}`, string(r.Body))
	})
}

// Without ADMIN_TOKEN the admin endpoints refuse everyone, even a request that sends an empty
// bearer token.
func TestAdminWithoutToken(t *testing.T) {
	t.Parallel()
	fromEnv, err := config.FromEnv(func(string) string { return "" }) // ADMIN_TOKEN unset
	require.NoError(t, err)
	cfg := fastBackground(app.Config{})
	cfg.AdminToken = fromEnv.AdminToken
	a := &api{Base: startService(t, cfg)}
	for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer  ", "Bearer " + adminToken, "Basic Og=="} {
		for _, action := range []string{"replay", "retry-parked"} {
			r := a.Call(t, http.MethodPost, "/admin/processors/catalog/"+action, nil, "Authorization", auth)
			requireProblem(t, r, http.StatusUnauthorized, "Unauthorized")
		}
	}
}
