package aggregate

import (
	"unique"

	"sync"

	"library/internal/aggregate/window"
	"library/internal/eventstore"
)

// waiter is a command waiting for its turn on a stream.
type waiter[S any] struct {
	cmd Command[S]
	fp  window.Fingerprint // the payload's
	// legacyFP is the payload's unkeyed fingerprint, as commands recorded before keyed ones
	// carry it: a retry across that change is still recognised.
	legacyFP window.Fingerprint
	meta     eventstore.Metadata // what its events carry
	done     chan outcome        // buffered: the leader never waits for the caller
}

// waiterIdentity is what decides whether a command is a repeat of a past one.
type waiterIdentity struct {
	name         string
	fp, legacyFP window.Fingerprint
	actor        unique.Handle[window.Person]
}

func (w *waiter[S]) identity() waiterIdentity {
	return waiterIdentity{name: w.cmd.Name, fp: w.fp, legacyFP: w.legacyFP, actor: window.PersonOf(w.meta.Actor)}
}

type outcome struct {
	result Result
	err    error
}

// streamQueues hold, per stream, the commands of this process waiting to run on it. Commands
// on one stream would otherwise race to append at the same version and all but one decide
// again; queued here, they are taken in turns by one leader at a time, a group at a time, and
// each group is decided one command after another on the state the one before left and
// appended in one go. Replicas still race each other, and optimistic concurrency settles that.
type streamQueues[S any] struct {
	mu     sync.Mutex
	queues map[string]*streamQueue[S]
}

type streamQueue[S any] struct {
	waiting []*waiter[S]
	leading bool // a leader is taking this stream's groups
}

func newStreamQueues[S any]() *streamQueues[S] {
	return &streamQueues[S]{queues: make(map[string]*streamQueue[S])}
}

// enqueue queues w and reports whether its caller is to lead: nobody leads the stream yet.
func (s *streamQueues[S]) enqueue(streamID string, w *waiter[S]) (lead bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[streamID]
	if q == nil {
		q = &streamQueue[S]{}
		s.queues[streamID] = q
	}
	q.waiting = append(q.waiting, w)
	if q.leading {
		return false
	}
	q.leading = true
	return true
}

// take takes the stream's next group, the oldest first, up to limit commands. A command with
// Also is a group of its own: its append spans another stream, and the group's would too.
func (s *streamQueues[S]) take(streamID string, limit int) []*waiter[S] {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[streamID]
	n := min(limit, len(q.waiting))
	for i, w := range q.waiting[:n] {
		if w.cmd.Also != nil {
			n = max(i, 1)
			break
		}
	}
	group := q.waiting[:n:n]
	q.waiting = q.waiting[n:]
	return group
}

// finish ends a group: it reports whether more commands wait, for the leader to go on;
// otherwise the stream has no leader, and no queue, any more.
func (s *streamQueues[S]) finish(streamID string) (more bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.queues[streamID]
	if len(q.waiting) > 0 {
		return true
	}
	delete(s.queues, streamID)
	return false
}

// withdraw takes w out of the queue if it is still waiting there, and reports whether it was.
func (s *streamQueues[S]) withdraw(streamID string, w *waiter[S]) bool {
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

// idle reports whether no stream has commands waiting or a leader: for tests.
func (s *streamQueues[S]) idle() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queues) == 0
}
