package engine

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/testkit/drivertest"
)

// failingParks are checkpoints whose Park fails while failing is set, as a database that
// refuses the write would.
type failingParks struct {
	*memdriver.Checkpoints
	failing atomic.Bool
	tries   atomic.Int32
}

func (c *failingParks) Park(ctx context.Context, name string, p processor.Parked) error {
	c.tries.Add(1)
	if c.failing.Load() {
		return errors.New("write tcp 10.0.0.7:5432: connection reset by peer")
	}
	return c.Checkpoints.Park(ctx, name, p)
}

// An event the handler parks, while parking it fails, is neither passed over nor lost: the
// checkpoint stays before it, Park is tried again, and once it succeeds the event is parked,
// once, and the processor goes on.
func TestGroupKeepsAnEventWhoseParkFails(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	cps := &failingParks{Checkpoints: env.cps}
	cps.failing.Store(true)
	events := drivertest.AppendEvents(t, env.store, "book", 3)
	refused := events[1]
	h := drivertest.NewRecorder(func(_ context.Context, e eventstore.Event, _ int) error {
		if e.Position == refused.Position {
			return processor.Park("550 5.1.1 no such mailbox")
		}
		return nil
	})
	startGroup(t, memoryConfig(env.store, cps, env.leases), outbox("emails", h))

	drivertest.Eventually(t, 10*time.Second, func() bool { return cps.tries.Load() >= 3 }, "Park tried again after failing")
	require.True(t, drivertest.LoadPosition(t, cps, "emails").Checkpoint.Before(refused.Checkpoint()),
		"the checkpoint stays before an event that is neither handled nor parked")
	require.Empty(t, parkedOf(t, cps, "emails"))

	cps.failing.Store(false)
	last := events[len(events)-1].Checkpoint()
	drivertest.Eventually(t, 10*time.Second, func() bool { return drivertest.LoadPosition(t, cps, "emails").Checkpoint == last },
		"the processor goes on once Park succeeds")
	parked := parkedOf(t, cps, "emails")
	require.Len(t, parked, 1)
	require.Equal(t, refused.Position, parked[0].Event.Position)
	require.Equal(t, "550 5.1.1 no such mailbox", parked[0].Reason)
}
