package app_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/pgtest"
)

// A transaction left open in another database of the cluster stalls every processor. /status
// says so, naming the backend, and so does the metric; reads that wait for a position answer
// 503 NotCaughtUp; once the transaction ends, all is well again.
func TestStalledHorizonShows(t *testing.T) {
	t.Parallel()
	cfg := fastBackground(app.Config{DatabaseURL: stores[1].DatabaseURL(t)})
	cfg.Tuning.CatalogWait = 300 * time.Millisecond
	a := launch(t, cfg).API("postgres")
	// Other tests share the cluster, and a long transaction of theirs stalls it too: the checks
	// wait for this test's own transaction to be the one named.
	eventually(t, 10*time.Second, func() bool { return !getStatus(t, a).ReadHorizon.Stalled }, "no stall to begin with")

	other := pgtest.Connect(t, pgtest.NewDatabase(t)+"&application_name=month-end-report")
	ctx := context.Background()
	tx, err := other.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var pid int
	var xid string
	require.NoError(t, tx.QueryRow(ctx, `SELECT pg_backend_pid(), pg_current_xact_id()::text`).Scan(&pid, &xid))

	added := addBook(t, a, "dune")
	h := getStatus(t, a).ReadHorizon
	eventually(t, 10*time.Second, func() bool {
		h = getStatus(t, a).ReadHorizon
		return h.Stalled && h.PID == pid && h.Seconds >= 1
	}, "/status says this transaction stalls the horizon")
	assert.Equal(t, "month-end-report", h.Application)
	assert.NotEmpty(t, h.Database)
	assert.GreaterOrEqual(t, h.Seconds, 1.0)
	require.NotNil(t, h.Since)
	stalled, ok := scrapeMetrics(t, a).value("library_read_horizon_stall_seconds")
	require.True(t, ok)
	assert.GreaterOrEqual(t, stalled, 1.0)
	requireProblem(t, a.Get(t, fmt.Sprintf("/books?minPosition=%d", added.Position)), http.StatusServiceUnavailable, "NotCaughtUp")

	require.NoError(t, tx.Rollback(ctx))
	eventually(t, 10*time.Second, func() bool { return !getStatus(t, a).ReadHorizon.Stalled }, "the stall is over")
	// The catalog reads on once the stall is over; on a loaded machine that may take longer than
	// one read's wait.
	eventually(t, 10*time.Second, func() bool {
		return a.Get(t, fmt.Sprintf("/books?minPosition=%d", added.Position)).Status == http.StatusOK
	}, "the catalog reaches the book once the stall is over")
	eventually(t, 10*time.Second, func() bool {
		v, ok := scrapeMetrics(t, a).value("library_read_horizon_stall_seconds")
		return ok && v == 0
	}, "the stall metric back to 0")
}
