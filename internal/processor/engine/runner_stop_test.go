package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/testkit/drivertest"
)

// Stop lets the event in hand finish, starts no other, moves the checkpoint and releases the
// lease; a standby replica sharing the store takes over from the shared checkpoint. Nothing is
// handled twice, nothing is skipped.
func TestGroupStopHandsOverToStandby(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 20)
	reached, gate := make(chan struct{}), make(chan struct{})
	first := drivertest.NewRecorder(func(ctx context.Context, e eventstore.Event, attempt int) error {
		if e.Position != events[6].Position || attempt > 1 {
			return nil
		}
		close(reached) // mid-batch: events 4..7 have been read
		select {
		case <-gate:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	second := drivertest.NewRecorder(nil)
	active, err := NewGroup(env.config(), outbox("emails", first))
	require.NoError(t, err)
	running, endRun := context.WithCancel(context.Background())
	active.Start(running)
	t.Cleanup(func() { stopGroup(t, active) })
	<-reached
	standbyGroup := startGroup(t, env.config(), outbox("emails", second))
	require.False(t, standbyGroup.HoldsLease("emails"))

	// Stop begins by ending what Start's context ends; end it here, so that the stop is
	// certainly under way while the batch is in hand, then let the batch finish.
	endRun()
	opened := time.Now()
	close(gate)
	took := stopGroup(t, active)
	t.Logf("Stop returned %v after the batch in hand could finish (Stop itself: %v)", time.Since(opened), took)
	require.Less(t, time.Since(opened), 2*time.Second)
	require.False(t, active.HoldsLease("emails"))
	require.Equal(t, positionsOf(events[:7]), first.Positions(), "the event in hand is finished, no other is started")

	drivertest.Eventually(t, 5*time.Second, func() bool { return second.Count() == 13 }, "the standby takes over")
	require.True(t, standbyGroup.HoldsLease("emails"))
	more := drivertest.AppendEvents(t, env.store, "member", 7)
	drivertest.Eventually(t, 5*time.Second, func() bool { return second.Count() == 20 }, "and goes on")
	require.Equal(t, positionsOf(append(events[7:], more...)), second.Positions(), "from where the first stopped")
	require.Equal(t, 7, first.Count(), "the stopped replica handled nothing more")
}

// A deferred event outlives its holder: Stop does not wait for its next attempt, and the next
// holder tries it when its time comes, without handling the others again.
func TestGroupDeferredEventOutlivesItsHolder(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 5)
	stuck := events[2]
	h := drivertest.NewRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.Position == stuck.Position {
			return errors.New("451 4.3.0 try again later")
		}
		return nil
	})
	cfg := env.config()
	cfg.Options.Retry = processor.Backoff{Attempts: 3, First: 500 * time.Millisecond, Max: 500 * time.Millisecond}
	g := startGroup(t, cfg, outbox("emails", h))
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return h.Count() == 4 && drivertest.LoadPosition(t, env.cps, "emails").Checkpoint == events[4].Checkpoint()
	}, "the others handled, the checkpoint at the end")

	took := stopGroup(t, g)
	require.Less(t, took, 2*time.Second, "Stop does not wait for the deferred event")
	require.Equal(t, 1, h.Attempts(stuck.Position))
	require.Zero(t, drivertest.CountParked(t, env.cps, "emails"), "stopping is not a reason to park")
	require.Equal(t, 1, drivertest.CountDeferred(t, env.cps, "emails"), "the deferred event is kept for the next holder")

	next := drivertest.NewRecorder(nil)
	startGroup(t, cfg, outbox("emails", next))
	drivertest.Eventually(t, 5*time.Second, func() bool { return next.Count() == 1 }, "the next holder tries it when it is due")
	require.Equal(t, []int64{stuck.Position}, next.Positions(), "that one alone")
	drivertest.Eventually(t, 5*time.Second, func() bool { return drivertest.CountDeferred(t, env.cps, "emails") == 0 }, "and forgets it")
}

// When Stop's context ends before the batch in hand, the batch is abandoned: Stop returns the
// context's error promptly, and the next holder handles the batch again.
func TestGroupStopAbandonsBatchWhenContextEnds(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 3)
	h := drivertest.NewRecorder(func(ctx context.Context, e eventstore.Event, _ int) error {
		if e.Position == events[1].Position {
			<-ctx.Done() // a handler that hangs until it is told to give up
			return ctx.Err()
		}
		return nil
	})
	g := startGroup(t, env.config(), outbox("emails", h))
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Attempts(events[1].Position) == 1 }, "the handler hangs")

	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	require.ErrorIs(t, g.Stop(ctx), context.DeadlineExceeded)
	require.Less(t, time.Since(start), 2*time.Second)
	require.False(t, g.HoldsLease("emails"))
	require.False(t, events[0].Checkpoint().Before(drivertest.LoadPosition(t, env.cps, "emails").Checkpoint),
		"the checkpoint is not past the abandoned batch's handled events")

	next := drivertest.NewRecorder(nil)
	startGroup(t, env.config(), outbox("emails", next))
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return next.Count() >= 2 && drivertest.LoadPosition(t, env.cps, "emails").Checkpoint == events[2].Checkpoint()
	},
		"the next holder handles the abandoned batch")
	require.Contains(t, next.Positions(), events[1].Position)
}

// killableLeases are memory leases that the test can take away, as a failed lock connection
// would.
type killableLeases struct {
	inner *memdriver.Leases
	taken atomic.Int32

	mu      sync.Mutex
	current *killableLease
}

func (k *killableLeases) Acquire(ctx context.Context, name string) (processor.Lease, error) {
	inner, err := k.inner.Acquire(ctx, name)
	if err != nil {
		return nil, err
	}
	l := &killableLease{inner: inner, lost: make(chan struct{})}
	k.mu.Lock()
	k.current = l
	k.mu.Unlock()
	k.taken.Add(1)
	return l, nil
}

func (k *killableLeases) kill() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.current.lose()
}

type killableLease struct {
	inner processor.Lease // nil: nothing to release
	lost  chan struct{}
	once  sync.Once
}

func (l *killableLease) Lost() <-chan struct{} { return l.lost }

func (l *killableLease) Fresh() bool {
	select {
	case <-l.lost:
		return false
	default:
		return true
	}
}
func (l *killableLease) lose() { l.once.Do(func() { close(l.lost) }) }

func (l *killableLease) Release() {
	l.lose()
	if l.inner != nil {
		l.inner.Release()
	}
}

// A lost lease cancels the batch in hand at once; the replica takes the lease again and goes
// on from the shared checkpoint: the batch in flight may be handled twice, nothing before it.
func TestGroupLeaseLostMidBatch(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 12)
	reached := make(chan struct{})
	h := drivertest.NewRecorder(func(ctx context.Context, e eventstore.Event, attempt int) error {
		if e.Position == events[5].Position && attempt == 1 {
			close(reached)
			<-ctx.Done() // only the lost lease can end this
			return ctx.Err()
		}
		return nil
	})
	leases := &killableLeases{inner: env.leases}
	startGroup(t, memoryConfig(env.store, env.cps, leases), outbox("emails", h))
	<-reached
	leases.kill()

	drivertest.Eventually(t, 5*time.Second, func() bool {
		return drivertest.LoadPosition(t, env.cps, "emails").Checkpoint == events[11].Checkpoint()
	}, "all handled")
	require.Equal(t, int32(2), leases.taken.Load(), "the lease was taken again")
	counts := map[int64]int{}
	for _, p := range h.Positions() {
		counts[p]++
	}
	for i, e := range events {
		switch {
		case i >= 4 && i < 8: // the batch in flight: at least once
			require.GreaterOrEqual(t, counts[e.Position], 1, "event %d", i)
		default:
			require.Equal(t, 1, counts[e.Position], "event %d", i)
		}
	}
}

// A replica that lost its lease lets a waiting standby have it, rather than taking it back.
func TestGroupLostLeaseGoesToStandby(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 3)
	leases := &killableLeases{inner: env.leases}
	cfg := memoryConfig(env.store, env.cps, leases)
	cfg.Options.RetakeDelay = 200 * time.Millisecond
	first, second := drivertest.NewRecorder(nil), drivertest.NewRecorder(nil)
	g1 := startGroup(t, cfg, saga("fines", first))
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return first.Count() == 3 && drivertest.LoadPosition(t, env.cps, "fines").Checkpoint == events[2].Checkpoint()
	}, "the first replica runs it, and saves its checkpoint")
	g2 := startGroup(t, cfg, saga("fines", second))
	leases.kill()
	drivertest.Eventually(t, 5*time.Second, func() bool { return g2.HoldsLease("fines") }, "the standby takes the lease")
	require.False(t, g1.HoldsLease("fines"))
	statuses, err := g1.Status(context.Background())
	require.NoError(t, err)
	require.Nil(t, statuses[0].LastError, "a replica that lost its lease stands by: no error shows")
	more := drivertest.AppendEvents(t, env.store, "member", 2)
	drivertest.Eventually(t, 5*time.Second, func() bool { return second.Count() == 2 }, "the standby goes on")
	require.Equal(t, positionsOf(more), second.Positions())
	require.Equal(t, 3, first.Count())
}

// everyoneLeases is a broken lease service that lets every replica hold every lease at once:
// only the fenced checkpoint stands between two holders and a view model that applies events
// twice.
type everyoneLeases struct{}

func (everyoneLeases) Acquire(ctx context.Context, _ string) (processor.Lease, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return &killableLease{lost: make(chan struct{})}, nil
}

// Two holders at once (a lost lease not yet noticed) both read the same batch from the same
// checkpoint; their first applies are held until both are ready, so that they race: one
// applies, the other is fenced, and then they race batch after batch. Every event is applied
// once, in order.
func TestGroupFencingStopsTwoHoldersApplyingTwice(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	view := &racingView{memoryView: newMemoryView(env.cps), ready: make(chan struct{})}
	cfg := memoryConfig(env.store, env.cps, everyoneLeases{})
	cfg.Options.BatchSize = 3
	var events []eventstore.Event
	for i := range 5 { // there before either starts: both read the first batch from the start
		events = append(events, drivertest.AppendEvents(t, env.store, fmt.Sprintf("book%d", i), 4)...)
	}
	startGroup(t, cfg, viewModel("catalog", view))
	startGroup(t, cfg, viewModel("catalog", view))
	for i := 5; i < 20; i++ { // appended while both run, so that they race batch after batch
		events = append(events, drivertest.AppendEvents(t, env.store, fmt.Sprintf("book%d", i), 4)...)
	}
	drivertest.Eventually(t, 10*time.Second, func() bool { rows, _, _ := view.snapshot(); return len(rows) >= len(events) }, "everything applied")
	rows, applied, _ := view.snapshot()
	require.Equal(t, positionsOf(events), rows, "each event once, in order")
	for p, n := range applied {
		require.Equal(t, 1, n, "position %d", p)
	}
	view.mu.Lock()
	defer view.mu.Unlock()
	require.GreaterOrEqual(t, view.fenced, 1, "the holder that lost the first race was fenced")
}

// racingView holds the first two applies until both have arrived (or a few seconds have
// passed), then lets them race.
type racingView struct {
	*memoryView
	arrived atomic.Int32
	ready   chan struct{}
}

func (v *racingView) Build(ctx context.Context, b processor.Build) (processor.ViewModel, error) {
	vm, err := v.memoryView.Build(ctx, b)
	if err != nil {
		return nil, err
	}
	return racingBuild{view: v, ViewModel: vm}, nil
}

type racingBuild struct {
	processor.ViewModel
	view *racingView
}

func (b racingBuild) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	v := b.view
	switch v.arrived.Add(1) {
	case 1:
		select {
		case <-v.ready:
		case <-time.After(5 * time.Second):
		}
	case 2:
		close(v.ready)
	}
	return b.ViewModel.Apply(ctx, from, to, events)
}

// flakyStore fails its next reads, as a database that restarts would.
type flakyStore struct {
	eventstore.Store
	failures atomic.Int32
}

func (s *flakyStore) ReadTypes(ctx context.Context, after eventstore.Checkpoint, limit int, types []string) (eventstore.Page, error) {
	if s.failures.Add(-1) >= 0 {
		return eventstore.Page{}, errors.New("read tcp: connection reset by peer")
	}
	return s.Store.ReadTypes(ctx, after, limit, types)
}

// A store failure keeps the lease, shows in Status until a batch succeeds, and is retried.
func TestGroupRetriesStoreFailures(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 5)
	store := &flakyStore{Store: env.store}
	store.failures.Store(2)
	leases := &killableLeases{inner: env.leases}
	h := drivertest.NewRecorder(nil)
	g := startGroup(t, memoryConfig(store, env.cps, leases), saga("fines", h))
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events) }, "handled once the store is back")
	require.Equal(t, positionsOf(events), h.Positions())
	require.Less(t, store.failures.Load(), int32(0), "both failed reads were retried")
	require.Equal(t, int32(1), leases.taken.Load(), "a store failure does not give the lease up")
	drivertest.Eventually(t, 5*time.Second, func() bool {
		statuses, err := g.Status(context.Background())
		require.NoError(t, err)
		return statuses[0].LastError == nil
	}, "the batch that succeeded clears the error")
}
