package engine

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// A view model behind the log reads BatchSize events, and, once a read found as many as it asked
// for, CatchUpBatchSize at a time until it has caught up; then BatchSize again.
func TestAViewCatchesUpInLargerBatches(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 30)
	view := newMemoryView(env.cps)
	cfg := env.config()
	cfg.Options.BatchSize, cfg.Options.CatchUpBatchSize = 4, 10
	startGroup(t, cfg, viewModel("shelf", view))
	applied := func() int {
		rows, _, _ := view.snapshot()
		return len(rows)
	}
	drivertest.Eventually(t, 5*time.Second, func() bool { return applied() == len(events) }, "the view catches up")
	more := drivertest.AppendEvents(t, env.store, "member", 6)
	drivertest.Eventually(t, 5*time.Second, func() bool { return applied() == len(events)+len(more) }, "the view reads what came next")

	view.mu.Lock()
	batches := slices.Clone(view.batches)
	view.mu.Unlock()
	require.Equal(t, []int{4, 10, 10, 6}, batches[:4], "behind: 4, then 10 at a time, until a read finds fewer")
	for _, n := range batches[4:] {
		require.LessOrEqual(t, n, 4, "caught up, it reads BatchSize at a time again: %v", batches)
	}
	rows, _, _ := view.snapshot()
	require.Equal(t, positionsOf(append(events, more...)), rows)
}

// CatchUpBatchSize is 5,000 unless set, and never less than BatchSize.
func TestCatchUpBatchSizeDefaults(t *testing.T) {
	t.Parallel()
	require.Equal(t, 5000, processor.Options{}.WithDefaults().CatchUpBatchSize)
	require.Equal(t, 8000, processor.Options{BatchSize: 8000, CatchUpBatchSize: 10}.WithDefaults().CatchUpBatchSize)
}

// readLimits is a log that records how many events each read of it asked for.
type readLimits struct {
	eventstore.Store
	mu     sync.Mutex
	limits []int
}

func (r *readLimits) ReadTypes(ctx context.Context, after eventstore.Checkpoint, limit int, types []string) (eventstore.Page, error) {
	r.mu.Lock()
	r.limits = append(r.limits, limit)
	r.mu.Unlock()
	return r.Store.ReadTypes(ctx, after, limit, types)
}

func (r *readLimits) asked() []int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.limits)
}

// A saga behind the log reads BatchSize events, and, once a read found as many as it asked
// for, up to CatchUpBatchSize at a time until it has caught up; then BatchSize again. It
// handles each event once, in order, all the same.
func TestASagaCatchesUpInLargerReads(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 30)
	h := drivertest.NewRecorder(nil)
	log := &readLimits{Store: env.store}
	cfg := memoryConfig(log, env.cps, env.leases)
	cfg.Options.BatchSize, cfg.Options.CatchUpBatchSize = 4, 10
	startGroup(t, cfg, saga("fines", h))
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events) }, "the saga catches up")
	behind := log.asked()
	require.Equal(t, 4, behind[0], "its first read: %v", behind)
	require.Contains(t, behind, 10, "behind, it reads CatchUpBatchSize: %v", behind)

	events = append(events, drivertest.AppendEvents(t, env.store, "member", 3)...)
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events) }, "the saga reads what came next")
	for _, n := range log.asked()[len(behind):] {
		require.LessOrEqual(t, n, 4, "caught up, it reads BatchSize at a time again: %v", log.asked())
	}
	require.Equal(t, positionsOf(events), h.Positions())
}

// readAheadView is a memoryView whose builds, applying a full batch, wait for the read of the
// next one to start, and count the batches for which it did not.
type readAheadView struct {
	*memoryView
	log     *readLimits
	full    []int // the sizes of a full batch: BatchSize, CatchUpBatchSize
	applies int
	missed  int
}

func (v *readAheadView) Build(ctx context.Context, b processor.Build) (processor.ViewModel, error) {
	vm, err := v.memoryView.Build(ctx, b)
	return readAheadBuild{ViewModel: vm, view: v}, err
}

type readAheadBuild struct {
	processor.ViewModel
	view *readAheadView
}

func (b readAheadBuild) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	v := b.view
	v.mu.Lock()
	v.applies++
	want := v.applies + 1 // this batch's read and the next one's
	v.mu.Unlock()
	if slices.Contains(v.full, len(events)) {
		deadline := time.Now().Add(2 * time.Second)
		for len(v.log.asked()) < want && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond) // polling a condition, bounded by the deadline
		}
		if len(v.log.asked()) < want {
			v.mu.Lock()
			v.missed++
			v.mu.Unlock()
		}
	}
	return b.ViewModel.Apply(ctx, from, to, events)
}

// A view behind the log reads its next batch while it applies the one before, so that the
// database reads and writes for it at once.
func TestAViewReadsItsNextBatchWhileItApplies(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 30)
	log := &readLimits{Store: env.store}
	view := &readAheadView{memoryView: newMemoryView(env.cps), log: log, full: []int{4, 10}}
	cfg := memoryConfig(log, env.cps, env.leases)
	cfg.Options.BatchSize, cfg.Options.CatchUpBatchSize = 4, 10
	startGroup(t, cfg, viewModel("shelf", view))
	drivertest.Eventually(t, 10*time.Second, func() bool {
		rows, _, _ := view.snapshot()
		return len(rows) == len(events)
	}, "the view catches up")
	view.mu.Lock()
	defer view.mu.Unlock()
	require.Equal(t, []int{4, 10, 10, 6}, view.batches)
	require.Zero(t, view.missed, "full batches applied before the next read started")
	rows := view.rows["shelf"]
	require.Equal(t, positionsOf(events), rows, "each event once, in order")
}
