package memdriver

import (
	"cmp"
	"context"
	"library/internal/processor"
	"slices"
	"time"
)

// memoryTimer is a timer as Checkpoints keeps it.
type memoryTimer struct {
	processor.Timer
	version int64
	fireAt  time.Time // At, or the next attempt after a failed fire
}

// applyTimers writes changes in order. The caller holds m.mu.
func (m *Checkpoints) applyTimers(name string, changes []processor.TimerChange) {
	for _, c := range changes {
		if c.Cancel {
			delete(m.timers[name], c.Key)
			continue
		}
		if m.timers[name] == nil {
			m.timers[name] = map[string]memoryTimer{}
		}
		m.timerVersion++
		m.timers[name][c.Key] = memoryTimer{
			Timer:   processor.Timer{Key: c.Key, At: c.At, Data: c.Data},
			version: m.timerVersion, fireAt: c.At,
		}
	}
}

// DueTimers implements processor.Timers.
func (m *Checkpoints) DueTimers(ctx context.Context, name string, limit int) ([]processor.DueTimer, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	var due []memoryTimer
	for _, t := range m.timers[name] {
		if !t.fireAt.After(now) {
			due = append(due, t)
		}
	}
	slices.SortFunc(due, func(a, b memoryTimer) int {
		return cmp.Or(a.fireAt.Compare(b.fireAt), a.At.Compare(b.At), cmp.Compare(a.Key, b.Key))
	})
	if limit > 0 && len(due) > limit {
		due = due[:limit]
	}
	out := make([]processor.DueTimer, len(due))
	for i, t := range due {
		out[i] = processor.DueTimer{Timer: t.Timer, Version: t.version, Late: now.Sub(t.At)}
	}
	return out, nil
}

// UntilNextTimer implements processor.Timers.
func (m *Checkpoints) UntilNextTimer(ctx context.Context, name string) (time.Duration, bool, error) {
	stats, err := m.TimerStats(ctx, name)
	return stats.UntilNext, stats.Waiting > 0, err
}

// FinishTimers implements processor.Timers.
func (m *Checkpoints) FinishTimers(ctx context.Context, name string, fired ...processor.FiredTimer) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, f := range fired {
		if t, ok := m.timers[name][f.Key]; ok && t.version == f.Version {
			delete(m.timers[name], f.Key)
		}
		m.applyTimers(name, f.Changes)
	}
	return nil
}

// RetryTimer implements processor.Timers.
func (m *Checkpoints) RetryTimer(ctx context.Context, name string, fired processor.DueTimer, reason string, after time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	t, ok := m.timers[name][fired.Key]
	if !ok || t.version != fired.Version {
		return nil
	}
	t.Attempts++
	t.LastError = processor.TruncateReason(reason)
	t.fireAt = m.now().Add(after)
	m.timers[name][fired.Key] = t
	return nil
}

// TimerStats implements processor.Timers.
func (m *Checkpoints) TimerStats(ctx context.Context, name string) (processor.TimerStats, error) {
	if err := ctx.Err(); err != nil {
		return processor.TimerStats{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	var s processor.TimerStats
	for _, t := range m.timers[name] {
		s.Waiting++
		if t.Attempts > 0 {
			s.Failing++
		}
		if s.NextDue.IsZero() || t.fireAt.Before(s.NextDue) {
			s.NextDue = t.fireAt
		}
		s.OldestOverdue = max(s.OldestOverdue, now.Sub(t.At))
	}
	if s.Waiting > 0 {
		s.UntilNext = s.NextDue.Sub(now)
	}
	return s, nil
}
