// Package slots limits what is in flight for each key (each recipient domain, for the outbox):
// at most a limit at once, the rest waiting in the order they came. A holder that takes a slot
// releases it once, however often it calls its release; a waiter is told, by a channel closed,
// when a slot may be free, and takes it then or goes away. Nothing is lost if it goes away: a
// key with nothing in flight tells every waiter left.
package slots

import "sync"

// Keyed counts what is in flight for each key, and keeps, per key, the waiters for a slot:
// one is told each time a slot frees. Its zero value is ready for use; it must not be copied.
type Keyed struct {
	mu       sync.Mutex
	inFlight map[string]int
	waiting  map[string][]chan struct{}
}

// Take takes a slot for key when one of limit is free, and returns its release. Otherwise it
// returns a channel that is closed when a slot may be free: when one is released and this
// waiter is first in line, or when nothing is in flight for the key any more (a waiter told
// before it may have gone).
func (s *Keyed) Take(key string, limit int) (release func(), wait <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight == nil {
		s.inFlight, s.waiting = map[string]int{}, map[string][]chan struct{}{}
	}
	if s.inFlight[key] >= limit {
		c := make(chan struct{})
		s.waiting[key] = append(s.waiting[key], c)
		return nil, c
	}
	s.inFlight[key]++
	var once sync.Once
	return func() { once.Do(func() { s.release(key) }) }, nil
}

func (s *Keyed) release(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight[key]--
	w := s.waiting[key]
	switch {
	case s.inFlight[key] == 0:
		// Nothing in flight: whoever still waits can go. This also wakes a waiter whose
		// predecessor was told and then went away without taking the slot.
		for _, c := range w {
			close(c)
		}
		delete(s.inFlight, key)
		delete(s.waiting, key)
	case len(w) > 0:
		close(w[0])
		if len(w) == 1 {
			delete(s.waiting, key)
		} else {
			s.waiting[key] = w[1:]
		}
	}
}

// WakeAll tells every waiter to try again (the outbox is idle, or stops here).
func (s *Keyed) WakeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for key, w := range s.waiting {
		for _, c := range w {
			close(c)
		}
		delete(s.waiting, key)
	}
}
