package eventstore

import (
	"context"
	"sort"
	"time"
)

// ReadTypes implements Store: it passes over the events of other types, and Through is the
// last event it passed (every event there is, when fewer than limit were found).
func (m *Memory) ReadTypes(ctx context.Context, after Checkpoint, limit int, types []string) (Page, error) {
	return m.readWhere(ctx, after, limit, func(e Event) bool { return Reads(types, e.Type) })
}

// ReadOlder implements OlderReader: ReadTypes of the events below schema version below.
func (m *Memory) ReadOlder(ctx context.Context, after Checkpoint, limit int, types []string, below int) (Page, error) {
	if len(types) == 0 {
		return Page{}, ErrNoTypes
	}
	return m.readWhere(ctx, after, limit, func(e Event) bool { return Reads(types, e.Type) && Older(e, below) })
}

// readWhere reads at most limit events that reads takes after after, and passes over the rest.
func (m *Memory) readWhere(ctx context.Context, after Checkpoint, limit int, reads func(Event) bool) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	page := Page{Events: []Event{}, Through: after}
	start := sort.Search(len(m.all), func(i int) bool { return after.Before(m.all[i].Checkpoint()) })
	for _, e := range m.all[start:] {
		if limit > 0 && len(page.Events) == limit {
			break
		}
		page.Through = e.Checkpoint()
		if reads(e) {
			page.Events = append(page.Events, clone(e))
		}
	}
	return page, nil
}

// ReadData implements DataReader: ReadTypes, each event with its schema version alone of its
// metadata.
func (m *Memory) ReadData(ctx context.Context, after Checkpoint, limit int, types []string) (Page, error) {
	page, err := m.ReadTypes(ctx, after, limit, types)
	for i, e := range page.Events {
		page.Events[i] = DataOnly(e)
	}
	return page, err
}

// appendedTypes are the distinct types of the events of parts, in the order they first come.
func appendedTypes(parts []StreamAppend) []string {
	var types []string
	for _, p := range parts {
		for _, e := range p.Events {
			types = AddType(types, e.Type)
		}
	}
	return types
}

// AddType adds t to types unless it is there already: for the few distinct types of an append,
// a slice is smaller and quicker than a set.
func AddType(types []string, t string) []string {
	for _, have := range types {
		if have == t {
			return types
		}
	}
	return append(types, t)
}

// GrewAt is when the log last grew (zero: never).
func (m *Memory) GrewAt() time.Time { return m.subscribers.GrewAt() }
