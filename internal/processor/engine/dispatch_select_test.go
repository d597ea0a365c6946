package engine

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/testkit/drivertest"
)

// selecting is a handler that selects the events at the positions in selected alone.
type selecting struct {
	*drivertest.Recorder
	selected map[int64]bool // set before the processor starts
	asked    map[int64]int  // by position: how often Selects was asked, on the dispatcher's goroutine
}

func (h selecting) Selects(e eventstore.Event) bool {
	h.asked[e.Position]++
	return h.selected[e.Position]
}

// A handler that selects events is handed those it selects only, each looked at once; the
// others are passed over as handled: the checkpoint moves past them and is saved at once when
// nothing is in hand (not passedSaveEvery later, as past events of types it does not read),
// and the lag counts none of them.
func TestAProcessorPassesOverTheEventsItsHandlerDoesNotSelect(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	h := selecting{Recorder: drivertest.NewRecorder(nil), selected: map[int64]bool{}, asked: map[int64]int{}}
	var selected []int64
	for i := range 40 {
		e := appendOne(t, env.store, "BookAdded", i)
		if i%3 == 0 {
			h.selected[e.Position] = true
			selected = append(selected, e.Position)
		}
	}
	g := startGroup(t, env.config(), saga("adopt", h))
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == len(selected) }, "the selected events are handled")

	var last eventstore.Event
	for i := range 10 {
		last = appendOne(t, env.store, "BookAdded", 100+i)
	}
	drivertest.Eventually(t, passedSaveEvery/2, func() bool {
		return drivertest.LoadPosition(t, env.cps, "adopt").Checkpoint == last.Checkpoint()
	}, "the checkpoint passes events none of which is selected, and is saved at once")
	status, err := g.Status(context.Background())
	require.NoError(t, err)
	require.Zero(t, status[0].Lag)
	require.NoError(t, g.Stop(context.Background()))

	require.Equal(t, selected, h.Positions(), "only the selected events are handled")
	for p := range last.Position {
		require.Equal(t, 1, h.asked[p+1], "the event at %d is looked at once", p+1)
	}
}
