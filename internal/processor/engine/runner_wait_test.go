package engine

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// An event that waits (Wait) is deferred for as long as its handler said, again and again,
// using up no attempt however often it is tried, while the events after it go on and the
// checkpoint passes it; the timer its first handling scheduled is written, as a handled
// event's is; nothing is recorded as a failure. Once what it waited for comes, it is handled.
func TestGroupDefersAnEventThatWaits(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "loan", 4)
	waiting := events[1]
	var arrived atomic.Bool
	var mu sync.Mutex
	var tries []time.Time
	attempts := map[int]bool{}
	s := newTimerSaga(newEffects(), func(ctx context.Context, e eventstore.Event) error {
		if e.Position != waiting.Position {
			return nil
		}
		if err := processor.Schedule(ctx, "reminder", time.Now().Add(time.Hour), nil); err != nil {
			return err
		}
		mu.Lock()
		tries = append(tries, time.Now())
		attempts[processor.Attempt(ctx)] = true
		mu.Unlock()
		if !arrived.Load() {
			return processor.Wait(150*time.Millisecond, errors.New("no email address yet"))
		}
		return nil
	})
	g := startGroup(t, env.config(), outbox("emails", s))
	tried := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(tries)
	}
	// More tries than Retry.Attempts (3): a failure would have been parked by now.
	drivertest.Eventually(t, 10*time.Second, func() bool {
		return tried() > 4 && drivertest.LoadPosition(t, env.cps, "emails").Checkpoint == events[3].Checkpoint()
	}, "the event tried again and again, the checkpoint past it")
	require.Equal(t, 1, drivertest.CountDeferred(t, env.cps, "emails"), "it waits among the deferred events")
	require.Zero(t, drivertest.CountParked(t, env.cps, "emails"))
	deferred := drivertest.Due(t, env.cps, "emails", time.Now().Add(time.Hour))
	require.Len(t, deferred, 1)
	require.Zero(t, deferred[0].Attempts, "a wait uses up no attempt")
	require.Equal(t, "no email address yet", deferred[0].Reason)
	require.Equal(t, 1, timerStats(t, env.cps, "emails").Waiting, "the timer of its first handling was written")
	mu.Lock()
	require.Equal(t, map[int]bool{1: true}, attempts, "every try is its first attempt")
	for i := 1; i < len(tries); i++ {
		require.GreaterOrEqual(t, tries[i].Sub(tries[i-1]), 140*time.Millisecond, "tried again after the wait it asked for")
	}
	mu.Unlock()
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	for _, st := range statuses {
		require.Nil(t, st.LastError, "a wait is no failure")
		require.Equal(t, 1, st.Deferred)
	}

	arrived.Store(true)
	drivertest.Eventually(t, 10*time.Second, func() bool { return drivertest.CountDeferred(t, env.cps, "emails") == 0 }, "handled once it came")
	require.Zero(t, drivertest.CountParked(t, env.cps, "emails"))
	require.Equal(t, 1, timerStats(t, env.cps, "emails").Waiting)
}
