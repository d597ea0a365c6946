package pgdriver

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/processor"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// Checkpoints and leases in PostgreSQL keep the contract the memory ones keep (package processor
// runs the same suite).

func TestPostgresCheckpoints(t *testing.T) {
	t.Parallel()
	drivertest.TestCheckpoints(t, func(t *testing.T) processor.Checkpoints { return NewCheckpoints(pgtest.NewPool(t)) })
}

func TestPostgresBuilds(t *testing.T) {
	t.Parallel()
	drivertest.TestBuilds(t, func(t *testing.T) drivertest.BuildsStore { return NewCheckpoints(pgtest.NewPool(t)) })
}

func TestPostgresForgetMember(t *testing.T) {
	t.Parallel()
	drivertest.TestForgetMember(t, func(t *testing.T) drivertest.Forgetter { return NewCheckpoints(pgtest.NewPool(t)) })
}

// Timers are due by the database's clock, which the test reads as the driver's queries do.
func TestPostgresTimers(t *testing.T) {
	t.Parallel()
	drivertest.TestTimers(t, func(t *testing.T) drivertest.TimerStore {
		pool := pgtest.NewPool(t)
		return drivertest.TimerStore{C: NewCheckpoints(pool), Now: func() time.Time {
			var now time.Time
			require.NoError(t, pool.QueryRow(context.Background(), `SELECT clock_timestamp()`).Scan(&now))
			return now
		}}
	})
}

func TestPostgresLeases(t *testing.T) {
	t.Parallel()
	drivertest.TestLeases(t, func(t *testing.T) processor.Leases {
		return NewLeases(pgtest.NewPool(t).Config().ConnConfig, testTiming(), discardLogger())
	})
}

// Parked events and positions are in the database, not in the Checkpoints value: a
// new one (a restarted replica, another replica) sees them.
func TestPostgresCheckpointsAreShared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	first := NewCheckpoints(pool)
	e := drivertest.Parkable(3, 3)
	require.NoError(t, first.Park(ctx, "p", processor.Parked{Event: e, Reason: "bounced", Attempts: 6}))
	require.NoError(t, first.Save(ctx, "p", processor.Position{}, drivertest.Pos(0, 3, 3)))

	second := NewCheckpoints(pool)
	require.Equal(t, 1, drivertest.CountParked(t, second, "p"))
	require.Equal(t, drivertest.Pos(0, 3, 3), drivertest.LoadPosition(t, second, "p"))
	parked, err := second.ListParked(ctx, "p", 0)
	require.NoError(t, err)
	require.Len(t, parked, 1)
	drivertest.RequireSameEvent(t, e, parked[0].Event)
	require.Equal(t, "bounced", parked[0].Reason)
	require.Equal(t, 6, parked[0].Attempts)
	n, err := second.Requeue(ctx, "p", time.Now())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	requeued := drivertest.Due(t, first, "p", time.Now())
	require.Len(t, requeued, 1)
	drivertest.RequireSameEvent(t, e, requeued[0].Event)
}

// A view model moves its checkpoint inside its own transaction: the move is undone with it.
func TestPostgresCheckpointsSaveTx(t *testing.T) {
	t.Parallel()
	// A deadline, and every transaction rolled back on the way out: a failed assertion ends
	// the test at once instead of leaving a transaction that holds the database's cleanup.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.NewPool(t)
	c := NewCheckpoints(pool)
	begin := func() pgx.Tx {
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = tx.Rollback(context.Background()) }) // a no-op once it has ended
		return tx
	}

	tx := begin()
	require.NoError(t, c.SaveTx(ctx, tx, "view", processor.Position{}, drivertest.Pos(0, 1, 1)))
	require.NoError(t, tx.Rollback(ctx))
	require.Equal(t, processor.Position{}, drivertest.LoadPosition(t, c, "view"), "rolled back with the rows")

	tx = begin()
	require.NoError(t, c.SaveTx(ctx, tx, "view", processor.Position{}, drivertest.Pos(0, 1, 1)))
	require.NoError(t, tx.Commit(ctx))
	require.Equal(t, drivertest.Pos(0, 1, 1), drivertest.LoadPosition(t, c, "view"))

	tx = begin()
	require.ErrorIs(t, c.SaveTx(ctx, tx, "view", processor.Position{}, drivertest.Pos(0, 2, 2)), processor.ErrFenced)
	require.NoError(t, tx.Rollback(ctx))
	require.Equal(t, drivertest.Pos(0, 1, 1), drivertest.LoadPosition(t, c, "view"))
}

// Many movers that read the same position race to move it, as holders overlapping across a
// lost lease would: exactly one wins, the others are fenced, and the winner's move is the one
// stored. Once for the first save (no row yet: the movers race on the primary key) and once
// for a later one (they race on the row).
func TestPostgresCheckpointsFencedRace(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	cfg, err := pgxpool.ParseConfig(url)
	require.NoError(t, err)
	cfg.MaxConns = 25 // one connection per mover, so that they really run at once
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	c := NewCheckpoints(pool)

	for round, start := range []processor.Position{{}, drivertest.Pos(1, 50, 50)} {
		name := "raced"
		if start != (processor.Position{}) {
			require.NoError(t, c.Save(context.Background(), name, drivertest.LoadPosition(t, c, name), start))
		}
		const movers = 20
		errs := make([]error, movers)
		targets := make([]processor.Position, movers)
		ready, gate := sync.WaitGroup{}, make(chan struct{})
		var done sync.WaitGroup
		for i := range movers {
			targets[i] = drivertest.Pos(start.Generation, uint64(100+i), int64(100+i))
			ready.Add(1)
			done.Go(func() {
				from, err := c.Load(context.Background(), name)
				ready.Done()
				if err != nil {
					errs[i] = err
					return
				}
				<-gate // every mover has read the same position before any moves it
				errs[i] = c.Save(context.Background(), name, from, targets[i])
			})
		}
		ready.Wait()
		close(gate)
		done.Wait()

		winner := -1
		for i, err := range errs {
			switch {
			case err == nil:
				require.Equal(t, -1, winner, "round %d: movers %d and %d both moved the checkpoint", round, winner, i)
				winner = i
			case !errors.Is(err, processor.ErrFenced):
				t.Fatalf("round %d: mover %d: %v", round, i, err)
			}
		}
		require.NotEqual(t, -1, winner, "round %d: somebody must win", round)
		require.Equal(t, targets[winner], drivertest.LoadPosition(t, c, name), "round %d: the winner's move is stored", round)
	}
}

// LockTx holds a checkpoint where its caller read it, for a write that moves none: a
// checkpoint somewhere else is fenced, the start of the log matches a processor that never
// saved, and a move of the checkpoint waits until the lock's transaction ends.
func TestLockTxFencesAWriteThatMovesNoCheckpoint(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	cps := NewCheckpoints(pool)
	lockIn := func(at processor.Position) (pgx.Tx, error) {
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = tx.Rollback(ctx) })
		err = cps.LockTx(ctx, tx, "view", at)
		if err != nil {
			require.NoError(t, tx.Rollback(ctx)) // what the caller does
		}
		return tx, err
	}
	start := processor.Position{}
	_, err := lockIn(start)
	require.NoError(t, err, "never saved: at the start of the log")

	at := drivertest.Pos(0, 10, 3)
	require.NoError(t, cps.Save(ctx, "view", start, at))
	_, err = lockIn(start)
	require.ErrorIs(t, err, processor.ErrFenced)
	_, err = lockIn(drivertest.Pos(0, 10, 2))
	require.ErrorIs(t, err, processor.ErrFenced)

	tx, err := lockIn(at)
	require.NoError(t, err)
	moved := make(chan error, 1)
	go func() { moved <- cps.Save(ctx, "view", at, drivertest.Pos(0, 10, 4)) }()
	drivertest.Eventually(t, 10*time.Second, func() bool {
		var waiting bool
		require.NoError(t, pool.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%UPDATE processor_checkpoints%')`).Scan(&waiting))
		return waiting
	}, "the move waits for the lock")
	require.Empty(t, moved, "the checkpoint moved while locked")
	require.NoError(t, tx.Commit(ctx))
	require.NoError(t, <-moved)
	_, err = lockIn(at)
	require.ErrorIs(t, err, processor.ErrFenced)
}
