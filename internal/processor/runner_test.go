package processor

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
// on; an event whose handler says Park is parked at its first attempt.
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

	parked := parkedOf(env.cps, "emails")
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
	eventually(t, 5*time.Second, func() bool { return h.attempts(target.Position) == 6 }, "tried again, three more times")
	eventually(t, 5*time.Second, func() bool {
		requeued, err := env.cps.Requeued(context.Background(), "emails", 10)
		require.NoError(t, err)
		return len(requeued) == 0
	}, "parked again, it waits for the next retry-parked")
	require.Equal(t, 1, countParked(t, env.cps, "emails"))
	require.Equal(t, 6, h.attempts(target.Position), "not tried in a loop")

	down.Store(false) // the mail server is back
	n, err = g.RetryParked(context.Background(), "emails")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	eventually(t, 5*time.Second, func() bool { return countParked(t, env.cps, "emails") == 0 }, "handled and unparked")
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

// Status reports each processor from the shared store, and this replica's lease and error.
func TestGroupStatus(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 6)
	head := events[len(events)-1]
	failOnce := make(chan struct{}) // closed to let the second attempt of events[3] succeed
	h := newRecorder(func(ctx context.Context, e eventstore.Event, attempt int) error {
		if e.Position != events[3].Position {
			return nil
		}
		if attempt == 1 {
			return errors.New("smtp: 421 try later")
		}
		select { // the second attempt waits, so that the test sees the first one's error
		case <-failOnce:
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
	eventually(t, 5*time.Second, func() bool { return h.attempts(events[3].Position) == 2 }, "the first attempt failed")
	statuses, err = g.Status(context.Background())
	require.NoError(t, err)
	require.Len(t, statuses, 1)
	s := statuses[0]
	require.True(t, s.HoldsLease)
	require.NotNil(t, s.LastError, "the failed attempt shows while the event is retried")
	require.Equal(t, "smtp: 421 try later", *s.LastError)
	require.Equal(t, head.Position, s.Head)

	close(failOnce)
	require.NoError(t, env.cps.Park(context.Background(), "emails", Parked{Event: events[0], Reason: "old", Attempts: 6}))
	// A clean batch clears the error. (Status reads the checkpoint before the error, so the two
	// may come from either side of a batch's end: wait for the whole picture.)
	want := Status{Name: "emails", Kind: KindOutbox, HoldsLease: true, Checkpoint: head.Position, Head: head.Position, Lag: 0, Parked: 1}
	eventually(t, 5*time.Second, func() bool {
		statuses, err = g.Status(context.Background())
		require.NoError(t, err)
		return statuses[0] == want
	}, "caught up, with the error cleared by a clean batch")
	require.Equal(t, 6, h.count())

	more := appendEvents(t, env.store, "late", 2)
	statuses, err = g.Status(context.Background())
	require.NoError(t, err)
	require.Equal(t, more[1].Position, statuses[0].Head)
}

// The handler keeps failing: the event is parked and the error stays in Status until a batch
// goes through cleanly.
func TestGroupStatusShowsParkingError(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := appendEvents(t, env.store, "book", 3)
	h := newRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.Position == events[1].Position {
			return Park("member has no email address")
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
	require.NotNil(t, got, "the batch that parked an event is not clean")
	require.Equal(t, "member has no email address", *got)
	appendEvents(t, env.store, "late", 1)
	eventually(t, 5*time.Second, func() bool { return lastError() == nil }, "a clean batch clears it")
}
