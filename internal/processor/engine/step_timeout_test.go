package engine

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore/pgstore"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// A query that the database does not answer, here one queued behind a lock that another
// session holds, fails after StepTimeout and is tried again, while the lease's own connection
// answers its checks and the lease is kept: nothing but the step's own deadline would end the
// wait. Once the database answers again, the processor goes on from its checkpoint.
func TestStuckQueryFailsAfterStepTimeout(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	store := pgstore.New(pool, discardLogger())
	t.Cleanup(store.Close)
	cps := pgdriver.NewCheckpoints(pool)
	opts := testOptions()
	opts.StepTimeout = 200 * time.Millisecond
	observed := newCounts()
	opts.Observer = observed
	timing := pgdriver.LeaseTiming{RetryInterval: 50 * time.Millisecond, CheckInterval: 100 * time.Millisecond, CheckTimeout: time.Second}
	h := drivertest.NewRecorder(nil)
	g := startGroup(t, Config{Store: store, Checkpoints: cps, Leases: pgdriver.NewLeases(pool.Config().ConnConfig, timing, discardLogger()),
		Logger: discardLogger(), Options: opts}, saga("fines", h))

	first := drivertest.AppendEvents(t, store, "book", 3)
	drivertest.Eventually(t, 20*time.Second, func() bool {
		return drivertest.LoadPosition(t, cps, "fines").Checkpoint == first[len(first)-1].Checkpoint()
	}, "the first events handled")

	// Another session locks the checkpoints against writes, without taking a transaction id
	// (which would hold back the log's read horizon): every move of a checkpoint now waits.
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(context.Background()) }() // on a failure below; a no-op after it
	_, err = tx.Exec(ctx, `LOCK TABLE processor_checkpoints IN SHARE MODE`)
	require.NoError(t, err)
	failedBefore := observed.get(observed.failed, "fines")
	more := drivertest.AppendEvents(t, store, "member", 3)

	runner := g.runners[0]
	drivertest.Eventually(t, 20*time.Second, func() bool {
		return observed.get(observed.failed, "fines") >= failedBefore+2 && strings.Contains(runner.lastErr(), "did not answer in time")
	}, "the stuck checkpoint query failed, and failed again when tried again (last error %q)", runner.lastErr())
	require.True(t, g.HoldsLease("fines"), "the lease is kept: its connection answers")

	require.NoError(t, tx.Rollback(ctx))
	drivertest.Eventually(t, 20*time.Second, func() bool {
		return drivertest.LoadPosition(t, cps, "fines").Checkpoint == more[len(more)-1].Checkpoint()
	}, "the processor goes on once the lock is gone")
	for _, e := range more {
		require.GreaterOrEqual(t, h.Attempts(e.Position), 1, "every event handled")
	}
}
