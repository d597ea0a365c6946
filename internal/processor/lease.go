package processor

import (
	"context"
	"sync"
)

// Leases hands out the right to run a processor: at most one holder per name at a time.
type Leases interface {
	// Acquire blocks until this replica holds the lease called name, or ctx ends (then it
	// returns ctx's error). Failures to reach the lease's backing store are retried inside.
	Acquire(ctx context.Context, name string) (Lease, error)
}

// Lease is a held lease.
type Lease interface {
	// Lost is closed when the lease can no longer be trusted: the holder must stop at once.
	// It is also closed by Release.
	Lost() <-chan struct{}
	// Fresh reports whether the lease can still be trusted right now. Lost is closed by a
	// goroutine; Fresh is for the moment before an action, so that a holder that was paused
	// (a long GC, a stopped process) does not act on a lease that ran out meanwhile.
	Fresh() bool
	// Release gives the lease up so that a standby can take it at once.
	Release()
}

// MemoryLeases are leases within one process: the first to ask holds a lease, and the next
// in line gets it on Release. A single replica in memory mode always holds its leases.
type MemoryLeases struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed on release
}

var _ Leases = (*MemoryLeases)(nil)

// NewMemoryLeases returns leases that nobody holds yet.
func NewMemoryLeases() *MemoryLeases {
	return &MemoryLeases{held: map[string]chan struct{}{}}
}

// Acquire implements Leases.
func (m *MemoryLeases) Acquire(ctx context.Context, name string) (Lease, error) {
	for {
		m.mu.Lock()
		released, taken := m.held[name]
		if !taken {
			lost := make(chan struct{})
			m.held[name] = lost
			m.mu.Unlock()
			return &memoryLease{leases: m, name: name, lost: lost}, nil
		}
		m.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-released:
		}
	}
}

type memoryLease struct {
	leases *MemoryLeases
	name   string
	lost   chan struct{}
	once   sync.Once
}

func (l *memoryLease) Lost() <-chan struct{} { return l.lost }

func (l *memoryLease) Fresh() bool {
	select {
	case <-l.lost:
		return false
	default:
		return true
	}
}

func (l *memoryLease) Release() {
	l.once.Do(func() {
		l.leases.mu.Lock()
		delete(l.leases.held, l.name)
		close(l.lost)
		l.leases.mu.Unlock()
	})
}
