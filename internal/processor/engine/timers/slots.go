package timers

import "sync"

// fireSlots counts the fires under way, for the loop that starts them, which alone waits on them.
type fireSlots struct {
	mu      sync.Mutex
	running int
	freed   chan struct{} // sent to (without blocking) when a fire ends
}

// take waits until fewer than limit() fires are under way, and counts one more.
func (s *fireSlots) take(limit func() int) {
	for {
		s.mu.Lock()
		if s.running < limit() {
			s.running++
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		<-s.freed
	}
}

// give counts a fire that ended.
func (s *fireSlots) give() {
	s.mu.Lock()
	s.running--
	s.mu.Unlock()
	select {
	case s.freed <- struct{}{}:
	default:
	}
}
