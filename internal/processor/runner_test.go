package processor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

// memoryEnv is what replicas share in memory mode: the log, the checkpoints and the leases.
type memoryEnv struct {
	store  *eventstore.Memory
	cps    *MemoryCheckpoints
	leases *MemoryLeases
}

func newMemoryEnv() memoryEnv {
	return memoryEnv{store: eventstore.NewMemory(nil), cps: NewMemoryCheckpoints(nil), leases: NewMemoryLeases()}
}

func (env memoryEnv) config() Config { return memoryConfig(env.store, env.cps, env.leases) }

func saga(name string, h Handler) Processor { return Processor{Name: name, Kind: KindSaga, Handler: h} }
func outbox(name string, h Handler) Processor {
	return Processor{Name: name, Kind: KindOutbox, Handler: h}
}

func TestNewGroupChecksProcessors(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	h, view := newRecorder(nil), newMemoryView("v", env.cps)
	for _, tc := range []struct {
		why        string
		processors []Processor
	}{
		{"no name", []Processor{saga("", h)}},
		{"two with one name", []Processor{saga("p", h), outbox("p", h)}},
		{"view model without ViewModel", []Processor{{Name: "v", Kind: KindViewModel}}},
		{"view model with a Handler", []Processor{{Name: "v", Kind: KindViewModel, ViewModel: view, Handler: h}}},
		{"outbox without Handler", []Processor{{Name: "o", Kind: KindOutbox}}},
		{"saga with a ViewModel", []Processor{{Name: "s", Kind: KindSaga, Handler: h, ViewModel: view}}},
		{"no kind", []Processor{{Name: "x", Handler: h}}},
		{"unknown kind", []Processor{{Name: "x", Kind: "cron", Handler: h}}},
	} {
		_, err := NewGroup(env.config(), tc.processors...)
		require.Error(t, err, tc.why)
	}
	g, err := NewGroup(env.config(), saga("s", h), outbox("o", h), Processor{Name: "v", Kind: KindViewModel, ViewModel: view})
	require.NoError(t, err)
	require.NoError(t, g.Stop(context.Background()), "stopping a group that never started is a no-op")
}

// Every event is handled once, in log order, across batches and across appends made while
// the processor runs (which wake it).
func TestGroupHandlesEveryEventOnceInOrder(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 10)
	h := newRecorder(nil)
	cfg := env.config()
	cfg.Options.PollInterval = time.Hour // only the append's wake-up can start the next read
	g := startGroup(t, cfg, saga("loans", h))
	eventually(t, 5*time.Second, func() bool { return h.count() == len(events) }, "the first events are handled")
	events = append(events, appendEvents(t, env.store, "member", 11)...)
	eventually(t, 5*time.Second, func() bool { return h.count() == len(events) }, "the appended events are handled")
	require.Equal(t, positionsOf(events), h.positions())
	// The handler sees an event before its batch's checkpoint is saved: wait for the save.
	eventually(t, 5*time.Second, func() bool {
		return loadPosition(t, env.cps, "loans") == Position{Checkpoint: events[len(events)-1].Checkpoint()}
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
	events := appendEvents(t, env.store, "book", 9)
	failing, hopeless := events[1], events[6]
	h := newRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		switch e.Position {
		case failing.Position:
			return errors.New("smtp: connection refused")
		case hopeless.Position:
			return Park("member has no email address")
		}
		return nil
	})
	startGroup(t, env.config(), outbox("emails", h))
	eventually(t, 5*time.Second, func() bool { return countParked(t, env.cps, "emails") == 2 }, "two events are parked")
	eventually(t, 5*time.Second, func() bool { return h.count() == len(events)-2 }, "the others are handled")

	parked := parkedOf(t, env.cps, "emails")
	require.Len(t, parked, 2)
	require.Equal(t, failing, parked[0].Event)
	require.Equal(t, "smtp: connection refused", parked[0].Reason)
	require.Equal(t, 3, parked[0].Attempts)
	require.Equal(t, 3, h.attempts(failing.Position), "tried Retry.Attempts times")
	require.Equal(t, hopeless, parked[1].Event)
	require.Equal(t, "member has no email address", parked[1].Reason)
	require.Equal(t, 1, parked[1].Attempts)
	require.Equal(t, 1, h.attempts(hopeless.Position), "a Park error is not retried")

	want := slices.DeleteFunc(positionsOf(events), func(p int64) bool { return p == failing.Position || p == hopeless.Position })
	require.Equal(t, want, h.positions(), "in order, past the parked events")
	eventually(t, 5*time.Second, func() bool { return loadPosition(t, env.cps, "emails").Checkpoint == events[8].Checkpoint() },
		"the checkpoint moves past parked events")
	require.Zero(t, countDeferred(t, env.cps, "emails"), "nothing is left deferred")
}

// An event that fails for now is deferred off the line: the events after it are handled, and
// the checkpoint passes it, while it waits for its next attempt; that attempt comes, and its
// success forgets the deferral.
func TestGroupDefersWhatFailsForNow(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 6)
	failing := events[1]
	var retryNow atomic.Bool
	h := newRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.Position == failing.Position && !retryNow.Load() {
			return errors.New("452 4.2.2 mailbox full")
		}
		return nil
	})
	cfg := env.config()
	cfg.Options.Retry = Backoff{Attempts: 3, First: 300 * time.Millisecond, Max: 300 * time.Millisecond}
	startGroup(t, cfg, outbox("emails", h))
	eventually(t, 5*time.Second, func() bool {
		return h.count() == len(events)-1 && loadPosition(t, env.cps, "emails").Checkpoint == events[5].Checkpoint()
	}, "the others handled and the checkpoint past the deferred event")
	require.Equal(t, 1, countDeferred(t, env.cps, "emails"))
	deferred := due(t, env.cps, "emails", time.Now().Add(time.Hour))
	require.Len(t, deferred, 1)
	require.Equal(t, failing, deferred[0].Event)
	require.Equal(t, "452 4.2.2 mailbox full", deferred[0].Reason)
	require.Equal(t, 1, deferred[0].Attempts)
	require.WithinDuration(t, time.Now().Add(300*time.Millisecond), deferred[0].NextAttempt, 300*time.Millisecond)

	retryNow.Store(true)
	eventually(t, 5*time.Second, func() bool { return h.count() == len(events) }, "handled at its next attempt")
	require.GreaterOrEqual(t, h.attempts(failing.Position), 2)
	eventually(t, 5*time.Second, func() bool { return countDeferred(t, env.cps, "emails") == 0 }, "no longer deferred")
	require.Zero(t, countParked(t, env.cps, "emails"))
}

// Handlers are called for up to InFlight events at once, and the checkpoint moves only past
// events that are done: one slow event holds it back while the others go on.
func TestGroupHandlesInFlightEventsAtOnce(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 40)
	slow := events[3]
	release := make(chan struct{})
	var now, most atomic.Int64
	h := newRecorder(func(ctx context.Context, e eventstore.Event, _ int) error {
		raiseTo(&most, now.Add(1))
		defer now.Add(-1)
		if e.Position == slow.Position {
			select {
			case <-release:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	cfg := env.config()
	cfg.Options.BatchSize = 10
	g := startGroup(t, cfg, Processor{Name: "emails", Kind: KindOutbox, Handler: h, InFlight: 8})
	eventually(t, 5*time.Second, func() bool {
		return h.count() >= 20 && loadPosition(t, env.cps, "emails") == Position{Checkpoint: events[2].Checkpoint()}
	}, "the others go on past the slow one, and the checkpoint waits below it")
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	require.GreaterOrEqual(t, statuses[0].InFlight, int64(1), "the slow event is in flight")
	close(release)
	eventually(t, 5*time.Second, func() bool {
		return h.count() == len(events) && loadPosition(t, env.cps, "emails").Checkpoint == events[39].Checkpoint()
	}, "everything handled, the checkpoint at the end")
	require.ElementsMatch(t, positionsOf(events), h.positions(), "each event once")
	require.LessOrEqual(t, most.Load(), int64(8), "never more than InFlight at once")
	require.Greater(t, most.Load(), int64(1), "more than one at once")
}

// While what the handler depends on is down (Pause), no other event is started, the event is
// tried again without using up its attempts, and everything goes on once it is back.
func TestGroupPausesWhileTheRelayIsDown(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 12)
	var down atomic.Bool
	down.Store(true)
	var calls atomic.Int64
	h := newRecorder(func(_ context.Context, _ eventstore.Event, _ int) error {
		calls.Add(1)
		if down.Load() {
			return Pause(errors.New("dial tcp: connection refused"))
		}
		return nil
	})
	g := startGroup(t, env.config(), Processor{Name: "emails", Kind: KindOutbox, Handler: h, InFlight: 4})
	eventually(t, 5*time.Second, func() bool { return calls.Load() >= 4 }, "the relay is tried, and tried again")
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	require.NotNil(t, statuses[0].LastError)
	require.Contains(t, *statuses[0].LastError, "paused")
	require.Zero(t, h.count())
	require.Zero(t, countDeferred(t, env.cps, "emails"), "a relay that is down is no email's fault")
	require.Zero(t, countParked(t, env.cps, "emails"))
	before := calls.Load()
	down.Store(false)
	eventually(t, 5*time.Second, func() bool { return h.count() == len(events) }, "all sent once it is back")
	require.Zero(t, countParked(t, env.cps, "emails"))
	require.Zero(t, countDeferred(t, env.cps, "emails"))
	// While paused, the events in hand (at most InFlight) wait, and only one probes at a time.
	require.LessOrEqual(t, calls.Load()-before, int64(len(events)+4))
	eventually(t, 5*time.Second, func() bool {
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
	events := appendEvents(t, env.store, "book", 2)
	h := newRecorder(func(_ context.Context, e eventstore.Event, attempt int) error {
		if e.Position == events[0].Position && attempt <= 4 {
			return errs.E(errs.Unavailable, "the event store is unreachable")
		}
		return nil
	})
	startGroup(t, env.config(), saga("fines", h))
	eventually(t, 10*time.Second, func() bool { return h.count() == 2 }, "both events handled")
	require.Equal(t, 5, h.attempts(events[0].Position), "four failures, more than Retry.Attempts, then success")
	require.Zero(t, countParked(t, env.cps, "fines"))
}

// retry-parked requeues parked events; the holder tries them again. One that fails again is
// parked again (and not tried in a loop); one that succeeds is unparked.
func TestGroupRetryParked(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 6)
	target := events[2]
	var down atomic.Bool
	down.Store(true)
	h := newRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.Position == target.Position && down.Load() {
			return errors.New("smtp: connection refused")
		}
		return nil
	})
	g := startGroup(t, env.config(), outbox("emails", h))
	eventually(t, 5*time.Second, func() bool { return countParked(t, env.cps, "emails") == 1 && h.count() == 5 }, "parked, and the rest handled")

	n, err := g.RetryParked(context.Background(), "emails")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	eventually(t, 5*time.Second, func() bool {
		return h.attempts(target.Position) == 6 && countParked(t, env.cps, "emails") == 1
	}, "tried again, three more times, and parked again")
	require.Zero(t, countDeferred(t, env.cps, "emails"), "parked again, it waits for the next retry-parked")
	require.Equal(t, 6, h.attempts(target.Position), "not tried in a loop")

	down.Store(false) // the mail server is back
	n, err = g.RetryParked(context.Background(), "emails")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	eventually(t, 5*time.Second, func() bool {
		return countParked(t, env.cps, "emails") == 0 && countDeferred(t, env.cps, "emails") == 0 && h.count() == 6
	}, "handled and forgotten")
	require.Equal(t, 7, h.attempts(target.Position))
	got := h.positions()
	require.Equal(t, 6, len(got))
	require.Equal(t, target.Position, got[5], "handled once, after the rest")

	n, err = g.RetryParked(context.Background(), "emails")
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to requeue")
}

// A view model gets every event once, in one Apply per batch; a replay empties it and applies
// everything again, in generation 1.
func TestGroupViewModelAndReplay(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 11)
	view := newMemoryView("catalog", env.cps)
	g := startGroup(t, env.config(), Processor{Name: "catalog", Kind: KindViewModel, ViewModel: view})
	all := positionsOf(events)
	eventually(t, 5*time.Second, func() bool { rows, _, _ := view.snapshot(); return len(rows) == len(all) }, "every event applied")
	rows, applied, _ := view.snapshot()
	require.Equal(t, all, rows)
	for _, p := range all {
		require.Equal(t, 1, applied[p], "position %d applied once", p)
	}

	require.NoError(t, g.Replay(context.Background(), "catalog"))
	eventually(t, 5*time.Second, func() bool {
		rows, _, resets := view.snapshot()
		return resets == 1 && len(rows) == len(all)
	}, "reset and applied again")
	rows, applied, _ = view.snapshot()
	require.Equal(t, all, rows)
	for _, p := range all {
		require.Equal(t, 2, applied[p], "position %d applied once per generation", p)
	}
	require.Equal(t, Position{Generation: 1, Checkpoint: events[len(events)-1].Checkpoint()}, loadPosition(t, env.cps, "catalog"))
}

// A saga replays too: its handler sees every event again. An outbox refuses.
func TestGroupReplayOfSagaAndOutbox(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 5)
	sagaHandler, outboxHandler := newRecorder(nil), newRecorder(nil)
	g := startGroup(t, env.config(), saga("fines", sagaHandler), outbox("emails", outboxHandler))
	eventually(t, 5*time.Second, func() bool { return sagaHandler.count() == 5 && outboxHandler.count() == 5 }, "handled")

	err := g.Replay(context.Background(), "emails")
	require.True(t, errs.Is(err, errs.NotReplayable), "outbox replay: %v", err)

	require.NoError(t, g.Replay(context.Background(), "fines"))
	eventually(t, 5*time.Second, func() bool { return sagaHandler.count() == 10 }, "the saga handles everything again")
	require.Equal(t, append(positionsOf(events), positionsOf(events)...), sagaHandler.positions())
	require.Equal(t, int64(1), loadPosition(t, env.cps, "fines").Generation)
	require.Equal(t, 5, outboxHandler.count(), "the outbox was not replayed")
}

// Admin requests name a processor this replica runs, and only its lease holder acts on them.
func TestGroupAdminRefusals(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	holder := startGroup(t, env.config(), saga("fines", newRecorder(nil)), outbox("emails", newRecorder(nil)))
	eventually(t, 5*time.Second, func() bool { return holder.HoldsLease("fines") && holder.HoldsLease("emails") }, "leases taken")
	standby := startGroup(t, env.config(), saga("fines", newRecorder(nil)), outbox("emails", newRecorder(nil)))

	ctx := context.Background()
	for _, g := range []*Group{holder, standby} {
		require.True(t, errs.Is(g.Replay(ctx, "nope"), errs.NotFound))
		_, err := g.RetryParked(ctx, "nope")
		require.True(t, errs.Is(err, errs.NotFound))
	}
	for _, name := range []string{"fines", "emails"} {
		require.False(t, standby.HoldsLease(name))
		err := standby.Replay(ctx, name)
		require.True(t, errs.Is(err, errs.NotLeaseHolder), "replay on a standby: %v", err)
		_, err = standby.RetryParked(ctx, name)
		require.True(t, errs.Is(err, errs.NotLeaseHolder), "retry-parked on a standby: %v", err)
	}
}

// Status reports each processor from the shared store, and this replica's lease, events in
// flight and last error.
func TestGroupStatus(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 6)
	head := events[len(events)-1]
	failing := head
	retried := make(chan struct{}) // closed to let the second attempt of the failing event succeed
	h := newRecorder(func(ctx context.Context, e eventstore.Event, attempt int) error {
		if e.Position != failing.Position {
			return nil
		}
		if attempt == 1 {
			return errors.New("smtp: 452 try later")
		}
		select { // the second attempt waits, so that the test sees it in flight
		case <-retried:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	g, err := NewGroup(env.config(), outbox("emails", h))
	require.NoError(t, err)

	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	require.Equal(t, []Status{{Name: "emails", Kind: KindOutbox, Head: head.Position, Lag: 6}}, statuses, "before start")

	g.Start(context.Background())
	t.Cleanup(func() { stopGroup(t, g) })
	eventually(t, 5*time.Second, func() bool { return h.attempts(failing.Position) == 2 }, "the first attempt failed")
	statuses, err = g.Status(context.Background())
	require.NoError(t, err)
	require.Len(t, statuses, 1)
	s := statuses[0]
	require.True(t, s.HoldsLease)
	require.NotNil(t, s.LastError, "the failed attempt shows while the event is deferred")
	require.Equal(t, fmt.Sprintf("position %d: failed (the logs say why)", failing.Position), *s.LastError)
	require.Equal(t, 1, s.Deferred)
	require.Equal(t, int64(1), s.InFlight, "its second attempt is in flight")
	require.Equal(t, head.Position, s.Head)

	close(retried)
	require.NoError(t, env.cps.Park(context.Background(), "emails", Parked{Event: events[0], Reason: "old", Attempts: 6}))
	want := Status{Name: "emails", Kind: KindOutbox, HoldsLease: true, Checkpoint: head.Position, Head: head.Position, Lag: 0, Parked: 1}
	eventually(t, 5*time.Second, func() bool {
		statuses, err = g.Status(context.Background())
		require.NoError(t, err)
		return statuses[0] == want
	}, "caught up, nothing deferred, with the error cleared by the success")
	require.Equal(t, 6, h.count())

	more := appendEvents(t, env.store, "late", 2)
	statuses, err = g.Status(context.Background())
	require.NoError(t, err)
	require.Equal(t, more[1].Position, statuses[0].Head)
}

// A parked event's error stays in Status until the processor next succeeds.
func TestGroupStatusShowsParkingError(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 3)
	h := newRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.Position == events[2].Position {
			return &ParkError{Reason: "member alice@example.org has no email address", Public: "no email address"}
		}
		return nil
	})
	g := startGroup(t, env.config(), outbox("emails", h))
	eventually(t, 5*time.Second, func() bool { return countParked(t, env.cps, "emails") == 1 && h.count() == 2 }, "parked")
	lastError := func() *string {
		statuses, err := g.Status(context.Background())
		require.NoError(t, err)
		return statuses[0].LastError
	}
	got := lastError()
	require.NotNil(t, got, "the parked event's error shows")
	require.Equal(t, fmt.Sprintf("position %d: parked: no email address", events[2].Position), *got, "its public text, not its reason")
	appendEvents(t, env.store, "late", 1)
	eventually(t, 5*time.Second, func() bool { return lastError() == nil }, "the next success clears it")
}
