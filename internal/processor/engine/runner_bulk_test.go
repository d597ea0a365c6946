package engine

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// bulkView is a memoryView whose builds write in bulk (processor.BulkWriter) from bulkFrom
// events: it records each call, with the position the build had applied up to.
type bulkView struct {
	*memoryView
	bulkFrom int64
	calls    []string      // "start@N", "end@N": N the position passed
	ending   chan struct{} // when set, EndBulk waits for it to close
}

func (v *bulkView) Build(ctx context.Context, b processor.Build) (processor.ViewModel, error) {
	vm, err := v.memoryView.Build(ctx, b)
	if err != nil {
		return nil, err
	}
	return bulkViewBuild{memoryViewBuild: vm.(memoryViewBuild), view: v}, nil
}

func (v *bulkView) record(call string, at processor.Position) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.calls = append(v.calls, fmt.Sprintf("%s@%d", call, at.Checkpoint.Position))
}

func (v *bulkView) recorded() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Clone(v.calls)
}

type bulkViewBuild struct {
	memoryViewBuild
	view *bulkView
}

func (b bulkViewBuild) BulkFrom(context.Context) (int64, error) { return b.view.bulkFrom, nil }

func (b bulkViewBuild) StartBulk(_ context.Context, at processor.Position) error {
	b.view.record("start", at)
	return nil
}

func (b bulkViewBuild) EndBulk(ctx context.Context, at processor.Position) error {
	b.view.record("end", at)
	if b.view.ending == nil {
		return nil
	}
	select {
	case <-b.view.ending:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// statusOf is what g's Status says of the processor name.
func statusOf(t *testing.T, g *Group, name string) processor.Status {
	t.Helper()
	all, err := g.Status(context.Background())
	require.NoError(t, err)
	for _, s := range all {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no status of %s in %+v", name, all)
	return processor.Status{}
}

// A view far behind the log (at least BulkFrom events of its types after its checkpoint) is
// told to write in bulk after its first full read, and told to end it once it has caught up;
// a later catch-up shorter than BulkFrom is written as usual.
func TestAViewFarBehindCatchesUpInBulk(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	events := drivertest.AppendEvents(t, env.store, "book", 30)
	view := &bulkView{memoryView: newMemoryView(env.cps), bulkFrom: 20, ending: make(chan struct{})}
	cfg := env.config()
	cfg.Options.BatchSize, cfg.Options.CatchUpBatchSize = 4, 10
	g := startGroup(t, cfg, viewModel("shelf", view))
	applied := func() int {
		rows, _, _ := view.snapshot()
		return len(rows)
	}
	drivertest.Eventually(t, 5*time.Second, func() bool { return len(view.recorded()) == 2 }, "the view catches up in bulk")
	require.Equal(t, []string{"start@4", "end@30"}, view.recorded(), "bulk from its first full read until it caught up")
	require.Equal(t, len(events), applied())
	s := statusOf(t, g, "shelf")
	require.True(t, s.Bulk && s.Lag == 0, "caught up, and in bulk until what it put off is whole: %+v", s)
	close(view.ending)
	drivertest.Eventually(t, 5*time.Second, func() bool { return !statusOf(t, g, "shelf").Bulk }, "bulk ends")

	more := drivertest.AppendEvents(t, env.store, "member", 6)
	drivertest.Eventually(t, 5*time.Second, func() bool { return applied() == len(events)+len(more) }, "the view reads what came next")
	require.Equal(t, []string{"start@4", "end@30"}, view.recorded(), "6 events behind is not far")
}

// A view that is not far behind is not written in bulk, but the first time it catches up after
// taking the lease it is told to end bulk all the same, so that what a holder that died in
// bulk put off is made whole; and only then.
func TestAViewNotFarBehindEndsBulkOnceAHolding(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	drivertest.AppendEvents(t, env.store, "book", 12)
	view := &bulkView{memoryView: newMemoryView(env.cps), bulkFrom: 20}
	cfg := env.config()
	cfg.Options.BatchSize, cfg.Options.CatchUpBatchSize = 4, 10
	startGroup(t, cfg, viewModel("shelf", view))
	drivertest.Eventually(t, 5*time.Second, func() bool { return len(view.recorded()) == 1 }, "the view catches up")
	require.Equal(t, []string{"end@12"}, view.recorded())

	drivertest.AppendEvents(t, env.store, "member", 6)
	drivertest.Eventually(t, 5*time.Second, func() bool {
		rows, _, _ := view.snapshot()
		return len(rows) == 18
	}, "the view reads what came next")
	require.Equal(t, []string{"end@12"}, view.recorded(), "once a holding")
}
