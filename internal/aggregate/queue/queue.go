// Package queue holds, per stream, the commands of one process that wait to run on it, so that
// they are taken in turns by one leader at a time, a group at a time (package core decides and
// appends each group in one go).
package queue

import "sync"

// Queues hold, per stream, the commands of this process waiting to run on it. Commands
// on one stream would otherwise race to append at the same version and all but one decide
// again; queued here, they are taken in turns by one leader at a time, a group at a time, and
// each group is decided one command after another on the state the one before left and
// appended in one go. Replicas still race each other, and optimistic concurrency settles that.
type Queues[W comparable] struct {
	mu     sync.Mutex
	queues map[string]*queue[W]
}

type queue[W comparable] struct {
	waiting []W
	leading bool // a leader is taking this stream's groups
	// first holds the first command queued, so that a command alone on its stream, the usual
	// case, allocates no slice for it. Once taken it is never written again: waiting is cut to
	// no room in it.
	first [1]W
}

// New returns empty queues.
func New[W comparable]() *Queues[W] {
	return &Queues[W]{queues: make(map[string]*queue[W])}
}

// Enqueue queues w and reports whether its caller is to lead: nobody leads the stream yet.
func (s *Queues[W]) Enqueue(streamID string, w W) (lead bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[streamID]
	if q == nil {
		q = &queue[W]{}
		q.waiting = q.first[:0]
		s.queues[streamID] = q
	}
	q.waiting = append(q.waiting, w)
	if q.leading {
		return false
	}
	q.leading = true
	return true
}

// Take takes the stream's next group, the oldest first, up to limit commands. A command that
// is alone (a command with Also: its append spans another stream, and the group's would too)
// is a group of its own.
func (s *Queues[W]) Take(streamID string, limit int, alone func(W) bool) []W {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[streamID]
	n := min(limit, len(q.waiting))
	for i, w := range q.waiting[:n] {
		if alone(w) {
			n = max(i, 1)
			break
		}
	}
	group := q.waiting[:n:n]
	q.waiting = q.waiting[n:]
	return group
}

// Finish ends a group: it reports whether more commands wait, for the leader to go on;
// otherwise the stream has no leader, and no queue, any more.
func (s *Queues[W]) Finish(streamID string) (more bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[streamID]
	if len(q.waiting) > 0 {
		return true
	}
	delete(s.queues, streamID)
	return false
}

// Withdraw takes w out of the queue if it is still waiting there, and reports whether it was.
func (s *Queues[W]) Withdraw(streamID string, w W) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[streamID]
	if q == nil {
		return false
	}
	for i, queued := range q.waiting {
		if queued == w {
			q.waiting = append(q.waiting[:i:i], q.waiting[i+1:]...)
			return true
		}
	}
	return false
}

// Idle reports whether no stream has commands waiting or a leader: for tests.
func (s *Queues[W]) Idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queues) == 0
}

// Waiting is how many commands wait on a stream, not counting a group being run: for tests.
func (s *Queues[W]) Waiting(streamID string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.queues[streamID]; q != nil {
		return len(q.waiting)
	}
	return 0
}
