package memdriver_test

import (
	"testing"
	"time"

	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/testkit/drivertest"
)

// The memory driver keeps the contract the PostgreSQL one keeps (package pgdriver runs the same
// suite), so that what the engine's tests show in memory holds on PostgreSQL too.

func TestMemoryCheckpoints(t *testing.T) {
	t.Parallel()
	drivertest.TestCheckpoints(t, func(*testing.T) processor.Checkpoints { return memdriver.NewCheckpoints(nil) })
}

func TestMemoryForgetMember(t *testing.T) {
	t.Parallel()
	drivertest.TestForgetMember(t, func(*testing.T) drivertest.Forgetter { return memdriver.NewCheckpoints(nil) })
}

func TestMemoryLeases(t *testing.T) {
	t.Parallel()
	drivertest.TestLeases(t, func(*testing.T) processor.Leases { return memdriver.NewLeases() })
}

// The memory driver's clock is its own (here years away from the machine's): what is due is
// due by it.
func TestMemoryTimers(t *testing.T) {
	t.Parallel()
	drivertest.TestTimers(t, func(*testing.T) drivertest.TimerStore {
		now := func() time.Time { return time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC) }
		return drivertest.TimerStore{C: memdriver.NewCheckpoints(now), Now: now}
	})
}

func TestMemoryBuilds(t *testing.T) {
	t.Parallel()
	drivertest.TestBuilds(t, func(*testing.T) drivertest.BuildsStore { return memdriver.NewCheckpoints(nil) })
}
