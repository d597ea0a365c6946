package slots

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// closed reports whether c has been closed, without waiting.
func closed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// A key has limit slots; the waiters beyond are told one at a time, in the order they came,
// as slots free; other keys are not limited by it.
func TestTakeWaitsInOrder(t *testing.T) {
	var s Keyed
	r1, w := s.Take("a.example", 2)
	require.NotNil(t, r1)
	require.Nil(t, w)
	r2, _ := s.Take("a.example", 2)
	require.NotNil(t, r2)
	_, first := s.Take("a.example", 2)
	_, second := s.Take("a.example", 2)
	require.NotNil(t, first)
	require.False(t, closed(first))
	other, _ := s.Take("b.example", 2)
	require.NotNil(t, other, "another key has its own slots")

	r1()
	require.True(t, closed(first), "the first waiter is told")
	require.False(t, closed(second), "one slot freed, one waiter told")
	r1()
	require.False(t, closed(second), "a release counts once")

	r3, _ := s.Take("a.example", 2)
	require.NotNil(t, r3, "the waiter told takes the freed slot")
	_, third := s.Take("a.example", 2)
	require.NotNil(t, third, "full again")
}

// When nothing is in flight for a key any more, every waiter left is told: one told before
// may have gone without taking its slot.
func TestLastReleaseTellsEveryone(t *testing.T) {
	var s Keyed
	r, _ := s.Take("a.example", 1)
	_, w1 := s.Take("a.example", 1)
	_, w2 := s.Take("a.example", 1)
	r()
	require.True(t, closed(w1))
	require.True(t, closed(w2))
	again, _ := s.Take("a.example", 1)
	require.NotNil(t, again)
}

// WakeAll tells every waiter of every key and keeps the slots taken.
func TestWakeAll(t *testing.T) {
	var s Keyed
	ra, _ := s.Take("a.example", 1)
	rb, _ := s.Take("b.example", 1)
	_, wa := s.Take("a.example", 1)
	_, wb := s.Take("b.example", 1)
	s.WakeAll()
	require.True(t, closed(wa))
	require.True(t, closed(wb))
	_, full := s.Take("a.example", 1)
	require.NotNil(t, full, "the slots stay taken")
	ra()
	rb()
}
