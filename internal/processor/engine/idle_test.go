package engine

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/testkit/drivertest"
)

// idleRecorder records events, and counts the times it was told the processor is idle while it
// held something open (an event came since the last Idle).
type idleRecorder struct {
	*drivertest.Recorder
	open  atomic.Bool
	idles atomic.Int32
}

func (r *idleRecorder) Handle(ctx context.Context, e eventstore.Event) error {
	r.open.Store(true)
	return r.Recorder.Handle(ctx, e)
}

func (r *idleRecorder) Idle() {
	if r.open.Swap(false) {
		r.idles.Add(1)
	}
}

// A handler keeps its connection across batches while events come, and is told to close it
// once they stop, and when the processor stops.
func TestGroupTellsAnIdlerWhenEventsStop(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	h := &idleRecorder{Recorder: drivertest.NewRecorder(nil)}
	cfg := env.config()
	cfg.Options.BatchSize = 2
	g := startGroup(t, cfg, outbox("emails", h))

	events := drivertest.AppendEvents(t, env.store, "book", 7) // four batches
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events) }, "the events are handled")
	require.LessOrEqual(t, h.idles.Load(), int32(1), "not told after each batch")
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.idles.Load() == 1 && !h.open.Load() }, "told once events stop")

	drivertest.AppendEvents(t, env.store, "member", 1)
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(events)+1 }, "the next event is handled")
	stopGroup(t, g)
	require.False(t, h.open.Load(), "told when the processor stops")
}
