package drivertest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/processor"
)

// TimerStore is one test's empty checkpoints and the store's clock: what it calls now.
type TimerStore struct {
	C   processor.Checkpoints
	Now func() time.Time
}

// TestTimers is the contract of the timers that every driver keeps: changes are written with
// the checkpoint move (none when it is fenced) or a deferred event's Done, in order; a key has
// one timer; what is due is by the store's clock, the earliest first; a fired timer is
// forgotten unless it was scheduled again meanwhile; a failed fire waits for its next attempt
// with its At kept. Each subtest runs in parallel with its own store.
func TestTimers(t *testing.T, newStore func(t *testing.T) TimerStore) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, s TimerStore)
	}{
		{"due by the store's clock, the earliest first", timersDueByTheStoresClockTheEarliestFirst},
		{"scheduling again replaces, cancelling removes, in order", timersSchedulingAgainReplacesCancellingRemoves},
		{"a fenced save writes no timers", timersAFencedSaveWritesNoTimers},
		{"done writes the changes of a deferred event", timersDoneWritesTheChangesOfADeferredEvent},
		{"finish forgets the timer unless it was scheduled again", timersFinishForgetsUnlessScheduledAgain},
		{"several finished at once, in order", timersFinishSeveralInOrder},
		{"a failed fire waits for its next attempt", timersAFailedFireWaitsForItsNextAttempt},
		{"stats", timersStats},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.run(t, newStore(t))
		})
	}
}

// Schedule is the change a handler's processor.Schedule makes.
func Schedule(key string, at time.Time, data string) processor.TimerChange {
	return processor.TimerChange{Key: key, At: at.UTC().Truncate(time.Microsecond), Data: []byte(data)}
}

// CancelTimer is the change a handler's processor.Cancel makes.
func CancelTimer(key string) processor.TimerChange {
	return processor.TimerChange{Key: key, Cancel: true}
}

// SaveTimers moves name's checkpoint one event on, with changes.
func SaveTimers(t testing.TB, c processor.Checkpoints, name string, changes ...processor.TimerChange) {
	t.Helper()
	from := LoadPosition(t, c, name)
	to := from
	to.Checkpoint.TransactionID++
	to.Checkpoint.Position++
	require.NoError(t, c.Save(context.Background(), name, from, to, changes...))
}

// DueTimers are the timers of name due now, up to limit (0: all).
func DueTimers(t testing.TB, c processor.Timers, name string, limit int) []processor.DueTimer {
	t.Helper()
	due, err := c.DueTimers(context.Background(), name, limit)
	require.NoError(t, err)
	return due
}

// TimerKeys are the keys of timers, in their order.
func TimerKeys(timers []processor.DueTimer) []string {
	out := make([]string, len(timers))
	for i, t := range timers {
		out[i] = t.Key
	}
	return out
}

// Stats are the stats of name's timers.
func Stats(t testing.TB, c processor.Timers, name string) processor.TimerStats {
	t.Helper()
	s, err := c.TimerStats(context.Background(), name)
	require.NoError(t, err)
	return s
}

// near checks a duration the store measured against what the test expects: the store's clock
// moves on between the test's reading of it and the store's, by a few seconds at most.
func near(t *testing.T, want, got time.Duration, what string) {
	t.Helper()
	require.GreaterOrEqual(t, got, want-time.Second, what)
	require.LessOrEqual(t, got, want+10*time.Second, what)
}

func timersDueByTheStoresClockTheEarliestFirst(t *testing.T, s TimerStore) {
	now := s.Now()
	SaveTimers(t, s.C, "p", Schedule("a", now.Add(-time.Minute), `{"loanId":"loan-1"}`),
		Schedule("b", now.Add(-3*time.Minute), `{"n":2}`), Schedule("c", now.Add(-2*time.Minute), `{"n":3}`),
		Schedule("later", now.Add(time.Hour), `{}`))
	SaveTimers(t, s.C, "other", Schedule("a", now.Add(-5*time.Minute), `{}`))
	// Timers due at the same time fire in the byte order of their keys.
	tied := now.Add(-4 * time.Minute)
	SaveTimers(t, s.C, "p", Schedule("t-b", tied, `1`), Schedule("t-a", tied, `2`), Schedule("t-B", tied, `3`))

	due := DueTimers(t, s.C, "p", 0)
	require.Equal(t, []string{"t-B", "t-a", "t-b", "b", "c", "a"}, TimerKeys(due), "what is due by the store's clock, the earliest first")
	a := due[5]
	require.True(t, now.Add(-time.Minute).Truncate(time.Microsecond).Equal(a.At), "At %v", a.At)
	require.JSONEq(t, `{"loanId":"loan-1"}`, string(a.Data))
	require.Zero(t, a.Attempts)
	require.Empty(t, a.LastError)
	near(t, time.Minute, a.Late, "how late it is, by the store's clock")
	near(t, 3*time.Minute, due[3].Late, "b's lateness")
	versions := map[int64]bool{}
	for _, d := range due {
		versions[d.Version] = true
	}
	require.Len(t, versions, len(due), "every timer has a version of its own")

	require.Equal(t, []string{"t-B", "t-a"}, TimerKeys(DueTimers(t, s.C, "p", 2)), "up to the limit")
	require.Equal(t, []string{"a"}, TimerKeys(DueTimers(t, s.C, "other", 0)), "keys are per processor")
	require.Empty(t, DueTimers(t, s.C, "nobody", 0))
	until, ok, err := s.C.UntilNextTimer(context.Background(), "p")
	require.NoError(t, err)
	require.True(t, ok)
	require.LessOrEqual(t, until, time.Duration(0), "one is due")
	_, ok, err = s.C.UntilNextTimer(context.Background(), "nobody")
	require.NoError(t, err)
	require.False(t, ok, "none waits")
}

func timersSchedulingAgainReplacesCancellingRemoves(t *testing.T, s TimerStore) {
	ctx := context.Background()
	now := s.Now()
	SaveTimers(t, s.C, "p", Schedule("k", now.Add(-time.Minute), `{"v":1}`))
	first := DueTimers(t, s.C, "p", 0)
	require.Len(t, first, 1)
	require.NoError(t, s.C.RetryTimer(ctx, "p", first[0], "boom", 0))

	SaveTimers(t, s.C, "p", Schedule("k", now.Add(time.Hour), `{"v":2}`))
	require.Empty(t, DueTimers(t, s.C, "p", 0), "moved to later")
	require.Equal(t, 1, Stats(t, s.C, "p").Waiting, "one timer per key")
	until, ok, err := s.C.UntilNextTimer(ctx, "p")
	require.NoError(t, err)
	require.True(t, ok)
	near(t, time.Hour-10*time.Second, until, "until the next is due") // the store's clock moved on

	SaveTimers(t, s.C, "p", Schedule("k", now.Add(-2*time.Minute), `{"v":3}`))
	due := DueTimers(t, s.C, "p", 0)
	require.Len(t, due, 1)
	require.JSONEq(t, `{"v":3}`, string(due[0].Data))
	require.True(t, now.Add(-2*time.Minute).Truncate(time.Microsecond).Equal(due[0].At))
	require.NotEqual(t, first[0].Version, due[0].Version, "a new version")
	require.Zero(t, due[0].Attempts, "a timer scheduled again starts its attempts afresh")
	require.Empty(t, due[0].LastError)

	at := now.Add(-time.Second)
	SaveTimers(t, s.C, "p", Schedule("x", at, `1`), Schedule("y", at, `1`), CancelTimer("k"))
	SaveTimers(t, s.C, "p", CancelTimer("x"), CancelTimer("unknown"))
	SaveTimers(t, s.C, "p", Schedule("z", at, `1`), CancelTimer("z"), CancelTimer("w"), Schedule("w", at, `2`))
	require.Equal(t, []string{"w", "y"}, TimerKeys(DueTimers(t, s.C, "p", 0)), "the changes of a save apply in order")
}

func timersAFencedSaveWritesNoTimers(t *testing.T, s TimerStore) {
	ctx := context.Background()
	now := s.Now()
	require.NoError(t, s.C.Save(ctx, "p", processor.Position{}, Pos(0, 5, 5)))
	err := s.C.Save(ctx, "p", Pos(0, 4, 4), Pos(0, 6, 6), Schedule("stale", now.Add(-time.Minute), `{}`))
	require.ErrorIs(t, err, processor.ErrFenced)
	err = s.C.Save(ctx, "p", Pos(0, 5, 5), Pos(0, 5, 5), Schedule("backward", now.Add(-time.Minute), `{}`))
	require.Error(t, err, "a move that is not forward is refused")
	require.Zero(t, Stats(t, s.C, "p").Waiting, "the stale holder's timers are not written")
	require.Equal(t, Pos(0, 5, 5), LoadPosition(t, s.C, "p"))
	require.NoError(t, s.C.Save(ctx, "p", Pos(0, 5, 5), Pos(0, 6, 6), Schedule("fresh", now.Add(-time.Minute), `{}`)))
	require.Equal(t, []string{"fresh"}, TimerKeys(DueTimers(t, s.C, "p", 0)))
}

func timersDoneWritesTheChangesOfADeferredEvent(t *testing.T, s TimerStore) {
	ctx := context.Background()
	now := s.Now()
	e := Parkable(1, 1)
	require.NoError(t, s.C.Defer(ctx, "p", processor.Deferred{Event: e, Reason: "451", Attempts: 1, NextAttempt: now}))
	require.NoError(t, s.C.Done(ctx, "p", e.Position, Schedule("k", now.Add(-time.Minute), `{}`), Schedule("j", now.Add(-time.Minute), `{}`),
		CancelTimer("j")))
	require.Zero(t, CountDeferred(t, s.C, "p"))
	require.Equal(t, []string{"k"}, TimerKeys(DueTimers(t, s.C, "p", 0)))
}

func timersFinishForgetsUnlessScheduledAgain(t *testing.T, s TimerStore) {
	ctx := context.Background()
	now := s.Now()
	SaveTimers(t, s.C, "p", Schedule("k", now.Add(-time.Minute), `{"v":1}`))
	fired := DueTimers(t, s.C, "p", 0)[0]
	// While it fires, an event schedules it again.
	SaveTimers(t, s.C, "p", Schedule("k", now.Add(-30*time.Second), `{"v":2}`))
	require.NoError(t, s.C.FinishTimers(ctx, "p", Fired(fired)))
	due := DueTimers(t, s.C, "p", 0)
	require.Len(t, due, 1, "the timer scheduled again stays")
	require.JSONEq(t, `{"v":2}`, string(due[0].Data))
	require.NoError(t, s.C.FinishTimers(ctx, "p", Fired(due[0])))
	require.Zero(t, Stats(t, s.C, "p").Waiting, "a timer fired and not scheduled again is forgotten")
	require.NoError(t, s.C.FinishTimers(ctx, "p", Fired(due[0])), "finishing twice is harmless")
	require.NoError(t, s.C.FinishTimers(ctx, "p"), "finishing none is harmless")

	// The fire schedules its own key again ("again in 15 minutes") and another one.
	SaveTimers(t, s.C, "p", Schedule("j", now.Add(-time.Minute), `{}`))
	fired = DueTimers(t, s.C, "p", 0)[0]
	require.NoError(t, s.C.FinishTimers(ctx, "p", Fired(fired, Schedule("j", now.Add(15*time.Minute), `{"again":true}`),
		Schedule("notice", now.Add(-time.Second), `{}`))))
	require.Equal(t, []string{"notice"}, TimerKeys(DueTimers(t, s.C, "p", 0)))
	require.Equal(t, 2, Stats(t, s.C, "p").Waiting, "j waits for its next time")

	// Cancelled while it fired: nothing to forget, and the fire's changes are written.
	SaveTimers(t, s.C, "p", Schedule("m", now.Add(-2*time.Minute), `{}`))
	fired = DueTimers(t, s.C, "p", 0)[0]
	require.Equal(t, "m", fired.Key)
	SaveTimers(t, s.C, "p", CancelTimer("m"))
	require.NoError(t, s.C.FinishTimers(ctx, "p", Fired(fired, Schedule("n", now.Add(-time.Second), `{}`))))
	require.Equal(t, []string{"n", "notice"}, TimerKeys(DueTimers(t, s.C, "p", 0)))
}

// Fired is a timer whose fire succeeded, with the changes it made.
func Fired(t processor.DueTimer, changes ...processor.TimerChange) processor.FiredTimer {
	return processor.FiredTimer{DueTimer: t, Changes: changes}
}

// Fires finished together are written in order, each timer forgotten unless it was scheduled
// again meanwhile, each fire's changes after it: a later fire's change outlives an earlier
// fire's forgetting, and an earlier fire's change an older version's forgetting.
func timersFinishSeveralInOrder(t *testing.T, s TimerStore) {
	ctx := context.Background()
	now := s.Now()
	var changes []processor.TimerChange
	for i := range 6 {
		changes = append(changes, Schedule(fmt.Sprintf("t%d", i), now.Add(time.Duration(i-10)*time.Second), `{}`))
	}
	SaveTimers(t, s.C, "p", changes...)
	SaveTimers(t, s.C, "other", Schedule("t0", now.Add(-time.Minute), `{}`))
	due := DueTimers(t, s.C, "p", 0)
	require.Equal(t, []string{"t0", "t1", "t2", "t3", "t4", "t5"}, TimerKeys(due))
	// While they fire, t5 is scheduled again.
	SaveTimers(t, s.C, "p", Schedule("t5", now.Add(-time.Second), `{"v":2}`))
	require.NoError(t, s.C.FinishTimers(ctx, "p",
		Fired(due[0]),
		Fired(due[1], Schedule("t3", now.Add(time.Hour), `{"moved":true}`)), // t3 again, then t3's old version fired
		Fired(due[2]),
		Fired(due[3]),
		Fired(due[4], Schedule("t0", now.Add(-time.Second), `{"again":true}`)), // t0 again, after t0 was forgotten
		Fired(due[5]), // an old version of t5
	))
	left := DueTimers(t, s.C, "p", 0)
	require.Equal(t, []string{"t0", "t5"}, TimerKeys(left), "what a fire scheduled after a forgetting stays, as does t5 scheduled again")
	require.JSONEq(t, `{"again":true}`, string(left[0].Data))
	require.JSONEq(t, `{"v":2}`, string(left[1].Data))
	require.Equal(t, 3, Stats(t, s.C, "p").Waiting, "t3 moved by t1's fire, though its old version fired after")
	require.Equal(t, []string{"t0"}, TimerKeys(DueTimers(t, s.C, "other", 0)), "keys are per processor")
}

func timersAFailedFireWaitsForItsNextAttempt(t *testing.T, s TimerStore) {
	ctx := context.Background()
	now := s.Now()
	at := now.Add(-time.Minute).Truncate(time.Microsecond)
	SaveTimers(t, s.C, "p", Schedule("k", at, `{}`))
	fired := DueTimers(t, s.C, "p", 0)[0]
	require.NoError(t, s.C.RetryTimer(ctx, "p", fired, "the relay said 451", 0))
	again := DueTimers(t, s.C, "p", 0)
	require.Len(t, again, 1, "due again at once")
	require.Equal(t, 1, again[0].Attempts)
	require.Equal(t, "the relay said 451", again[0].LastError)
	require.True(t, at.Equal(again[0].At), "At is kept, so that the fire's work keeps its key")
	require.Equal(t, fired.Version, again[0].Version, "a retry is not a new schedule")

	require.NoError(t, s.C.RetryTimer(ctx, "p", again[0], strings.Repeat("x", 2*processor.MaxReasonLength), time.Hour))
	require.Empty(t, DueTimers(t, s.C, "p", 0), "not due before its next attempt")
	until, ok, err := s.C.UntilNextTimer(ctx, "p")
	require.NoError(t, err)
	require.True(t, ok)
	near(t, time.Hour-10*time.Second, until, "the next attempt is an hour after the failure, by the store's clock")
	stats := Stats(t, s.C, "p")
	require.Equal(t, 1, stats.Failing)
	near(t, time.Minute, stats.OldestOverdue, "overdue since At, however often it failed")

	// Scheduled again while it failed: the stale failure changes nothing.
	SaveTimers(t, s.C, "p", Schedule("k", at, `{"v":2}`))
	require.NoError(t, s.C.RetryTimer(ctx, "p", again[0], "late news", time.Hour))
	due := DueTimers(t, s.C, "p", 0)
	require.Len(t, due, 1)
	require.Zero(t, due[0].Attempts)
	require.Empty(t, due[0].LastError)

	// The reason is cut like a parked event's.
	require.NoError(t, s.C.RetryTimer(ctx, "p", due[0], strings.Repeat("é", processor.MaxReasonLength), 0))
	cut := DueTimers(t, s.C, "p", 0)[0].LastError
	require.LessOrEqual(t, len(cut), processor.MaxReasonLength+len("…"))
	require.True(t, strings.HasSuffix(cut, "…"))
}

func timersStats(t *testing.T, s TimerStore) {
	ctx := context.Background()
	require.Equal(t, processor.TimerStats{}, Stats(t, s.C, "p"), "none waits")
	now := s.Now()
	SaveTimers(t, s.C, "p", Schedule("overdue", now.Add(-2*time.Minute), `{}`),
		Schedule("soon", now.Add(time.Hour), `{}`), Schedule("later", now.Add(2*time.Hour), `{}`))
	for i := range 3 {
		SaveTimers(t, s.C, "other", Schedule(fmt.Sprint(i), now.Add(-time.Hour), `{}`))
	}
	fired := DueTimers(t, s.C, "p", 0)[0]
	require.NoError(t, s.C.RetryTimer(ctx, "p", fired, "boom", 30*time.Minute))

	stats := Stats(t, s.C, "p")
	require.Equal(t, 3, stats.Waiting)
	require.Equal(t, 1, stats.Failing)
	near(t, 30*time.Minute-10*time.Second, stats.UntilNext, "the failed one is next, at its next attempt")
	require.WithinDuration(t, now.Add(30*time.Minute), stats.NextDue, 10*time.Second)
	near(t, 2*time.Minute, stats.OldestOverdue, "the failed one is overdue")
	require.Equal(t, 3, Stats(t, s.C, "other").Waiting, "per processor")
}
