package pgstore

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/storetest"
)

// Appends that come at once share transactions: 50 goroutines, each appending to a stream of
// its own, are all written, each whole and once, in fewer transactions than appends; and 50
// goroutines racing on one stream at one version end with exactly one winner.
func TestPostgresGroupCommit(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newPostgres(t, pgtest.NewPool(t))
	const writers = 50
	var wg sync.WaitGroup
	results := make([][]eventstore.Event, writers)
	errs := make([]error, writers)
	for i := range writers {
		wg.Go(func() {
			results[i], errs[i] = s.Append(ctx, fmt.Sprintf("many-%d", i), 0, storetest.Events("One", "Two"))
		})
	}
	wg.Wait()
	transactions := map[uint64]bool{}
	for i := range writers {
		require.NoError(t, errs[i])
		require.Len(t, results[i], 2)
		require.Equal(t, results[i][0].TransactionID, results[i][1].TransactionID, "an append is one transaction")
		require.Less(t, results[i][0].Position, results[i][1].Position)
		transactions[results[i][0].TransactionID] = true
		read, err := s.ReadStream(ctx, fmt.Sprintf("many-%d", i), 0)
		require.NoError(t, err)
		require.Equal(t, []string{"One", "Two"}, storetest.TypesOf(read))
	}
	t.Logf("%d appends in %d transactions", writers, len(transactions))
	require.Less(t, len(transactions), writers, "appends that came at once shared transactions")

	won := 0
	for i := range writers {
		wg.Go(func() {
			_, errs[i] = s.Append(ctx, "one", 0, storetest.Events(fmt.Sprintf("By%d", i)))
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err == nil {
			won++
			continue
		}
		require.ErrorAs(t, err, new(*eventstore.ConflictError))
	}
	require.Equal(t, 1, won, "one append wins the version")
	read, err := s.ReadStream(ctx, "one", 0)
	require.NoError(t, err)
	require.Len(t, read, 1)
}

// In one batch, an append that conflicts, or that the database refuses, fails alone: the
// others are written.
func TestPostgresBatchFailsPerAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	s := newPostgres(t, pool)
	_, err := s.Append(ctx, "taken", 0, storetest.Events("First"))
	require.NoError(t, err)
	batch := []*appendRequest{
		{streamID: "fine-1", expectedVersion: 0, events: storetest.Events("A")},
		{streamID: "taken", expectedVersion: 0, events: storetest.Events("Late")},
		{streamID: "bad\x00stream", expectedVersion: 0, events: storetest.Events("B")}, // text can't hold NUL
		{streamID: "fine-2", expectedVersion: 0, events: storetest.Events("C", "D")},
	}
	results := writeBatch(ctx, pool, batch)
	require.NoError(t, results[0].err)
	require.ErrorAs(t, results[1].err, new(*eventstore.ConflictError))
	require.Error(t, results[2].err)
	require.False(t, errs.Is(results[2].err, errs.Unavailable), "a refusal, not an outage: %v", results[2].err)
	require.NoError(t, results[3].err)
	require.Len(t, results[3].events, 2)
	for _, stream := range []string{"fine-1", "fine-2"} {
		read, err := s.ReadStream(ctx, stream, 0)
		require.NoError(t, err)
		require.NotEmpty(t, read, stream)
	}
}

// An append whose versions another writer took only in part is never half written: the batch
// is written again append by append, and that one conflicts.
func TestPostgresBatchNeverWritesHalfAnAppend(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	s := newPostgres(t, pool)

	other, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer other.Rollback(ctx) //nolint:errcheck // committed below; rolled back only on failure
	_, err = appendEvents(ctx, other, "contested", 0, storetest.Events("Theirs"))
	require.NoError(t, err)

	done := make(chan []appendResult, 1)
	go func() {
		done <- writeBatch(ctx, pool, []*appendRequest{
			{streamID: "contested", expectedVersion: 0, events: storetest.Events("Mine1", "Mine2")},
			{streamID: "bystander", expectedVersion: 0, events: storetest.Events("Fine")},
		})
	}()
	// The batch saw version 0 and waits on the other writer's version 1; let that commit.
	require.Eventually(t, func() bool { return waitingOnLock(t, pool) }, 10*time.Second, 5*time.Millisecond)
	require.NoError(t, other.Commit(ctx))
	results := <-done
	require.ErrorAs(t, results[0].err, new(*eventstore.ConflictError))
	require.NoError(t, results[1].err)
	read, err := s.ReadStream(ctx, "contested", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"Theirs"}, storetest.TypesOf(read), "nothing of the half-taken append")
	read, err = s.ReadStream(ctx, "bystander", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"Fine"}, storetest.TypesOf(read))
}

// waitingOnLock reports whether a session of the database waits for a lock.
func waitingOnLock(t *testing.T, pool *pgxpool.Pool) bool {
	t.Helper()
	var n int
	err := pool.QueryRow(context.Background(),
		`SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&n)
	require.NoError(t, err)
	return n > 0
}

// Two appends to one stream never share a batch: in one statement both would see the same
// head, and the second would be counted written by the first's row. Here the one batch that
// may be written at a time is held up by a lock while appends queue behind it: two of them to
// one stream at one version, which must end with one winner and one conflict.
func TestPostgresBatchHoldsOneAppendPerStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	c := newCommitter(pool, 1)

	other, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer other.Rollback(ctx) //nolint:errcheck // committed below; rolled back only on failure
	_, err = appendEvents(ctx, other, "held", 0, storetest.Events("Theirs"))
	require.NoError(t, err)
	held := make(chan error, 1)
	go func() {
		_, err := c.append(ctx, &appendRequest{streamID: "held", expectedVersion: 0, events: storetest.Events("Mine")})
		held <- err
	}()
	require.Eventually(t, func() bool { return waitingOnLock(t, pool) }, 10*time.Second, 5*time.Millisecond)

	results := make(chan error, 2)
	for i := range 2 {
		go func() {
			_, err := c.append(ctx, &appendRequest{streamID: "twice", expectedVersion: 0, events: storetest.Events(fmt.Sprintf("By%d", i))})
			results <- err
		}()
	}
	require.Eventually(t, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.queue) == 2
	}, 10*time.Second, time.Millisecond, "both appends queue behind the held batch")
	require.NoError(t, other.Commit(ctx))
	require.ErrorAs(t, <-held, new(*eventstore.ConflictError))
	won := 0
	for range 2 {
		if err := <-results; err == nil {
			won++
		} else {
			require.ErrorAs(t, err, new(*eventstore.ConflictError))
		}
	}
	require.Equal(t, 1, won, "one append wins the version")
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM events WHERE stream_id = 'twice'`).Scan(&n))
	require.Equal(t, 1, n)
}
