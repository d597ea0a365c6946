package processor_test

import (
	"testing"

	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// The memory drivers keep the contract the PostgreSQL ones keep (package pgdriver runs the same
// suite), so that what the engine's tests show in memory holds on PostgreSQL too.

func TestMemoryCheckpoints(t *testing.T) {
	t.Parallel()
	drivertest.TestCheckpoints(t, func(*testing.T) processor.Checkpoints { return processor.NewMemoryCheckpoints(nil) })
}

func TestMemoryForgetMember(t *testing.T) {
	t.Parallel()
	drivertest.TestForgetMember(t, func(*testing.T) drivertest.Forgetter { return processor.NewMemoryCheckpoints(nil) })
}

func TestMemoryLeases(t *testing.T) {
	t.Parallel()
	drivertest.TestLeases(t, func(*testing.T) processor.Leases { return processor.NewMemoryLeases() })
}
