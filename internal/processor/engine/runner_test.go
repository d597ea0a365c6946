package engine

import (
	"context"
	"errors"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/testkit/drivertest"
)

// memoryEnv is what replicas share in memory mode: the log, the checkpoints and the leases.
type memoryEnv struct {
	store  *eventstore.Memory
	cps    *memdriver.Checkpoints
	leases *memdriver.Leases
}

func newMemoryEnv() memoryEnv {
	return memoryEnv{store: eventstore.NewMemory(nil), cps: memdriver.NewCheckpoints(nil), leases: memdriver.NewLeases()}
}

func (env memoryEnv) config() Config { return memoryConfig(env.store, env.cps, env.leases) }

func saga(name string, h processor.Handler) processor.Processor {
	return processor.Processor{Name: name, Kind: processor.KindSaga, Handler: h}
}
func outbox(name string, h processor.Handler) processor.Processor {
	return processor.Processor{Name: name, Kind: processor.KindOutbox, Handler: h}
}

func TestNewGroupChecksProcessors(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	h, view := drivertest.NewRecorder(nil), newMemoryView(env.cps)
	for _, tc := range []struct {
		why        string
		processors []processor.Processor
	}{
		{"no name", []processor.Processor{saga("", h)}},
		{"two with one name", []processor.Processor{saga("p", h), outbox("p", h)}},
		{"view model without View", []processor.Processor{{Name: "v", Kind: processor.KindViewModel}}},
		{"view model with a Handler", []processor.Processor{{Name: "v", Kind: processor.KindViewModel, View: view, Handler: h}}},
		{"outbox without Handler", []processor.Processor{{Name: "o", Kind: processor.KindOutbox}}},
		{"saga with a View", []processor.Processor{{Name: "s", Kind: processor.KindSaga, Handler: h, View: view}}},
		{"a view model's name with @", []processor.Processor{viewModel("v@2", view)}},
		{"no kind", []processor.Processor{{Name: "x", Handler: h}}},
		{"unknown kind", []processor.Processor{{Name: "x", Kind: "cron", Handler: h}}},
	} {
		_, err := NewGroup(env.config(), tc.processors...)
		require.Error(t, err, tc.why)
	}
	g, err := NewGroup(env.config(), saga("s", h), outbox("o", h), viewModel("v", view))
	require.NoError(t, err)
	require.NoError(t, g.Stop(context.Background()), "stopping a group that never started is a no-op")
}

// Every event is handled once, in log order, across batches and across appends made while
// the processor runs (which wake it).
func TestGroupHandlesEveryEventOnceInOrder(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 10)
	h := drivertest.NewRecorder(nil)
	cfg := env.config()
	cfg.Options.PollInterval = time.Hour // only the append's wake-up can start the next read
	g := startGroup(t, cfg, saga("loans", h))
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events) }, "the first events are handled")
	events = append(events, drivertest.AppendEvents(t, env.store, "member", 11)...)
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events) }, "the appended events are handled")
	require.Equal(t, positionsOf(events), h.Positions())
	// The handler sees an event before its batch's checkpoint is saved: wait for the save.
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return drivertest.LoadPosition(t, env.cps, "loans") == processor.Position{Checkpoint: events[len(events)-1].Checkpoint()}
	},
		"the checkpoint reaches the end of the log")
	require.True(t, g.HoldsLease("loans"))
	require.False(t, g.HoldsLease("nobody"))
}

// A failing event is tried Attempts times, then parked with the error, and the processor goes
// on meanwhile; an event whose handler says Park is parked at its first attempt.
func TestGroupParksWhatFails(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 9)
	failing, hopeless := events[1], events[6]
	h := drivertest.NewRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		switch e.Position {
		case failing.Position:
			return errors.New("smtp: connection refused")
		case hopeless.Position:
			return processor.Park("member has no email address")
		}
		return nil
	})
	startGroup(t, env.config(), outbox("emails", h))
	drivertest.Eventually(t, 5*time.Second, func() bool { return drivertest.CountParked(t, env.cps, "emails") == 2 }, "two events are parked")
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events)-2 }, "the others are handled")

	parked := parkedOf(t, env.cps, "emails")
	require.Len(t, parked, 2)
	require.Equal(t, failing, parked[0].Event)
	require.Equal(t, "smtp: connection refused", parked[0].Reason)
	require.Equal(t, 3, parked[0].Attempts)
	require.Equal(t, 3, h.Attempts(failing.Position), "tried Retry.Attempts times")
	require.Equal(t, hopeless, parked[1].Event)
	require.Equal(t, "member has no email address", parked[1].Reason)
	require.Equal(t, 1, parked[1].Attempts)
	require.Equal(t, 1, h.Attempts(hopeless.Position), "a Park error is not retried")

	want := slices.DeleteFunc(positionsOf(events), func(p int64) bool { return p == failing.Position || p == hopeless.Position })
	require.Equal(t, want, h.Positions(), "in order, past the parked events")
	drivertest.Eventually(t, 5*time.Second, func() bool { return drivertest.LoadPosition(t, env.cps, "emails").Checkpoint == events[8].Checkpoint() },
		"the checkpoint moves past parked events")
	require.Zero(t, drivertest.CountDeferred(t, env.cps, "emails"), "nothing is left deferred")
}

// An event that fails for now is deferred off the line: the events after it are handled, and
// the checkpoint passes it, while it waits for its next attempt; that attempt comes, and its
// success forgets the deferral.
func TestGroupDefersWhatFailsForNow(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 6)
	failing := events[1]
	var retryNow atomic.Bool
	h := drivertest.NewRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.Position == failing.Position && !retryNow.Load() {
			return errors.New("452 4.2.2 mailbox full")
		}
		return nil
	})
	cfg := env.config()
	cfg.Options.Retry = processor.Backoff{Attempts: 3, First: 300 * time.Millisecond, Max: 300 * time.Millisecond}
	startGroup(t, cfg, outbox("emails", h))
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return h.Count() == len(events)-1 && drivertest.LoadPosition(t, env.cps, "emails").Checkpoint == events[5].Checkpoint()
	}, "the others handled and the checkpoint past the deferred event")
	require.Equal(t, 1, drivertest.CountDeferred(t, env.cps, "emails"))
	deferred := drivertest.Due(t, env.cps, "emails", time.Now().Add(time.Hour))
	require.Len(t, deferred, 1)
	require.Equal(t, failing, deferred[0].Event)
	require.Equal(t, "452 4.2.2 mailbox full", deferred[0].Reason)
	require.Equal(t, 1, deferred[0].Attempts)
	require.WithinDuration(t, time.Now().Add(300*time.Millisecond), deferred[0].NextAttempt, 300*time.Millisecond)

	retryNow.Store(true)
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events) }, "handled at its next attempt")
	require.GreaterOrEqual(t, h.Attempts(failing.Position), 2)
	drivertest.Eventually(t, 5*time.Second, func() bool { return drivertest.CountDeferred(t, env.cps, "emails") == 0 }, "no longer deferred")
	require.Zero(t, drivertest.CountParked(t, env.cps, "emails"))
}

// Handlers are called for up to InFlight events at once, and the checkpoint moves only past
// events that are done: one slow event holds it back while the others go on.
func TestGroupHandlesInFlightEventsAtOnce(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 40)
	slow := events[3]
	release, slowStarted := make(chan struct{}), make(chan struct{})
	var now, most atomic.Int64
	h := drivertest.NewRecorder(func(ctx context.Context, e eventstore.Event, _ int) error {
		raiseTo(&most, now.Add(1))
		defer now.Add(-1)
		wait := release // the slow one waits to be released
		if e.Position == slow.Position {
			close(slowStarted)
		} else {
			wait = slowStarted // the others, if they come after it, wait until it has started
			if e.Position < slow.Position {
				return nil
			}
		}
		select {
		case <-wait:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	cfg := env.config()
	cfg.Options.BatchSize = 10
	g := startGroup(t, cfg, processor.Processor{Name: "emails", Kind: processor.KindOutbox, Handler: h, InFlight: 8})
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return h.Count() >= 20 && drivertest.LoadPosition(t, env.cps, "emails") == processor.Position{Checkpoint: events[2].Checkpoint()}
	}, "the others go on past the slow one, and the checkpoint waits below it")
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	require.GreaterOrEqual(t, statuses[0].InFlight, int64(1), "the slow event is in flight")
	close(release)
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return h.Count() == len(events) && drivertest.LoadPosition(t, env.cps, "emails").Checkpoint == events[39].Checkpoint()
	}, "everything handled, the checkpoint at the end")
	require.ElementsMatch(t, positionsOf(events), h.Positions(), "each event once")
	require.LessOrEqual(t, most.Load(), int64(8), "never more than InFlight at once")
	require.Greater(t, most.Load(), int64(1), "more than one at once")
}

// While what the handler depends on is down (Pause), no other event is started, the event is
// tried again without using up its attempts, and everything goes on once it is back.
func TestGroupPausesWhileTheRelayIsDown(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 12)
	var down atomic.Bool
	down.Store(true)
	var calls atomic.Int64
	h := drivertest.NewRecorder(func(_ context.Context, _ eventstore.Event, _ int) error {
		calls.Add(1)
		if down.Load() {
			return processor.Pause(errors.New("dial tcp: connection refused"))
		}
		return nil
	})
	g := startGroup(t, env.config(), processor.Processor{Name: "emails", Kind: processor.KindOutbox, Handler: h, InFlight: 4})
	drivertest.Eventually(t, 5*time.Second, func() bool { return calls.Load() >= 4 }, "the relay is tried, and tried again")
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	require.NotNil(t, statuses[0].LastError)
	require.Contains(t, *statuses[0].LastError, "paused")
	require.Zero(t, h.Count())
	require.Zero(t, drivertest.CountDeferred(t, env.cps, "emails"), "a relay that is down is no email's fault")
	require.Zero(t, drivertest.CountParked(t, env.cps, "emails"))
	before := calls.Load()
	down.Store(false)
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events) }, "all sent once it is back")
	require.Zero(t, drivertest.CountParked(t, env.cps, "emails"))
	require.Zero(t, drivertest.CountDeferred(t, env.cps, "emails"))
	// While paused, the events in hand (at most InFlight) wait, and only one probes at a time.
	require.LessOrEqual(t, calls.Load()-before, int64(len(events)+4))
	drivertest.Eventually(t, 5*time.Second, func() bool {
		statuses, err := g.Status(context.Background())
		require.NoError(t, err)
		return statuses[0].LastError == nil
	}, "the error clears once the processor succeeds")
}

// The database being unavailable is not the event's fault: however many times it fails that
// way, the event is not parked, and it is handled once the database answers.
func TestGroupWaitsOutAnUnavailableDatabase(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 2)
	h := drivertest.NewRecorder(func(_ context.Context, e eventstore.Event, attempt int) error {
		if e.Position == events[0].Position && attempt <= 4 {
			return errs.E(errs.Unavailable, "the event store is unreachable")
		}
		return nil
	})
	startGroup(t, env.config(), saga("fines", h))
	drivertest.Eventually(t, 10*time.Second, func() bool { return h.Count() == 2 }, "both events handled")
	require.Equal(t, 5, h.Attempts(events[0].Position), "four failures, more than Retry.Attempts, then success")
	require.Zero(t, drivertest.CountParked(t, env.cps, "fines"))
}
