package pgstore

import (
	"context"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func newPostgres(t *testing.T, pool *pgxpool.Pool) *Postgres {
	s := New(pool, discardLogger())
	t.Cleanup(s.Close)
	return s
}

func TestPostgres(t *testing.T) {
	t.Parallel()
	storetest.Contract(t, func(t *testing.T) eventstore.Store { return newPostgres(t, pgtest.NewPool(t)) })
	storetest.Positions(t, func(t *testing.T) eventstore.Store { return newPostgres(t, pgtest.NewPool(t)) })
}

// lateCommit appends a Slow event in a transaction it leaves open (rolled back when the test
// ends, unless committed), then a Fast event, through s, which takes a later position and
// commits first; it returns the open transaction.
func lateCommit(t *testing.T, pool *pgxpool.Pool, s *Postgres) pgx.Tx {
	t.Helper()
	ctx := context.Background()
	slow, err := pool.Begin(ctx)
	require.NoError(t, err)
	t.Cleanup(func() { _ = slow.Rollback(ctx) }) // a no-op once committed
	slowEvents, err := appendEvents(ctx, slow, "book-slow", 0, storetest.Events("Slow"))
	require.NoError(t, err)
	fastEvents, err := s.Append(ctx, "book-fast", 0, storetest.Events("Fast"))
	require.NoError(t, err)
	require.Greater(t, fastEvents[0].Position, slowEvents[0].Position)
	return slow
}

// A reader must never pass an event whose transaction commits after a later position was
// already committed: it waits for the older transaction instead of skipping it.
func TestPostgresReadAllNeverSkipsALateCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	s := newPostgres(t, pool)
	slow := lateCommit(t, pool, s)

	// Ordering by position alone, a reader would now see Fast and move past Slow's position.
	var committed int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE position > 0`).Scan(&committed))
	require.Equal(t, 1, committed, "only the fast append is visible")

	// The log holds Fast back until Slow's transaction has finished.
	read, err := s.ReadAll(ctx, eventstore.Checkpoint{}, 0)
	require.NoError(t, err)
	require.Empty(t, read, "nothing is readable while an older transaction is still open")

	require.NoError(t, slow.Commit(ctx))
	read = storetest.ReadAllEventually(t, s, eventstore.Checkpoint{}, 2)
	require.Equal(t, []string{"Slow", "Fast"}, storetest.TypesOf(read), "in the order of their transactions")

	// A reader that stopped at Fast would have missed Slow; a reader at Slow's checkpoint
	// continues with Fast and nothing else.
	rest, err := s.ReadAll(ctx, read[0].Checkpoint(), 0)
	require.NoError(t, err)
	require.Equal(t, []string{"Fast"}, storetest.TypesOf(rest))
}

// The reverse interleaving: the transaction that starts first takes the later position.
func TestPostgresReadAllOrdersByTransaction(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	s := newPostgres(t, pool)

	first, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer first.Rollback(ctx) //nolint:errcheck // rolled back only if the test fails early
	// Give the first transaction its id before the second starts, then let the second insert.
	_, err = first.Exec(ctx, `SELECT pg_current_xact_id()`)
	require.NoError(t, err)
	second, err := s.Append(ctx, "book-b", 0, storetest.Events("Second"))
	require.NoError(t, err)
	firstEvents, err := appendEvents(ctx, first, "book-a", 0, storetest.Events("First"))
	require.NoError(t, err)
	require.Greater(t, firstEvents[0].Position, second[0].Position)

	read, err := s.ReadAll(ctx, eventstore.Checkpoint{}, 0)
	require.NoError(t, err)
	require.Empty(t, read)
	require.NoError(t, first.Commit(ctx))
	read = storetest.ReadAllEventually(t, s, eventstore.Checkpoint{}, 2)
	require.Equal(t, []string{"First", "Second"}, storetest.TypesOf(read))
}

// Appends to different streams don't queue behind each other: an open append to one stream
// does not hold up an append to another.
func TestPostgresAppendsToDifferentStreamsDoNotWait(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	s := newPostgres(t, pool)

	open, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer open.Rollback(ctx) //nolint:errcheck // the open append is never committed
	_, err = appendEvents(ctx, open, "stream-open", 0, storetest.Events("Open"))
	require.NoError(t, err)

	appendCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err = s.Append(appendCtx, "stream-other", 0, storetest.Events("Other"))
	require.NoError(t, err, "an append to another stream must not wait for the open transaction")

	// An append to the same stream at the same version does wait, then conflicts.
	sameCtx, cancelSame := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := s.Append(sameCtx, "stream-open", 0, storetest.Events("Same"))
		done <- err
	}()
	require.NoError(t, open.Commit(ctx))
	select {
	case err := <-done:
		require.ErrorAs(t, err, new(*eventstore.ConflictError))
	case <-time.After(10 * time.Second):
		t.Fatal("the competing append neither conflicted nor returned")
	}
	cancelSame()
}

// A notification reaches subscribers of every store on the database, not only the writer's.
func TestPostgresNotificationsCrossInstances(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	writer := newPostgres(t, pgtest.Connect(t, url))
	reader := newPostgres(t, pgtest.Connect(t, url))

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wake := reader.Subscribe(ctx)
	deadline := time.After(10 * time.Second)
	for i := 0; ; i++ {
		_, err := writer.Append(context.Background(), "s", int64(i), storetest.Events("E"))
		require.NoError(t, err)
		select {
		case <-wake:
		case <-deadline:
			t.Fatal("the other instance was not woken within 10s")
		}
		if read, _ := reader.ReadAll(context.Background(), eventstore.Checkpoint{}, 0); len(read) == i+1 {
			return
		}
	}
}

func TestPostgresUnreachableIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// Nothing listens on port 1 of loopback.
	pool, err := pgxpool.New(ctx, "postgres://library:secret-password@127.0.0.1:1/library?connect_timeout=2")
	require.NoError(t, err)
	defer pool.Close()
	s := newPostgres(t, pool)

	_, err = s.Append(ctx, "s", 0, storetest.Events("E"))
	require.True(t, errs.Is(err, errs.Unavailable), "got %v", err)
	_, err = s.ReadStream(ctx, "s", 0)
	require.True(t, errs.Is(err, errs.Unavailable), "got %v", err)
	_, err = s.ReadAll(ctx, eventstore.Checkpoint{}, 10)
	require.True(t, errs.Is(err, errs.Unavailable), "got %v", err)
	require.True(t, errs.Is(s.Ping(ctx), errs.Unavailable))
	require.NotContains(t, err.Error(), "secret-password")
}

func TestPostgresListenerStopsWithItsSubscribers(t *testing.T) {
	running := goleak.IgnoreCurrent()
	t.Cleanup(func() { goleak.VerifyNone(t, running) }) // runs last, after the pool is closed
	s := newPostgres(t, pgtest.NewPool(t))
	ctx, cancel := context.WithCancel(context.Background())
	_ = s.Subscribe(ctx)
	cancel()
	s.Close()
}
