package processor

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/testkit/pgtest"
)

func TestMemoryCheckpoints(t *testing.T) {
	t.Parallel()
	testCheckpoints(t, func(*testing.T) Checkpoints { return NewMemoryCheckpoints(nil) })
}

func TestPostgresCheckpoints(t *testing.T) {
	t.Parallel()
	testCheckpoints(t, func(t *testing.T) Checkpoints { return NewPostgresCheckpoints(pgtest.NewPool(t)) })
}

// pos builds a position. Transaction ids above 2^32 check that xid8 keeps all 64 bits.
func pos(generation int64, tx uint64, position int64) Position {
	return Position{Generation: generation, Checkpoint: eventstore.Checkpoint{TransactionID: 1<<40 + tx, Position: position}}
}

// parkable is an event as the log would have recorded it.
func parkable(tx uint64, position int64) eventstore.Event {
	return eventstore.Event{
		StreamID: fmt.Sprintf("book-%d", position), Version: position, Position: position,
		TransactionID: 1<<40 + tx, Type: "BookLent", Data: []byte(`{"member": "alice", "days": 14}`),
		Metadata:   eventstore.Metadata{CommandID: "cmd-1", Command: "lend", Fingerprint: "f1", CorrelationID: "req-1"},
		RecordedAt: time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC),
	}
}

// testCheckpoints is the contract that both Checkpoints implementations meet.
func testCheckpoints(t *testing.T, newCheckpoints func(t *testing.T) Checkpoints) {
	ctx := context.Background()

	t.Run("load of an unknown name is the start", func(t *testing.T) {
		t.Parallel()
		c := newCheckpoints(t)
		require.Equal(t, Position{}, loadPosition(t, c, "never-ran"))
	})

	t.Run("save moves forward", func(t *testing.T) {
		t.Parallel()
		c := newCheckpoints(t)
		require.NoError(t, c.Save(ctx, "p", Position{}, pos(0, 5, 7)))
		require.Equal(t, pos(0, 5, 7), loadPosition(t, c, "p"))
		// A later transaction may hold a lower position: the order is (transaction, position).
		require.NoError(t, c.Save(ctx, "p", pos(0, 5, 7), pos(0, 6, 3)))
		require.Equal(t, pos(0, 6, 3), loadPosition(t, c, "p"))
		require.Equal(t, Position{}, loadPosition(t, c, "other"), "names are independent")
	})

	t.Run("save from a wrong position is fenced and changes nothing", func(t *testing.T) {
		t.Parallel()
		c := newCheckpoints(t)
		require.NoError(t, c.Save(ctx, "p", Position{}, pos(0, 5, 5)))
		for _, from := range []Position{{}, pos(0, 4, 4), pos(0, 5, 6), pos(0, 9, 9), pos(1, 5, 5)} {
			err := c.Save(ctx, "p", from, pos(2, 10, 10))
			require.ErrorIs(t, err, ErrFenced, "from %+v", from)
		}
		require.Equal(t, pos(0, 5, 5), loadPosition(t, c, "p"))

		// A processor that never saved is at the start, so a mover that claims another
		// position is stale too, and must not create the checkpoint.
		require.ErrorIs(t, c.Save(ctx, "fresh", pos(0, 5, 5), pos(0, 6, 6)), ErrFenced)
		require.Equal(t, Position{}, loadPosition(t, c, "fresh"))
	})

	t.Run("save that is not forward is refused", func(t *testing.T) {
		t.Parallel()
		c := newCheckpoints(t)
		require.NoError(t, c.Save(ctx, "p", Position{}, pos(1, 5, 5)))
		for _, to := range []Position{pos(1, 5, 5), pos(1, 5, 4), pos(1, 4, 9), pos(0, 9, 9), {}} {
			err := c.Save(ctx, "p", pos(1, 5, 5), to)
			require.Error(t, err, "to %+v", to)
			require.NotErrorIs(t, err, ErrFenced, "a backward move is a bug, not a lost race")
		}
		require.Error(t, c.Save(ctx, "fresh", Position{}, Position{}))
		require.Equal(t, pos(1, 5, 5), loadPosition(t, c, "p"))
		require.Equal(t, Position{}, loadPosition(t, c, "fresh"))
	})

	t.Run("a replay fences the previous generation", func(t *testing.T) {
		t.Parallel()
		c := newCheckpoints(t)
		stale := pos(0, 5, 5)
		require.NoError(t, c.Save(ctx, "p", Position{}, stale))
		// The holder replays: the next generation starts from the start of the log.
		require.NoError(t, c.Save(ctx, "p", stale, Position{Generation: 1}))
		require.Equal(t, Position{Generation: 1}, loadPosition(t, c, "p"))
		// The new generation reaches the very (transaction, position) the stale holder read.
		require.NoError(t, c.Save(ctx, "p", Position{Generation: 1}, pos(1, 5, 5)))
		// ABA: the checkpoint is back at the stale holder's (transaction, position), but in
		// another generation, so the stale holder is still fenced.
		require.ErrorIs(t, c.Save(ctx, "p", stale, pos(0, 6, 6)), ErrFenced)
		require.ErrorIs(t, c.Save(ctx, "p", stale, pos(1, 6, 6)), ErrFenced)
		require.Equal(t, pos(1, 5, 5), loadPosition(t, c, "p"))
	})

	t.Run("park, count, list, requeue", func(t *testing.T) {
		t.Parallel()
		c := newCheckpoints(t)
		// Log order is by transaction, then position: here it is not the order of positions.
		first, second, third := parkable(10, 30), parkable(11, 10), parkable(12, 20)
		for i, e := range []eventstore.Event{third, first, second} {
			require.NoError(t, c.Park(ctx, "p", Parked{Event: e, Reason: "smtp down " + e.StreamID, Attempts: i + 1}))
		}
		require.NoError(t, c.Park(ctx, "other", Parked{Event: first, Reason: "other", Attempts: 1}))
		require.Equal(t, 3, countParked(t, c, "p"))
		require.Equal(t, 1, countParked(t, c, "other"))
		require.Equal(t, 0, countParked(t, c, "nobody"))

		parked, err := c.ListParked(ctx, "p", 10)
		require.NoError(t, err)
		require.Equal(t, []int64{30, 10, 20}, parkedPositions(parked), "in log order")
		got := parked[0]
		requireSameEvent(t, first, got.Event)
		require.Equal(t, "smtp down "+first.StreamID, got.Reason)
		require.Equal(t, 2, got.Attempts)
		require.WithinDuration(t, time.Now(), got.ParkedAt, time.Minute)
		parked, err = c.ListParked(ctx, "p", 2)
		require.NoError(t, err)
		require.Equal(t, []int64{30, 10}, parkedPositions(parked), "the oldest, up to the limit")
		require.Empty(t, due(t, c, "p", time.Now().Add(time.Hour)), "nothing is tried again before retry-parked")

		now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
		n, err := c.Requeue(ctx, "p", now)
		require.NoError(t, err)
		require.Equal(t, 3, n)
		require.Equal(t, 0, countParked(t, c, "p"), "requeued events are no longer parked")
		require.Equal(t, 3, countDeferred(t, c, "p"), "but deferred")
		require.Empty(t, due(t, c, "p", now.Add(-time.Second)), "due at the time of the requeue")
		requeued := due(t, c, "p", now)
		require.Equal(t, []int64{30, 10, 20}, deferredPositions(requeued), "in log order")
		requireSameEvent(t, first, requeued[0].Event)
		require.Equal(t, "smtp down "+first.StreamID, requeued[0].Reason, "the reason is kept")
		require.Zero(t, requeued[0].Attempts, "every attempt is available again")
		require.True(t, now.Equal(requeued[0].NextAttempt))
		require.Equal(t, 1, countParked(t, c, "other"), "requeue is per processor")
		n, err = c.Requeue(ctx, "p", now)
		require.NoError(t, err)
		require.Zero(t, n)
	})

	t.Run("defer, due, done", func(t *testing.T) {
		t.Parallel()
		c := newCheckpoints(t)
		now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
		_, ok, err := c.NextAttempt(ctx, "p")
		require.NoError(t, err)
		require.False(t, ok, "nothing deferred")

		early, late, later := parkable(1, 1), parkable(2, 2), parkable(3, 3)
		require.NoError(t, c.Defer(ctx, "p", Deferred{Event: late, Reason: "452 mailbox full", Attempts: 1, NextAttempt: now.Add(2 * time.Minute)}))
		require.NoError(t, c.Defer(ctx, "p", Deferred{Event: early, Reason: "451 try later", Attempts: 2, NextAttempt: now.Add(time.Minute)}))
		require.NoError(t, c.Defer(ctx, "p", Deferred{Event: later, Reason: "450", Attempts: 1, NextAttempt: now.Add(3 * time.Minute)}))
		require.NoError(t, c.Defer(ctx, "other", Deferred{Event: early, Reason: "x", Attempts: 1, NextAttempt: now}))
		require.Equal(t, 3, countDeferred(t, c, "p"))

		next, ok, err := c.NextAttempt(ctx, "p")
		require.NoError(t, err)
		require.True(t, ok)
		require.True(t, now.Add(time.Minute).Equal(next), "the earliest: %v", next)
		require.Empty(t, due(t, c, "p", now))
		got := due(t, c, "p", now.Add(2*time.Minute))
		require.Equal(t, []int64{1, 2}, deferredPositions(got), "what is due, the earliest first")
		requireSameEvent(t, early, got[0].Event)
		require.Equal(t, "451 try later", got[0].Reason)
		require.Equal(t, 2, got[0].Attempts)
		require.Equal(t, []int64{1}, deferredPositions(dueLimit(t, c, "p", now.Add(time.Hour), 1)), "up to the limit")

		// Deferred again after another failure; a holder that starts the event over (after a
		// takeover) can't give it back attempts it used.
		require.NoError(t, c.Defer(ctx, "p", Deferred{Event: early, Reason: "451 still", Attempts: 3, NextAttempt: now.Add(5 * time.Minute)}))
		require.NoError(t, c.Defer(ctx, "p", Deferred{Event: late, Reason: "452 again", Attempts: 1, NextAttempt: now.Add(4 * time.Minute)}))
		got = due(t, c, "p", now.Add(time.Hour))
		require.Equal(t, []int64{3, 2, 1}, deferredPositions(got))
		require.Equal(t, 3, got[2].Attempts)
		require.Equal(t, "452 again", got[1].Reason)
		require.Equal(t, 1, got[1].Attempts)

		require.NoError(t, c.Done(ctx, "p", early.Position))
		require.NoError(t, c.Done(ctx, "p", 999), "forgetting what is not deferred does nothing")
		require.Equal(t, 2, countDeferred(t, c, "p"))
		require.Equal(t, 1, countDeferred(t, c, "other"), "done is per processor")

		// Parking forgets the deferral.
		require.NoError(t, c.Park(ctx, "p", Parked{Event: late, Reason: "out of attempts", Attempts: 6}))
		require.Equal(t, []int64{3}, deferredPositions(due(t, c, "p", now.Add(time.Hour))))
		require.Equal(t, 1, countParked(t, c, "p"))
	})

	t.Run("parking an event again replaces it", func(t *testing.T) {
		t.Parallel()
		c := newCheckpoints(t)
		e := parkable(1, 1)
		require.NoError(t, c.Park(ctx, "p", Parked{Event: e, Reason: "first", Attempts: 6}))
		_, err := c.Requeue(ctx, "p", time.Now())
		require.NoError(t, err)
		// The holder tried it again and it failed again.
		require.NoError(t, c.Park(ctx, "p", Parked{Event: e, Reason: "second", Attempts: 1}))
		require.Equal(t, 1, countParked(t, c, "p"))
		require.Zero(t, countDeferred(t, c, "p"), "parking again ends the requeue, or the holder would loop on it")
		parked, err := c.ListParked(ctx, "p", 0)
		require.NoError(t, err)
		require.Len(t, parked, 1)
		require.Equal(t, "second", parked[0].Reason)
		require.Equal(t, 1, parked[0].Attempts)
	})

	t.Run("long reasons are truncated", func(t *testing.T) {
		t.Parallel()
		c := newCheckpoints(t)
		reasons := map[int64]string{
			1: strings.Repeat("a", maxReasonLength),       // fits: kept whole
			2: strings.Repeat("b", maxReasonLength+1),     // one byte too long
			3: "x" + strings.Repeat("é", maxReasonLength), // the cut would fall inside a 2-byte rune
		}
		for p, reason := range reasons {
			require.NoError(t, c.Park(ctx, "p", Parked{Event: parkable(uint64(p), p), Reason: reason, Attempts: 1}))
		}
		parked, err := c.ListParked(ctx, "p", 0)
		require.NoError(t, err)
		require.Len(t, parked, 3)
		for _, p := range parked {
			original := reasons[p.Event.Position]
			require.True(t, utf8.ValidString(p.Reason), "position %d: %q", p.Event.Position, p.Reason)
			if len(original) <= maxReasonLength {
				require.Equal(t, original, p.Reason)
				continue
			}
			kept, ok := strings.CutSuffix(p.Reason, "…")
			require.True(t, ok, "a truncated reason says so")
			require.LessOrEqual(t, len(kept), maxReasonLength)
			require.GreaterOrEqual(t, len(kept), maxReasonLength-utf8.UTFMax)
			require.True(t, strings.HasPrefix(original, kept))
		}
	})
}

func deferredPositions(deferred []Deferred) []int64 {
	out := make([]int64, len(deferred))
	for i, d := range deferred {
		out[i] = d.Event.Position
	}
	return out
}

func due(t *testing.T, c Checkpoints, name string, now time.Time) []Deferred {
	t.Helper()
	return dueLimit(t, c, name, now, 0)
}

func dueLimit(t *testing.T, c Checkpoints, name string, now time.Time, limit int) []Deferred {
	t.Helper()
	d, err := c.Due(context.Background(), name, now, limit)
	require.NoError(t, err)
	return d
}

func countDeferred(t testing.TB, c Checkpoints, name string) int {
	t.Helper()
	n, err := c.CountDeferred(context.Background(), name)
	require.NoError(t, err)
	return n
}

func parkedPositions(parked []Parked) []int64 {
	out := make([]int64, len(parked))
	for i, p := range parked {
		out[i] = p.Event.Position
	}
	return out
}

// requireSameEvent compares a parked event with the original. The data is compared as JSON:
// PostgreSQL keeps it as jsonb, which may lay it out differently.
func requireSameEvent(t *testing.T, want, got eventstore.Event) {
	t.Helper()
	require.JSONEq(t, string(want.Data), string(got.Data))
	require.True(t, want.RecordedAt.Equal(got.RecordedAt), "recorded at %v, got %v", want.RecordedAt, got.RecordedAt)
	want.Data, got.Data = nil, nil
	want.RecordedAt, got.RecordedAt = time.Time{}, time.Time{}
	require.Equal(t, want, got)
}

// Parked events and positions are in the database, not in the PostgresCheckpoints value: a
// new one (a restarted replica, another replica) sees them.
func TestPostgresCheckpointsAreShared(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	first := NewPostgresCheckpoints(pool)
	e := parkable(3, 3)
	require.NoError(t, first.Park(ctx, "p", Parked{Event: e, Reason: "bounced", Attempts: 6}))
	require.NoError(t, first.Save(ctx, "p", Position{}, pos(0, 3, 3)))

	second := NewPostgresCheckpoints(pool)
	require.Equal(t, 1, countParked(t, second, "p"))
	require.Equal(t, pos(0, 3, 3), loadPosition(t, second, "p"))
	parked, err := second.ListParked(ctx, "p", 0)
	require.NoError(t, err)
	require.Len(t, parked, 1)
	requireSameEvent(t, e, parked[0].Event)
	require.Equal(t, "bounced", parked[0].Reason)
	require.Equal(t, 6, parked[0].Attempts)
	n, err := second.Requeue(ctx, "p", time.Now())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	requeued := due(t, first, "p", time.Now())
	require.Len(t, requeued, 1)
	requireSameEvent(t, e, requeued[0].Event)
}

// A view model moves its checkpoint inside its own transaction: the move is undone with it.
func TestPostgresCheckpointsSaveTx(t *testing.T) {
	t.Parallel()
	// A deadline, and every transaction rolled back on the way out: a failed assertion ends
	// the test at once instead of leaving a transaction that holds the database's cleanup.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool := pgtest.NewPool(t)
	c := NewPostgresCheckpoints(pool)
	begin := func() pgx.Tx {
		tx, err := pool.Begin(ctx)
		require.NoError(t, err)
		t.Cleanup(func() { _ = tx.Rollback(context.Background()) }) // a no-op once it has ended
		return tx
	}

	tx := begin()
	require.NoError(t, c.SaveTx(ctx, tx, "view", Position{}, pos(0, 1, 1)))
	require.NoError(t, tx.Rollback(ctx))
	require.Equal(t, Position{}, loadPosition(t, c, "view"), "rolled back with the rows")

	tx = begin()
	require.NoError(t, c.SaveTx(ctx, tx, "view", Position{}, pos(0, 1, 1)))
	require.NoError(t, tx.Commit(ctx))
	require.Equal(t, pos(0, 1, 1), loadPosition(t, c, "view"))

	tx = begin()
	require.ErrorIs(t, c.SaveTx(ctx, tx, "view", Position{}, pos(0, 2, 2)), ErrFenced)
	require.NoError(t, tx.Rollback(ctx))
	require.Equal(t, pos(0, 1, 1), loadPosition(t, c, "view"))
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
	c := NewPostgresCheckpoints(pool)

	for round, start := range []Position{{}, pos(1, 50, 50)} {
		name := "raced"
		if start != (Position{}) {
			require.NoError(t, c.Save(context.Background(), name, loadPosition(t, c, name), start))
		}
		const movers = 20
		errs := make([]error, movers)
		targets := make([]Position, movers)
		ready, gate := sync.WaitGroup{}, make(chan struct{})
		var done sync.WaitGroup
		for i := range movers {
			targets[i] = pos(start.Generation, uint64(100+i), int64(100+i))
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
			case !errors.Is(err, ErrFenced):
				t.Fatalf("round %d: mover %d: %v", round, i, err)
			}
		}
		require.NotEqual(t, -1, winner, "round %d: somebody must win", round)
		require.Equal(t, targets[winner], loadPosition(t, c, name), "round %d: the winner's move is stored", round)
	}
}
