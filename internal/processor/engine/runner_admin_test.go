package engine

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// retry-parked requeues parked events; the holder tries them again. One that fails again is
// parked again (and not tried in a loop); one that succeeds is unparked.
func TestGroupRetryParked(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 6)
	target := events[2]
	var down atomic.Bool
	down.Store(true)
	h := drivertest.NewRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.Position == target.Position && down.Load() {
			return errors.New("smtp: connection refused")
		}
		return nil
	})
	g := startGroup(t, env.config(), outbox("emails", h))
	drivertest.Eventually(t, 5*time.Second, func() bool { return drivertest.CountParked(t, env.cps, "emails") == 1 && h.Count() == 5 }, "parked, and the rest handled")

	n, err := g.RetryParked(context.Background(), "emails")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return h.Attempts(target.Position) == 6 && drivertest.CountParked(t, env.cps, "emails") == 1
	}, "tried again, three more times, and parked again")
	require.Zero(t, drivertest.CountDeferred(t, env.cps, "emails"), "parked again, it waits for the next retry-parked")
	require.Equal(t, 6, h.Attempts(target.Position), "not tried in a loop")

	down.Store(false) // the mail server is back
	n, err = g.RetryParked(context.Background(), "emails")
	require.NoError(t, err)
	require.Equal(t, 1, n)
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return drivertest.CountParked(t, env.cps, "emails") == 0 && drivertest.CountDeferred(t, env.cps, "emails") == 0 && h.Count() == 6
	}, "handled and forgotten")
	require.Equal(t, 7, h.Attempts(target.Position))
	got := h.Positions()
	require.Equal(t, 6, len(got))
	require.Equal(t, target.Position, got[5], "handled once, after the rest")

	n, err = g.RetryParked(context.Background(), "emails")
	require.NoError(t, err)
	require.Zero(t, n, "nothing left to requeue")
}

// A view model gets every event once, in one Apply per batch. A replay is a second build,
// beside the first, which answers until the second has caught up and takes over; then the first
// is dropped. Every event is applied once per build, and one build answers throughout.
func TestGroupViewModelAndReplay(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 11)
	view := newMemoryView(env.cps)
	g := startGroup(t, env.config(), viewModel("catalog", view))
	all := positionsOf(events)
	drivertest.Eventually(t, 5*time.Second, func() bool { rows, _, _ := view.snapshot(); return len(rows) == len(all) }, "every event applied")
	rows, applied, _ := view.snapshot()
	require.Equal(t, all, rows)
	for _, p := range all {
		require.Equal(t, 1, applied[p], "position %d applied once", p)
	}

	build, err := g.Replay(ctx, "catalog")
	require.NoError(t, err)
	require.Equal(t, "catalog@2", build)
	drivertest.Eventually(t, 5*time.Second, func() bool {
		builds, err := env.cps.ListBuilds(ctx, "catalog")
		require.NoError(t, err)
		answering := 0
		for _, b := range builds {
			if b.State == processor.BuildAnswering {
				answering++
			}
		}
		require.Equal(t, 1, answering, "one build answers: %+v", builds)
		return len(builds) == 1 && builds[0].Name() == "catalog@2"
	}, "the second build took over, and the first was dropped")
	rows, applied, rebuilds := view.snapshot()
	require.Equal(t, 1, rebuilds)
	require.Equal(t, all, rows)
	for _, p := range all {
		require.Equal(t, 2, applied[p], "position %d applied once per build", p)
	}
	require.Equal(t, processor.Position{Checkpoint: events[len(events)-1].Checkpoint()}, drivertest.LoadPosition(t, env.cps, "catalog@2"))
	require.Equal(t, processor.Position{}, drivertest.LoadPosition(t, env.cps, "catalog"), "the first build's checkpoint went with it")
}

// A saga replays too: its handler sees every event again. An outbox refuses.
func TestGroupReplayOfSagaAndOutbox(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 5)
	sagaHandler, outboxHandler := drivertest.NewRecorder(nil), drivertest.NewRecorder(nil)
	g := startGroup(t, env.config(), saga("fines", sagaHandler), outbox("emails", outboxHandler))
	drivertest.Eventually(t, 5*time.Second, func() bool { return sagaHandler.Count() == 5 && outboxHandler.Count() == 5 }, "handled")

	_, err := g.Replay(context.Background(), "emails")
	require.True(t, errs.Is(err, errs.NotReplayable), "outbox replay: %v", err)

	_, err = g.Replay(context.Background(), "fines")
	require.NoError(t, err)
	drivertest.Eventually(t, 5*time.Second, func() bool { return sagaHandler.Count() == 10 }, "the saga handles everything again")
	require.Equal(t, append(positionsOf(events), positionsOf(events)...), sagaHandler.Positions())
	require.Equal(t, int64(1), drivertest.LoadPosition(t, env.cps, "fines").Generation)
	require.Equal(t, 5, outboxHandler.Count(), "the outbox was not replayed")
}

// Admin requests name a processor this replica runs, and only its lease holder acts on them.
func TestGroupAdminRefusals(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	holder := startGroup(t, env.config(), saga("fines", drivertest.NewRecorder(nil)), outbox("emails", drivertest.NewRecorder(nil)))
	drivertest.Eventually(t, 5*time.Second, func() bool { return holder.HoldsLease("fines") && holder.HoldsLease("emails") }, "leases taken")
	standby := startGroup(t, env.config(), saga("fines", drivertest.NewRecorder(nil)), outbox("emails", drivertest.NewRecorder(nil)))

	ctx := context.Background()
	for _, g := range []*Group{holder, standby} {
		_, err := g.Replay(ctx, "nope")
		require.True(t, errs.Is(err, errs.NotFound))
		_, err = g.RetryParked(ctx, "nope")
		require.True(t, errs.Is(err, errs.NotFound))
	}
	for _, name := range []string{"fines", "emails"} {
		require.False(t, standby.HoldsLease(name))
		_, err := standby.Replay(ctx, name)
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
	events := drivertest.AppendEvents(t, env.store, "book", 6)
	head := events[len(events)-1]
	failing := head
	retried := make(chan struct{}) // closed to let the second attempt of the failing event succeed
	h := drivertest.NewRecorder(func(ctx context.Context, e eventstore.Event, attempt int) error {
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
	require.Equal(t, []processor.Status{{Name: "emails", Kind: processor.KindOutbox, Head: head.Position, Lag: 6}}, statuses, "before start")

	g.Start(context.Background())
	t.Cleanup(func() { stopGroup(t, g) })
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Attempts(failing.Position) == 2 }, "the first attempt failed")
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
	require.NoError(t, env.cps.Park(context.Background(), "emails", processor.Parked{Event: events[0], Reason: "old", Attempts: 6}))
	want := processor.Status{Name: "emails", Kind: processor.KindOutbox, HoldsLease: true, Checkpoint: head.Position, Head: head.Position, Lag: 0, Parked: 1}
	drivertest.Eventually(t, 5*time.Second, func() bool {
		statuses, err = g.Status(context.Background())
		require.NoError(t, err)
		return statuses[0] == want
	}, "caught up, nothing deferred, with the error cleared by the success")
	require.Equal(t, 6, h.Count())

	more := drivertest.AppendEvents(t, env.store, "late", 2)
	statuses, err = g.Status(context.Background())
	require.NoError(t, err)
	require.Equal(t, more[1].Position, statuses[0].Head)
}

// A parked event's error stays in Status until the processor next succeeds.
func TestGroupStatusShowsParkingError(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 3)
	h := drivertest.NewRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.Position == events[2].Position {
			return &processor.ParkError{Reason: "member alice@example.org has no email address", Public: "no email address"}
		}
		return nil
	})
	g := startGroup(t, env.config(), outbox("emails", h))
	drivertest.Eventually(t, 5*time.Second, func() bool { return drivertest.CountParked(t, env.cps, "emails") == 1 && h.Count() == 2 }, "parked")
	lastError := func() *string {
		statuses, err := g.Status(context.Background())
		require.NoError(t, err)
		return statuses[0].LastError
	}
	got := lastError()
	require.NotNil(t, got, "the parked event's error shows")
	require.Equal(t, fmt.Sprintf("position %d: parked: no email address", events[2].Position), *got, "its public text, not its reason")
	drivertest.AppendEvents(t, env.store, "late", 1)
	drivertest.Eventually(t, 5*time.Second, func() bool { return lastError() == nil }, "the next success clears it")
}

// A processor far behind has its lag counted up to LagCounted, and said to be at least that.
func TestGroupStatusCountsLagUpToALimit(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	batch := make([]eventstore.NewEvent, processor.LagCounted+5)
	for i := range batch {
		batch[i] = eventstore.NewEvent{Type: "Happened", Data: []byte(`{}`)}
	}
	_, err := env.store.Append(context.Background(), "many-1", 0, batch)
	require.NoError(t, err)
	g, err := NewGroup(env.config(), outbox("emails", drivertest.NewRecorder(nil)))
	require.NoError(t, err)
	statuses, err := g.Status(context.Background())
	require.NoError(t, err)
	require.Len(t, statuses, 1)
	require.Equal(t, int64(processor.LagCounted), statuses[0].Lag)
	require.True(t, statuses[0].LagAtLeast)
	require.Equal(t, int64(len(batch)), statuses[0].Head, "the head says how far the log goes")
}
