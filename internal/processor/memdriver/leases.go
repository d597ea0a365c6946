package memdriver

import (
	"context"
	"sync"

	"library/internal/processor"
)

// Leases are leases within one process: the first to ask holds a lease, and the next
// in line gets it on Release. A single replica in memory mode always holds its leases.
type Leases struct {
	mu   sync.Mutex
	held map[string]chan struct{} // closed on release
}

var _ processor.Leases = (*Leases)(nil)

// NewLeases returns leases that nobody holds yet.
func NewLeases() *Leases {
	return &Leases{held: map[string]chan struct{}{}}
}

// Acquire implements processor.Leases.
func (m *Leases) Acquire(ctx context.Context, name string) (processor.Lease, error) {
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
	leases *Leases
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
