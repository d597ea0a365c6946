package memdriver

import (
	"context"
	"library/internal/processor"
	"slices"
	"sync"
	"time"

	"library/internal/eventstore"
)

// Checkpoints keeps checkpoints, deferred and parked events, timers, and the builds of
// view models, in the memory of one process.
type Checkpoints struct {
	now func() time.Time

	mu           sync.Mutex
	positions    map[string]processor.Position
	deferred     map[string]map[int64]processor.Deferred
	parked       map[string]map[int64]processor.Parked
	timers       map[string]map[string]memoryTimer  // by processor, then key
	timerVersion int64                              // the last version given to a timer
	builds       map[string][]memoryBuild           // by view, by number
	numbers      map[string]int                     // by view, the last number given to a build
	gone         map[string]bool                    // the names of the builds dropped
	readers      map[string]map[string]memoryReader // by view, then reader
}

var _ processor.Checkpoints = (*Checkpoints)(nil)

// NewCheckpoints returns empty checkpoints. now is the store's clock: it stamps parked
// events and says which timers are due; nil means time.Now.
func NewCheckpoints(now func() time.Time) *Checkpoints {
	if now == nil {
		now = time.Now
	}
	return &Checkpoints{
		now: now, positions: map[string]processor.Position{},
		deferred: map[string]map[int64]processor.Deferred{}, parked: map[string]map[int64]processor.Parked{},
		timers: map[string]map[string]memoryTimer{},
		builds: map[string][]memoryBuild{}, numbers: map[string]int{}, gone: map[string]bool{},
		readers: map[string]map[string]memoryReader{},
	}
}

// Load implements processor.Checkpoints.
func (m *Checkpoints) Load(ctx context.Context, name string) (processor.Position, error) {
	if err := ctx.Err(); err != nil {
		return processor.Position{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.positions[name], nil
}

// Save implements processor.Checkpoints.
func (m *Checkpoints) Save(ctx context.Context, name string, from, to processor.Position, changes ...processor.TimerChange) error {
	return m.SaveWith(ctx, name, from, to, func() { m.applyTimers(name, changes) })
}

// SaveWith moves the checkpoint like Save and, while holding the lock that guards it, calls
// apply: a view model in memory writes its rows there, so that rows and checkpoint move
// together. The checkpoint of a build that was dropped no longer moves: ErrBuildGone.
func (m *Checkpoints) SaveWith(ctx context.Context, name string, from, to processor.Position, apply func()) error {
	if err := processor.CheckForward(name, from, to); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gone[name] {
		return processor.ErrBuildGone
	}
	if m.positions[name] != from {
		return processor.ErrFenced
	}
	apply()
	m.positions[name] = to
	return nil
}

// Defer implements processor.Checkpoints.
func (m *Checkpoints) Defer(ctx context.Context, name string, d processor.Deferred) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deferred[name] == nil {
		m.deferred[name] = map[int64]processor.Deferred{}
	}
	if old, ok := m.deferred[name][d.Event.Position]; ok {
		d.Attempts = max(d.Attempts, old.Attempts)
	}
	d.Reason = processor.TruncateReason(d.Reason)
	m.deferred[name][d.Event.Position] = d
	return nil
}

// Due implements processor.Checkpoints.
func (m *Checkpoints) Due(ctx context.Context, name string, now time.Time, limit int) ([]processor.Deferred, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var due []processor.Deferred
	for _, d := range m.deferred[name] {
		if !d.NextAttempt.After(now) {
			due = append(due, d)
		}
	}
	slices.SortFunc(due, func(a, b processor.Deferred) int {
		if c := a.NextAttempt.Compare(b.NextAttempt); c != 0 {
			return c
		}
		return compareEvents(a.Event, b.Event)
	})
	if limit > 0 && len(due) > limit {
		due = due[:limit]
	}
	return due, nil
}

// NextAttempt implements processor.Checkpoints.
func (m *Checkpoints) NextAttempt(ctx context.Context, name string) (time.Time, bool, error) {
	if err := ctx.Err(); err != nil {
		return time.Time{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var next time.Time
	for _, d := range m.deferred[name] {
		if next.IsZero() || d.NextAttempt.Before(next) {
			next = d.NextAttempt
		}
	}
	return next, len(m.deferred[name]) > 0, nil
}

// Done implements processor.Checkpoints.
func (m *Checkpoints) Done(ctx context.Context, name string, position int64, changes ...processor.TimerChange) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.deferred[name], position)
	m.applyTimers(name, changes)
	return nil
}

// CountDeferred implements processor.Checkpoints.
func (m *Checkpoints) CountDeferred(ctx context.Context, name string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.deferred[name]), nil
}

// Park implements processor.Checkpoints.
func (m *Checkpoints) Park(ctx context.Context, name string, p processor.Parked) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.parked[name] == nil {
		m.parked[name] = map[int64]processor.Parked{}
	}
	p.Reason = processor.TruncateReason(p.Reason)
	p.ParkedAt = m.now().UTC()
	m.parked[name][p.Event.Position] = p
	delete(m.deferred[name], p.Event.Position)
	return nil
}

// CountParked implements processor.Checkpoints.
func (m *Checkpoints) CountParked(ctx context.Context, name string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.parked[name]), nil
}

// ListParked implements processor.Checkpoints.
func (m *Checkpoints) ListParked(ctx context.Context, name string, limit int) ([]processor.Parked, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]processor.Parked, 0, len(m.parked[name]))
	for _, p := range m.parked[name] {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b processor.Parked) int { return compareEvents(a.Event, b.Event) })
	if limit > 0 && len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// Requeue implements processor.Checkpoints.
func (m *Checkpoints) Requeue(ctx context.Context, name string, now time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := len(m.parked[name])
	if n > 0 && m.deferred[name] == nil {
		m.deferred[name] = map[int64]processor.Deferred{}
	}
	for position, p := range m.parked[name] {
		m.deferred[name][position] = processor.Deferred{Event: p.Event, Reason: p.Reason, NextAttempt: now}
	}
	delete(m.parked, name)
	return n, nil
}

// compareEvents orders events as the log does.
func compareEvents(a, b eventstore.Event) int {
	switch {
	case a.Checkpoint().Before(b.Checkpoint()):
		return -1
	case b.Checkpoint().Before(a.Checkpoint()):
		return 1
	}
	return 0
}
