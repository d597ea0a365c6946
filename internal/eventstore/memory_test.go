package eventstore

import "testing"

func TestMemory(t *testing.T) {
	t.Parallel()
	testContract(t, func(*testing.T) Store { return NewMemory(nil) })
	testPositions(t, func(*testing.T) Store { return NewMemory(nil) })
}
