package aggregate

import (
	"context"
	"sync"
)

// streamLocks lets one command at a time run on each stream in this process. Commands on one
// stream would otherwise race to append at the same version and all but one decide again;
// queued here, they run one after another, each on the state the last one left. Replicas still
// race each other, and optimistic concurrency settles that.
type streamLocks struct {
	mu    sync.Mutex
	locks map[string]*streamLock
}

type streamLock struct {
	held    chan struct{} // holds a value while the lock is held
	waiters int           // commands holding or waiting for the lock; guarded by streamLocks.mu
}

func newStreamLocks() *streamLocks { return &streamLocks{locks: make(map[string]*streamLock)} }

// lock waits for the stream's lock, or for ctx to end, and returns the function that unlocks.
func (s *streamLocks) lock(ctx context.Context, streamID string) (unlock func(), err error) {
	s.mu.Lock()
	l, ok := s.locks[streamID]
	if !ok {
		l = &streamLock{held: make(chan struct{}, 1)}
		s.locks[streamID] = l
	}
	l.waiters++
	s.mu.Unlock()

	select {
	case l.held <- struct{}{}:
		return func() { <-l.held; s.release(streamID, l) }, nil
	case <-ctx.Done():
		s.release(streamID, l)
		return nil, ctx.Err()
	}
}

func (s *streamLocks) release(streamID string, l *streamLock) {
	s.mu.Lock()
	defer s.mu.Unlock()
	l.waiters--
	if l.waiters == 0 {
		delete(s.locks, streamID)
	}
}
