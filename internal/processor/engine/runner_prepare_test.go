package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// A view whose builds prepare their batches (processor.Preparer) has each batch applied
// through what Prepare made of it, never through Apply, batches read ahead included; and a
// batch it fails to prepare is read and prepared again, as a failed Apply is tried again:
// every event applied once, in order.
func TestAViewThatPreparesItsBatchesAppliesWhatItPrepared(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 30)
	view := &preparingView{memoryView: newMemoryView(env.cps), failAt: events[17].Position}
	cfg := env.config()
	cfg.Options.BatchSize, cfg.Options.CatchUpBatchSize = 4, 5
	startGroup(t, cfg, viewModel("shelf", view))
	drivertest.Eventually(t, 5*time.Second, func() bool {
		rows, _, _ := view.snapshot()
		return len(rows) == len(events)
	}, "the view catches up")

	rows, applied, _ := view.snapshot()
	require.Equal(t, positionsOf(events), rows)
	for _, e := range events {
		require.Equal(t, 1, applied[e.Position], "position %d applied once", e.Position)
	}
	view.mu.Lock()
	defer view.mu.Unlock()
	require.Zero(t, view.unprepared, "no batch applied but as prepared")
	require.True(t, view.failed, "the batch of position %d failed to prepare once", view.failAt)
}

// preparingView is a memoryView whose builds prepare their batches, and fail to prepare the
// first batch that holds failAt.
type preparingView struct {
	*memoryView
	failAt     int64
	prepare    sync.Mutex
	failed     bool
	unprepared int // batches applied through Apply
}

func (v *preparingView) Build(ctx context.Context, b processor.Build) (processor.ViewModel, error) {
	vm, err := v.memoryView.Build(ctx, b)
	if err != nil {
		return nil, err
	}
	return preparingBuild{memoryViewBuild: vm.(memoryViewBuild), view: v}, nil
}

type preparingBuild struct {
	memoryViewBuild
	view *preparingView
}

func (b preparingBuild) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	b.view.mu.Lock()
	b.view.unprepared++
	b.view.mu.Unlock()
	return b.memoryViewBuild.Apply(ctx, from, to, events)
}

func (b preparingBuild) Prepare(events []eventstore.Event) (processor.Prepared, error) {
	b.view.prepare.Lock()
	defer b.view.prepare.Unlock()
	for _, e := range events {
		if e.Position == b.view.failAt && !b.view.failed {
			b.view.failed = true
			return nil, errors.New("an event that does not decode, this once")
		}
	}
	return preparedEvents{build: b.memoryViewBuild, events: events}, nil
}

// preparedEvents is a batch a preparingBuild prepared.
type preparedEvents struct {
	build  memoryViewBuild
	events []eventstore.Event
}

func (p preparedEvents) Apply(ctx context.Context, from, to processor.Position) error {
	return p.build.Apply(ctx, from, to, p.events)
}
