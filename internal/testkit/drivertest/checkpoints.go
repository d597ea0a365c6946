package drivertest

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
)

// TestCheckpoints is the contract that every processor.Checkpoints meets. newCheckpoints
// returns empty checkpoints for one test: each subtest runs in parallel with its own.
func TestCheckpoints(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints)
	}{
		{"load of an unknown name is the start", checkpointsLoadOfAnUnknownNameIsTheStart},
		{"save moves forward", checkpointsSaveMovesForward},
		{"save from a wrong position is fenced and changes nothing", checkpointsSaveFromAWrongPositionIsFencedAndChangesNothing},
		{"save that is not forward is refused", checkpointsSaveThatIsNotForwardIsRefused},
		{"a replay fences the previous generation", checkpointsAReplayFencesThePreviousGeneration},
		{"park, count, list, requeue", checkpointsParkCountListRequeue},
		{"defer, due, done", checkpointsDeferDueDone},
		{"parking an event again replaces it", checkpointsParkingAnEventAgainReplacesIt},
		{"long reasons are truncated", checkpointsLongReasonsAreTruncated},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, newCheckpoints) })
	}
}

func checkpointsLoadOfAnUnknownNameIsTheStart(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	t.Parallel()
	c := newCheckpoints(t)
	require.Equal(t, processor.Position{}, LoadPosition(t, c, "never-ran"))
}

func checkpointsSaveMovesForward(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	t.Parallel()
	ctx := context.Background()
	c := newCheckpoints(t)
	require.NoError(t, c.Save(ctx, "p", processor.Position{}, Pos(0, 5, 7)))
	require.Equal(t, Pos(0, 5, 7), LoadPosition(t, c, "p"))
	// A later transaction may hold a lower position: the order is (transaction, position).
	require.NoError(t, c.Save(ctx, "p", Pos(0, 5, 7), Pos(0, 6, 3)))
	require.Equal(t, Pos(0, 6, 3), LoadPosition(t, c, "p"))
	require.Equal(t, processor.Position{}, LoadPosition(t, c, "other"), "names are independent")
}

func checkpointsSaveFromAWrongPositionIsFencedAndChangesNothing(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	t.Parallel()
	ctx := context.Background()
	c := newCheckpoints(t)
	require.NoError(t, c.Save(ctx, "p", processor.Position{}, Pos(0, 5, 5)))
	for _, from := range []processor.Position{{}, Pos(0, 4, 4), Pos(0, 5, 6), Pos(0, 9, 9), Pos(1, 5, 5)} {
		err := c.Save(ctx, "p", from, Pos(2, 10, 10))
		require.ErrorIs(t, err, processor.ErrFenced, "from %+v", from)
	}
	require.Equal(t, Pos(0, 5, 5), LoadPosition(t, c, "p"))

	// A processor that never saved is at the start, so a mover that claims another
	// position is stale too, and must not create the checkpoint.
	require.ErrorIs(t, c.Save(ctx, "fresh", Pos(0, 5, 5), Pos(0, 6, 6)), processor.ErrFenced)
	require.Equal(t, processor.Position{}, LoadPosition(t, c, "fresh"))
}

func checkpointsSaveThatIsNotForwardIsRefused(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	t.Parallel()
	ctx := context.Background()
	c := newCheckpoints(t)
	require.NoError(t, c.Save(ctx, "p", processor.Position{}, Pos(1, 5, 5)))
	for _, to := range []processor.Position{Pos(1, 5, 5), Pos(1, 5, 4), Pos(1, 4, 9), Pos(0, 9, 9), {}} {
		err := c.Save(ctx, "p", Pos(1, 5, 5), to)
		require.Error(t, err, "to %+v", to)
		require.NotErrorIs(t, err, processor.ErrFenced, "a backward move is a bug, not a lost race")
	}
	require.Error(t, c.Save(ctx, "fresh", processor.Position{}, processor.Position{}))
	require.Equal(t, Pos(1, 5, 5), LoadPosition(t, c, "p"))
	require.Equal(t, processor.Position{}, LoadPosition(t, c, "fresh"))
}

func checkpointsAReplayFencesThePreviousGeneration(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	t.Parallel()
	ctx := context.Background()
	c := newCheckpoints(t)
	stale := Pos(0, 5, 5)
	require.NoError(t, c.Save(ctx, "p", processor.Position{}, stale))
	// The holder replays: the next generation starts from the start of the log.
	require.NoError(t, c.Save(ctx, "p", stale, processor.Position{Generation: 1}))
	require.Equal(t, processor.Position{Generation: 1}, LoadPosition(t, c, "p"))
	// The new generation reaches the very (transaction, position) the stale holder read.
	require.NoError(t, c.Save(ctx, "p", processor.Position{Generation: 1}, Pos(1, 5, 5)))
	// ABA: the checkpoint is back at the stale holder's (transaction, position), but in
	// another generation, so the stale holder is still fenced.
	require.ErrorIs(t, c.Save(ctx, "p", stale, Pos(0, 6, 6)), processor.ErrFenced)
	require.ErrorIs(t, c.Save(ctx, "p", stale, Pos(1, 6, 6)), processor.ErrFenced)
	require.Equal(t, Pos(1, 5, 5), LoadPosition(t, c, "p"))
}

func checkpointsParkCountListRequeue(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	t.Parallel()
	ctx := context.Background()
	c := newCheckpoints(t)
	// Log order is by transaction, then position: here it is not the order of positions.
	first, second, third := Parkable(10, 30), Parkable(11, 10), Parkable(12, 20)
	for i, e := range []eventstore.Event{third, first, second} {
		require.NoError(t, c.Park(ctx, "p", processor.Parked{Event: e, Reason: "smtp down " + e.StreamID, Attempts: i + 1}))
	}
	require.NoError(t, c.Park(ctx, "other", processor.Parked{Event: first, Reason: "other", Attempts: 1}))
	require.Equal(t, 3, CountParked(t, c, "p"))
	require.Equal(t, 1, CountParked(t, c, "other"))
	require.Equal(t, 0, CountParked(t, c, "nobody"))

	parked, err := c.ListParked(ctx, "p", 10)
	require.NoError(t, err)
	require.Equal(t, []int64{30, 10, 20}, ParkedPositions(parked), "in log order")
	got := parked[0]
	RequireSameEvent(t, first, got.Event)
	require.Equal(t, "smtp down "+first.StreamID, got.Reason)
	require.Equal(t, 2, got.Attempts)
	require.WithinDuration(t, time.Now(), got.ParkedAt, time.Minute)
	parked, err = c.ListParked(ctx, "p", 2)
	require.NoError(t, err)
	require.Equal(t, []int64{30, 10}, ParkedPositions(parked), "the oldest, up to the limit")
	require.Empty(t, Due(t, c, "p", time.Now().Add(time.Hour)), "nothing is tried again before retry-parked")

	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	n, err := c.Requeue(ctx, "p", now)
	require.NoError(t, err)
	require.Equal(t, 3, n)
	require.Equal(t, 0, CountParked(t, c, "p"), "requeued events are no longer parked")
	require.Equal(t, 3, CountDeferred(t, c, "p"), "but deferred")
	require.Empty(t, Due(t, c, "p", now.Add(-time.Second)), "due at the time of the requeue")
	requeued := Due(t, c, "p", now)
	require.Equal(t, []int64{30, 10, 20}, DeferredPositions(requeued), "in log order")
	RequireSameEvent(t, first, requeued[0].Event)
	require.Equal(t, "smtp down "+first.StreamID, requeued[0].Reason, "the reason is kept")
	require.Zero(t, requeued[0].Attempts, "every attempt is available again")
	require.True(t, now.Equal(requeued[0].NextAttempt))
	require.Equal(t, 1, CountParked(t, c, "other"), "requeue is per processor")
	n, err = c.Requeue(ctx, "p", now)
	require.NoError(t, err)
	require.Zero(t, n)
}

func checkpointsDeferDueDone(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	t.Parallel()
	ctx := context.Background()
	c := newCheckpoints(t)
	now := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	_, ok, err := c.NextAttempt(ctx, "p")
	require.NoError(t, err)
	require.False(t, ok, "nothing deferred")

	early, late, later := Parkable(1, 1), Parkable(2, 2), Parkable(3, 3)
	require.NoError(t, c.Defer(ctx, "p", processor.Deferred{Event: late, Reason: "452 mailbox full", Attempts: 1, NextAttempt: now.Add(2 * time.Minute)}))
	require.NoError(t, c.Defer(ctx, "p", processor.Deferred{Event: early, Reason: "451 try later", Attempts: 2, NextAttempt: now.Add(time.Minute)}))
	require.NoError(t, c.Defer(ctx, "p", processor.Deferred{Event: later, Reason: "450", Attempts: 1, NextAttempt: now.Add(3 * time.Minute)}))
	require.NoError(t, c.Defer(ctx, "other", processor.Deferred{Event: early, Reason: "x", Attempts: 1, NextAttempt: now}))
	require.Equal(t, 3, CountDeferred(t, c, "p"))

	next, ok, err := c.NextAttempt(ctx, "p")
	require.NoError(t, err)
	require.True(t, ok)
	require.True(t, now.Add(time.Minute).Equal(next), "the earliest: %v", next)
	require.Empty(t, Due(t, c, "p", now))
	got := Due(t, c, "p", now.Add(2*time.Minute))
	require.Equal(t, []int64{1, 2}, DeferredPositions(got), "what is due, the earliest first")
	RequireSameEvent(t, early, got[0].Event)
	require.Equal(t, "451 try later", got[0].Reason)
	require.Equal(t, 2, got[0].Attempts)
	require.Equal(t, []int64{1}, DeferredPositions(DueLimit(t, c, "p", now.Add(time.Hour), 1)), "up to the limit")

	// Deferred again after another failure; a holder that starts the event over (after a
	// takeover) can't give it back attempts it used.
	require.NoError(t, c.Defer(ctx, "p", processor.Deferred{Event: early, Reason: "451 still", Attempts: 3, NextAttempt: now.Add(5 * time.Minute)}))
	require.NoError(t, c.Defer(ctx, "p", processor.Deferred{Event: late, Reason: "452 again", Attempts: 1, NextAttempt: now.Add(4 * time.Minute)}))
	got = Due(t, c, "p", now.Add(time.Hour))
	require.Equal(t, []int64{3, 2, 1}, DeferredPositions(got))
	require.Equal(t, 3, got[2].Attempts)
	require.Equal(t, "452 again", got[1].Reason)
	require.Equal(t, 1, got[1].Attempts)

	require.NoError(t, c.Done(ctx, "p", early.Position))
	require.NoError(t, c.Done(ctx, "p", 999), "forgetting what is not deferred does nothing")
	require.Equal(t, 2, CountDeferred(t, c, "p"))
	require.Equal(t, 1, CountDeferred(t, c, "other"), "done is per processor")

	// Parking forgets the deferral.
	require.NoError(t, c.Park(ctx, "p", processor.Parked{Event: late, Reason: "out of attempts", Attempts: 6}))
	require.Equal(t, []int64{3}, DeferredPositions(Due(t, c, "p", now.Add(time.Hour))))
	require.Equal(t, 1, CountParked(t, c, "p"))
}

func checkpointsParkingAnEventAgainReplacesIt(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	t.Parallel()
	ctx := context.Background()
	c := newCheckpoints(t)
	e := Parkable(1, 1)
	require.NoError(t, c.Park(ctx, "p", processor.Parked{Event: e, Reason: "first", Attempts: 6}))
	_, err := c.Requeue(ctx, "p", time.Now())
	require.NoError(t, err)
	// The holder tried it again and it failed again.
	require.NoError(t, c.Park(ctx, "p", processor.Parked{Event: e, Reason: "second", Attempts: 1}))
	require.Equal(t, 1, CountParked(t, c, "p"))
	require.Zero(t, CountDeferred(t, c, "p"), "parking again ends the requeue, or the holder would loop on it")
	parked, err := c.ListParked(ctx, "p", 0)
	require.NoError(t, err)
	require.Len(t, parked, 1)
	require.Equal(t, "second", parked[0].Reason)
	require.Equal(t, 1, parked[0].Attempts)
}

func checkpointsLongReasonsAreTruncated(t *testing.T, newCheckpoints func(t *testing.T) processor.Checkpoints) {
	t.Parallel()
	ctx := context.Background()
	c := newCheckpoints(t)
	reasons := map[int64]string{
		1: strings.Repeat("a", processor.MaxReasonLength),       // fits: kept whole
		2: strings.Repeat("b", processor.MaxReasonLength+1),     // one byte too long
		3: "x" + strings.Repeat("é", processor.MaxReasonLength), // the cut would fall inside a 2-byte rune
	}
	for p, reason := range reasons {
		require.NoError(t, c.Park(ctx, "p", processor.Parked{Event: Parkable(uint64(p), p), Reason: reason, Attempts: 1}))
	}
	parked, err := c.ListParked(ctx, "p", 0)
	require.NoError(t, err)
	require.Len(t, parked, 3)
	for _, p := range parked {
		original := reasons[p.Event.Position]
		require.True(t, utf8.ValidString(p.Reason), "position %d: %q", p.Event.Position, p.Reason)
		if len(original) <= processor.MaxReasonLength {
			require.Equal(t, original, p.Reason)
			continue
		}
		kept, ok := strings.CutSuffix(p.Reason, "…")
		require.True(t, ok, "a truncated reason says so")
		require.LessOrEqual(t, len(kept), processor.MaxReasonLength)
		require.GreaterOrEqual(t, len(kept), processor.MaxReasonLength-utf8.UTFMax)
		require.True(t, strings.HasPrefix(original, kept))
	}
}
