package stack_test

import (
	"testing"

	"library/internal/aggregate"
	"library/internal/aggregate/stack"
	"library/internal/eventstore"
	"library/internal/pii"
	"library/internal/testkit/aggregatetest"
)

// Every layer at once: sealed, snapshotted, kept.
func TestContract(t *testing.T) {
	aggregatetest.Contract(t, func(_ *testing.T, log *eventstore.Memory) aggregate.Store[aggregatetest.Tally] {
		ring := pii.NewKeyring(pii.KEKs{pii.NewKEK("1", [32]byte{1})}, log)
		return stack.Store(log, aggregatetest.Type(), aggregate.Options{Cipher: ring, SnapshotEvery: 10})
	})
}

// Upcasters run on every path a stored event is read by, on the memory log.
func TestUpcasting(t *testing.T) {
	aggregatetest.Upcasting(t, func(*testing.T) aggregate.Log { return eventstore.NewMemory(nil) })
}
