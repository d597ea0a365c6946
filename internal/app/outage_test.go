package app_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/pgtest"
)

// While PostgreSQL can't be reached every request is a 503 Unavailable with Retry-After, never
// a 500, nothing is half-written, and the service serves again once the database is back,
// without a restart.
func TestDatabaseOutageIsUnavailableNeverInternal(t *testing.T) {
	t.Parallel()
	proxy, url := pgtest.NewProxy(t, pgtest.NewDatabase(t))
	a := &api{Base: startService(t, app.Config{DatabaseURL: url, RequestTimeout: 5 * time.Second}), Store: "postgres"}

	fine := obj{"amount": 300, "reason": "Dune, 10 days late"}
	requireResult(t, a.Call(t, "POST", "/accounts/alice/fines", fine), http.StatusCreated, "account-alice")

	proxy.Cut()
	during := []struct {
		method, path string
		body         any
		headers      []string
	}{
		{"GET", "/accounts/alice", nil, nil},
		{"GET", "/books/dune", nil, nil},
		{"POST", "/accounts/alice/fines", fine, nil},
		{"POST", "/accounts/alice/payments", obj{"amount": 300}, []string{"Idempotency-Key", "pay-during-outage"}},
		{"PUT", "/accounts/alice", obj{"name": "Alice"}, nil},
		{"POST", "/books", obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"}, nil},
		{"GET", "/readyz", nil, nil},
	}
	for _, r := range during {
		resp := a.Call(t, r.method, r.path, r.body, r.headers...)
		requireProblem(t, resp, http.StatusServiceUnavailable, "Unavailable")
		require.Equal(t, "1", resp.Header.Get("Retry-After"), "%s %s", r.method, r.path)
	}
	require.Equal(t, http.StatusOK, a.Get(t, "/healthz").Status, "the process itself is alive")

	proxy.Restore()
	deadline := time.Now().Add(15 * time.Second)
	for a.Get(t, "/readyz").Status != http.StatusOK {
		require.True(t, time.Now().Before(deadline), "not ready again within 15s of the database's return")
		time.Sleep(50 * time.Millisecond) // polling readiness
	}

	// The payment refused during the outage was never recorded: its retry is a first run.
	paid := a.Call(t, "POST", "/accounts/alice/payments", obj{"amount": 300}, "Idempotency-Key", "pay-during-outage")
	requireResult(t, paid, http.StatusCreated, "account-alice")
	require.Empty(t, paid.Header.Get("Idempotent-Replayed"))

	account := getAccount(t, a, "alice")
	require.Equal(t, int64(0), account.Balance)
	require.Equal(t, int64(2), account.Version, "one fine and one payment: nothing from the outage")
}

// A database that has not been migrated is not ready, and requests are 503 (never 500) until
// the migrations run; then the service serves without a restart.
func TestUnmigratedDatabaseIsNotReady(t *testing.T) {
	t.Parallel()
	url := pgtest.NewEmptyDatabase(t)
	a := &api{Base: startService(t, app.Config{DatabaseURL: url, MigrateOnStart: false}), Store: "postgres"}

	// A readiness check cut short on a busy machine says only that the version can't be read:
	// the one that answers says what to run.
	eventually(t, 10*time.Second, func() bool {
		p := requireProblem(t, a.Get(t, "/readyz"), http.StatusServiceUnavailable, "Unavailable")
		return strings.Contains(p.Detail, "migrate up")
	}, "readiness says to run the migrations")
	requireProblem(t, a.Call(t, "POST", "/books", obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"}),
		http.StatusServiceUnavailable, "Unavailable")

	pool := pgtest.Connect(t, url)
	require.NoError(t, app.Migrate(context.Background(), pool, slog.New(slog.NewTextHandler(io.Discard, nil)), "up", io.Discard))
	require.Equal(t, http.StatusOK, a.Get(t, "/readyz").Status)
	requireResult(t, a.Call(t, "POST", "/books", obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"}),
		http.StatusCreated, "book-dune")
}

// Readiness follows the database after the service was ready: 503 within a couple of seconds
// of the database going away, and ready again once it is back. (Before the first success the
// schema check answers 503 on its own, so this must start from a ready service.)
func TestReadinessFollowsTheDatabase(t *testing.T) {
	t.Parallel()
	proxy, url := pgtest.NewProxy(t, pgtest.NewDatabase(t))
	a := &api{Base: startService(t, app.Config{DatabaseURL: url}), Store: "postgres"}
	isReady := func() bool { return a.Get(t, "/readyz").Status == http.StatusOK }
	eventually(t, 10*time.Second, isReady, "ready at first")

	proxy.Cut()
	eventually(t, 2500*time.Millisecond, func() bool { return !isReady() }, "not ready once the database is gone")
	requireProblem(t, a.Get(t, "/readyz"), http.StatusServiceUnavailable, "Unavailable")

	proxy.Restore()
	eventually(t, 15*time.Second, isReady, "ready again once the database is back")
}
