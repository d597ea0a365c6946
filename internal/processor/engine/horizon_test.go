package engine

import (
	"context"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/processor/memdriver"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// countingStore counts the reads a processor makes of the log.
type countingStore struct {
	*pgstore.Postgres
	reads atomic.Int64
}

func (s *countingStore) ReadTypes(ctx context.Context, after eventstore.Checkpoint, limit int, types []string) (eventstore.Page, error) {
	s.reads.Add(1)
	return s.Postgres.ReadTypes(ctx, after, limit, types)
}

func (s *countingStore) Head(ctx context.Context) (eventstore.Checkpoint, error) {
	s.reads.Add(1)
	return s.Postgres.Head(ctx)
}

// A transaction left open in another database of the same cluster holds the log's read horizon
// back: the store says so, naming the backend, and the processor, which can read nothing
// meanwhile, backs off instead of asking every 10ms; once the transaction ends, it goes on.
func TestStalledHorizon(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	store := pgstore.New(pool, discardLogger())
	t.Cleanup(store.Close)
	counted := &countingStore{Postgres: store}
	opts := testOptions()
	opts.PollInterval = time.Second
	h := drivertest.NewRecorder(nil)
	g := startGroup(t, Config{Store: counted, Checkpoints: pgdriver.NewCheckpoints(pool), Leases: memdriver.NewLeases(),
		Logger: discardLogger(), Options: opts}, saga("fines", h))
	first := drivertest.AppendEvents(t, store, "book", 2)
	drivertest.Eventually(t, 10*time.Second, func() bool { return h.Count() == 2 }, "the first events handled")

	// Another database, another application: a transaction that has written (it has an id).
	otherURL := pgtest.NewDatabase(t)
	other := pgtest.Connect(t, otherURL+"&application_name=nightly-report")
	ctx := context.Background()
	conn, err := other.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	tx, err := conn.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var pid int
	var xid string
	require.NoError(t, tx.QueryRow(ctx, `SELECT pg_backend_pid(), pg_current_xact_id()::text`).Scan(&pid, &xid))

	more := drivertest.AppendEvents(t, store, "member", 3)
	var stall eventstore.Stall
	// Other tests share the cluster: a transaction of theirs that began before this one is the
	// oldest for as long as it lasts, so the stall is this one's once theirs have ended.
	drivertest.Eventually(t, 10*time.Second, func() bool {
		s, stalled, err := store.Stalled(ctx)
		require.NoError(t, err)
		stall = s
		return stalled && s.PID == pid
	}, "the store says the horizon is stalled by this transaction")
	u, err := url.Parse(otherURL)
	require.NoError(t, err)
	require.Equal(t, strings.TrimPrefix(u.Path, "/"), stall.Database)
	require.Equal(t, "nightly-report", stall.Application)
	require.WithinDuration(t, time.Now(), stall.Since, time.Minute)
	drivertest.Eventually(t, 10*time.Second, func() bool {
		horizon, err := g.ReadHorizon(ctx)
		require.NoError(t, err)
		return horizon.Stalled && horizon.PID == pid && horizon.Seconds >= 1
	}, "the group reports the stall, a second old or more")
	require.Equal(t, 2, h.Count(), "nothing above the horizon is read")

	// Reading every 10ms would be some 200 reads and 200 looks at the head in two seconds.
	before := counted.reads.Load()
	stalledFor := time.Now()
	drivertest.Eventually(t, 10*time.Second, func() bool { return time.Since(stalledFor) >= 2*time.Second }, "two seconds of stall")
	reads := counted.reads.Load() - before
	t.Logf("%d reads of the log in two seconds of stall", reads)
	require.Less(t, reads, int64(40), "the processor backs off while the horizon is stalled")

	require.NoError(t, tx.Rollback(ctx))
	drivertest.Eventually(t, 10*time.Second, func() bool { return h.Count() == len(first)+len(more) }, "the events handled once the transaction ends")
	_, stalled, err := store.Stalled(ctx)
	require.NoError(t, err)
	require.False(t, stalled)
}
