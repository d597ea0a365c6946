package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/testkit/drivertest"
)

// Timers scheduled by an event, in no particular order, fire once each, one at a time in due
// order, with the data they were given.
func TestTimersFireOnceInDueOrder(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	testTimersFireOnceInDueOrder(t, env.store, env.cps, env.config())
}

func testTimersFireOnceInDueOrder(t *testing.T, store eventstore.Store, cps processor.Checkpoints, cfg Config) {
	now := time.Now()
	const n = 12
	// Due already, the highest number first.
	s := newTimerSaga(newEffects(), scheduleAll("loan-0", "reminder", n, func(i int) time.Time { return now.Add(-time.Duration(i) * time.Second) }))
	startGroup(t, cfg, saga("reminders", s))
	drivertest.AppendEvents(t, store, "loan", 3)

	drivertest.Eventually(t, 10*time.Second, func() bool {
		return len(s.firedKeys()) == n && timerStats(t, cps, "reminders").Waiting == 0
	}, "every timer fired and forgotten")
	require.Equal(t, keysFrom("reminder", 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0), s.firedKeys(), "in due order")
	for key, times := range s.effects.times() {
		require.Equal(t, 1, times, "%s fired once", key)
	}
	for _, timer := range s.firedTimers() {
		require.Equal(t, timer.Key, keysFrom("reminder", dataN(t, timer))[0], "with its data")
		require.Zero(t, timer.Attempts)
	}
}

// Later events move a timer (with new data) and cancel another: the moved one fires once, at
// its new time, with its new data; the cancelled one never fires.
func TestTimersScheduledAgainOrCancelledByLaterEvents(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	s := newTimerSaga(newEffects(), func(ctx context.Context, e eventstore.Event) error {
		switch {
		case strings.HasPrefix(e.StreamID, "open"):
			for _, key := range []string{"moved", "cancelled", "kept"} {
				if err := processor.Schedule(ctx, key, time.Now().Add(time.Hour), map[string]int{"n": 1}); err != nil {
					return err
				}
			}
		case strings.HasPrefix(e.StreamID, "change"):
			if err := processor.Schedule(ctx, "moved", time.Now().Add(-time.Second), map[string]int{"n": 2}); err != nil {
				return err
			}
			return processor.Cancel(ctx, "cancelled")
		}
		return nil
	})
	g := startGroup(t, env.config(), saga("reminders", s))
	drivertest.AppendEvents(t, env.store, "open", 1)
	drivertest.Eventually(t, 5*time.Second, func() bool { return timerStats(t, env.cps, "reminders").Waiting == 3 }, "three timers wait")
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	require.NotNil(t, statuses[0].Timers, "a processor that fires timers shows them")
	require.Equal(t, 3, statuses[0].Timers.Waiting)
	require.InDelta(t, time.Hour.Seconds(), *statuses[0].Timers.NextDueSeconds, 10)

	drivertest.AppendEvents(t, env.store, "change", 1)
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return len(s.firedKeys()) == 1 && timerStats(t, env.cps, "reminders").Waiting == 1
	}, "the moved timer fired, the cancelled one is gone")
	fired := s.firedTimers()[0]
	require.Equal(t, "moved", fired.Key)
	require.Equal(t, 2, dataN(t, fired), "with the data it was moved with")
	require.Equal(t, []string{"moved"}, s.effects.keys(), "the cancelled and the kept ones did not fire")
}

// A timer that fires after its time (after an outage) says in its log line how late it was;
// one that fires on time says nothing.
func TestTimerFiredLateSaysHowLate(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	var log logBuffer
	cfg := env.config()
	cfg.Logger = log.logger()
	s := newTimerSaga(newEffects(), func(ctx context.Context, _ eventstore.Event) error {
		if err := processor.Schedule(ctx, "reminder:book-dune:loan-1", time.Now().Add(-2*time.Hour), nil); err != nil {
			return err
		}
		return processor.Schedule(ctx, "reminder:book-emma:loan-2", time.Now().Add(50*time.Millisecond), nil)
	})
	startGroup(t, cfg, saga("reminders", s))
	drivertest.AppendEvents(t, env.store, "loan", 1)
	drivertest.Eventually(t, 5*time.Second, func() bool { return len(s.firedKeys()) == 2 }, "both fired")

	var late []string
	for line := range strings.Lines(log.String()) {
		if strings.Contains(line, `msg="timer fired late"`) {
			late = append(late, line)
		}
	}
	require.Len(t, late, 1, "only the late one says so:\n%s", log.String())
	require.Contains(t, late[0], "key=reminder:book-dune:loan-1")
	require.Contains(t, late[0], "late=2h0m0", "how late")
}

// What is due is due by the store's clock, not the replica's: here the store's clock is an
// hour behind, and a timer due by it a moment from now fires then, not at once, and is not late.
func TestTimersFireByTheStoresClock(t *testing.T) {
	t.Parallel()
	storeNow := func() time.Time { return time.Now().Add(-time.Hour) }
	env := newMemoryEnv()
	env.cps = memdriver.NewCheckpoints(storeNow)
	var log logBuffer
	cfg := env.config()
	cfg.Logger = log.logger()
	at := storeNow().Add(300 * time.Millisecond)
	s := newTimerSaga(newEffects(), func(ctx context.Context, _ eventstore.Event) error {
		return processor.Schedule(ctx, "soon", at, nil)
	})
	s.clock = storeNow
	startGroup(t, cfg, saga("reminders", s))
	drivertest.AppendEvents(t, env.store, "loan", 1)
	drivertest.Eventually(t, 5*time.Second, func() bool { return len(s.firedKeys()) == 1 }, "it fires")
	s.mu.Lock()
	firedAt := s.firedAt["soon"]
	s.mu.Unlock()
	require.False(t, firedAt.Before(at), "fired at %v by the store's clock, due at %v", firedAt, at)
	require.NotContains(t, log.String(), "timer fired late")
}

// A fire that fails is tried again on the Retry schedule, its attempts counted; one that is
// paused (what it depends on is down) is tried again using up no attempt; one that goes on
// failing once its attempts have run out goes on being tried, and Status shows it failing.
func TestTimerFiresThatFail(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	s := newTimerSaga(newEffects(), func(ctx context.Context, _ eventstore.Event) error {
		for _, key := range []string{"flaky", "paused", "hopeless"} {
			if err := processor.Schedule(ctx, key, time.Now().Add(-time.Second), nil); err != nil {
				return err
			}
		}
		return nil
	})
	s.before = func(_ context.Context, timer processor.Timer) error {
		calls := len(s.attemptsOf(timer.Key))
		switch {
		case timer.Key == "flaky" && calls <= 2:
			return errors.New("the payment provider answered 502")
		case timer.Key == "paused" && calls <= 3:
			return processor.Pause(errors.New("the database is down"))
		case timer.Key == "hopeless":
			return errors.New("no such checkout")
		}
		return nil
	}
	g := startGroup(t, env.config(), saga("checkouts", s))
	drivertest.AppendEvents(t, env.store, "checkout", 1)

	drivertest.Eventually(t, 10*time.Second, func() bool {
		return len(s.firedKeys()) == 2 && len(s.attemptsOf("hopeless")) > 6
	}, "flaky and paused fired in the end; hopeless is tried on and on")
	require.ElementsMatch(t, []string{"flaky", "paused"}, s.firedKeys())
	require.Equal(t, []int{0, 1, 2}, s.attemptsOf("flaky"), "each failure counts")
	require.Equal(t, []int{0, 0, 0, 0}, s.attemptsOf("paused"), "a pause uses up no attempt")
	for i, attempts := range s.attemptsOf("hopeless") {
		require.Equal(t, i, attempts, "tried again after its 3 attempts, never dropped")
	}
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	timers := statuses[0].Timers
	require.Equal(t, 1, timers.Waiting)
	require.Equal(t, 1, timers.Failing, "it shows failing")
	require.Greater(t, timers.OldestOverdueSeconds, 0.5)
	drivertest.Eventually(t, 5*time.Second, func() bool {
		statuses, err := g.Status(context.Background())
		require.NoError(t, err)
		return statuses[0].LastError != nil && *statuses[0].LastError == "timer: failed (the logs say why)"
	}, "and why, in words fit for /status")
}

// Fire may schedule its own key again ("again in 15 minutes"): each time is a timer of its
// own, fired once.
func TestTimerFireSchedulesItsOwnKeyAgain(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	s := newTimerSaga(newEffects(), func(ctx context.Context, _ eventstore.Event) error {
		return processor.Schedule(ctx, "reconcile:checkout-1", time.Now(), map[string]int{"n": 1})
	})
	s.after = func(ctx context.Context, timer processor.Timer) error {
		if n := dataN(t, timer); n < 3 {
			return processor.Schedule(ctx, timer.Key, timer.At.Add(20*time.Millisecond), map[string]int{"n": n + 1})
		}
		return nil
	}
	startGroup(t, env.config(), saga("checkouts", s))
	drivertest.AppendEvents(t, env.store, "checkout", 1)
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return len(s.firedKeys()) == 3 && timerStats(t, env.cps, "checkouts").Waiting == 0
	}, "fired three times, then no more")
	times := s.effects.times()
	require.Len(t, times, 3, "three timers, each with an At of its own")
	for key, n := range times {
		require.Equal(t, 1, n, key)
	}
}

// Only a handling that succeeds schedules: what a failed attempt scheduled is dropped with it,
// and what the deferred event's next attempt schedules is written with its Done.
func TestTimersScheduledByADeferredEventsRetry(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	s := newTimerSaga(newEffects(), func(ctx context.Context, _ eventstore.Event) error {
		if processor.Attempt(ctx) == 1 {
			if err := processor.Schedule(ctx, "from-the-failed-attempt", time.Now(), nil); err != nil {
				return err
			}
			return errors.New("the accounts service answered 502")
		}
		return processor.Schedule(ctx, "from-the-retry", time.Now(), nil)
	})
	startGroup(t, env.config(), saga("checkouts", s))
	events := drivertest.AppendEvents(t, env.store, "checkout", 1)
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return len(s.firedKeys()) == 1 && drivertest.CountDeferred(t, env.cps, "checkouts") == 0 &&
			drivertest.LoadPosition(t, env.cps, "checkouts").Checkpoint == events[0].Checkpoint()
	}, "the event was deferred, then handled, and its timer fired")
	require.Equal(t, []string{"from-the-retry"}, s.firedKeys())
	require.Zero(t, timerStats(t, env.cps, "checkouts").Waiting, "nothing of the failed attempt was written")
}
