package processor

import (
	"context"
	"sort"
	"sync"
	"time"
)

// MemoryCheckpoints keeps checkpoints and parked events in the memory of one process.
type MemoryCheckpoints struct {
	now func() time.Time

	mu        sync.Mutex
	positions map[string]Position
	parked    map[string]map[int64]*memoryParked
}

type memoryParked struct {
	Parked
	requeued bool
}

var _ Checkpoints = (*MemoryCheckpoints)(nil)

// NewMemoryCheckpoints returns empty checkpoints. now stamps parked events; nil means time.Now.
func NewMemoryCheckpoints(now func() time.Time) *MemoryCheckpoints {
	if now == nil {
		now = time.Now
	}
	return &MemoryCheckpoints{now: now, positions: map[string]Position{}, parked: map[string]map[int64]*memoryParked{}}
}

// Load implements Checkpoints.
func (m *MemoryCheckpoints) Load(ctx context.Context, name string) (Position, error) {
	if err := ctx.Err(); err != nil {
		return Position{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.positions[name], nil
}

// Save implements Checkpoints.
func (m *MemoryCheckpoints) Save(ctx context.Context, name string, from, to Position) error {
	return m.SaveWith(ctx, name, from, to, func() {})
}

// SaveWith moves the checkpoint like Save and, while holding the lock that guards it, calls
// apply: a view model in memory writes its rows there, so that rows and checkpoint move
// together.
func (m *MemoryCheckpoints) SaveWith(ctx context.Context, name string, from, to Position, apply func()) error {
	if err := checkForward(name, from, to); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.positions[name] != from {
		return ErrFenced
	}
	apply()
	m.positions[name] = to
	return nil
}

// Park implements Checkpoints.
func (m *MemoryCheckpoints) Park(ctx context.Context, name string, p Parked) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.parked[name] == nil {
		m.parked[name] = map[int64]*memoryParked{}
	}
	p.Reason = truncateReason(p.Reason)
	p.ParkedAt = m.now().UTC()
	m.parked[name][p.Event.Position] = &memoryParked{Parked: p}
	return nil
}

// CountParked implements Checkpoints.
func (m *MemoryCheckpoints) CountParked(ctx context.Context, name string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.parked[name]), nil
}

// Requeue implements Checkpoints.
func (m *MemoryCheckpoints) Requeue(ctx context.Context, name string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.parked[name] {
		p.requeued = true
	}
	return len(m.parked[name]), nil
}

// Requeued implements Checkpoints.
func (m *MemoryCheckpoints) Requeued(ctx context.Context, name string, limit int) ([]Parked, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Parked
	for _, p := range m.parked[name] {
		if p.requeued {
			out = append(out, p.Parked)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Event.Checkpoint().Before(out[j].Event.Checkpoint()) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Unpark implements Checkpoints.
func (m *MemoryCheckpoints) Unpark(ctx context.Context, name string, position int64) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.parked[name], position)
	return nil
}
