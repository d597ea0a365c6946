package eventstore

import (
	"bytes"
	"context"
	"crypto/rand"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"library/internal/errs"
	"library/internal/pii"
)

// Memory is a Store kept in the memory of one process. Appends are serialized by a mutex, so
// the global order is simply the order of appends. Nothing survives the process.
type Memory struct {
	now            func() time.Time
	installation   string
	fingerprintKey []byte

	mu          sync.RWMutex
	all         []Event
	streams     map[string][]int // indexes into all, in version order
	snapshots   map[string]Snapshot
	keys        map[string]pii.WrappedKey // members' data keys
	lastAppend  uint64
	subscribers Wakeups
}

var (
	_ Store      = (*Memory)(nil)
	_ DataReader = (*Memory)(nil)
)

// NewMemory returns an empty in-memory store. now stamps RecordedAt; nil means time.Now.
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, streams: make(map[string][]int), snapshots: make(map[string]Snapshot),
		keys: make(map[string]pii.WrappedKey), installation: rand.Text(), fingerprintKey: []byte(rand.Text())}
}

// Installation implements Store: a log in memory is a new installation every time.
func (m *Memory) Installation(ctx context.Context) (string, error) {
	return m.installation, ctx.Err()
}

// Append implements Store.
func (m *Memory) Append(ctx context.Context, streamID string, expectedVersion int64, events []NewEvent) ([]Event, error) {
	return m.appendThen(ctx, streamID, expectedVersion, events, func() {})
}

// appendThen appends, and calls also while the log is locked, once the append is certain.
func (m *Memory) appendThen(ctx context.Context, streamID string, expectedVersion int64, events []NewEvent, also func()) ([]Event, error) {
	if err := ValidateAppend(streamID, expectedVersion, events); err != nil {
		return nil, err
	}
	recorded, err := m.appendAll(ctx, []StreamAppend{{StreamID: streamID, ExpectedVersion: expectedVersion, Events: events}}, also)
	if err != nil {
		return nil, err
	}
	return recorded[0], nil
}

// AppendAll implements Store: the parts are checked and written under one lock, as one append.
func (m *Memory) AppendAll(ctx context.Context, parts []StreamAppend) ([][]Event, error) {
	if err := ValidateAppendAll(parts); err != nil {
		return nil, err
	}
	return m.appendAll(ctx, parts, func() {})
}

func (m *Memory) appendAll(ctx context.Context, parts []StreamAppend, also func()) ([][]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range parts {
		if int64(len(m.streams[p.StreamID])) != p.ExpectedVersion {
			return nil, &ConflictError{StreamID: p.StreamID, ExpectedVersion: p.ExpectedVersion}
		}
	}
	m.lastAppend++
	// Microseconds, like PostgreSQL, so that an event reads back exactly as it was returned.
	recordedAt := m.now().UTC().Truncate(time.Microsecond)
	out := make([][]Event, len(parts))
	order := []int{0} // one part, as every Append: no order to work out
	if len(parts) > 1 {
		order = WriteOrder(parts)
	}
	for _, j := range order {
		p := parts[j]
		recorded := make([]Event, len(p.Events))
		for i, e := range p.Events {
			ev := Event{
				StreamID:      p.StreamID,
				Version:       p.ExpectedVersion + int64(i) + 1,
				Position:      int64(len(m.all)) + 1,
				TransactionID: m.lastAppend,
				Type:          e.Type,
				Data:          bytes.Clone(e.Data),
				Metadata:      e.Metadata,
				RecordedAt:    recordedAt,
			}
			m.streams[p.StreamID] = append(m.streams[p.StreamID], len(m.all))
			m.all = append(m.all, ev)
			recorded[i] = clone(ev)
		}
		out[j] = recorded
	}
	also()
	m.subscribers.Wake(appendedTypes(parts)...)
	return out, nil
}

// WriteOrder is the order in which a store writes the parts of an AppendAll: by stream id,
// whatever the caller's order, so that two writes that touch the same streams take their locks
// in one order (and never deadlock), and every store gives one write's events the same
// positions.
func WriteOrder(parts []StreamAppend) []int {
	order := make([]int, len(parts))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(parts[a].StreamID, parts[b].StreamID) })
	return order
}

// ReadStream implements Store.
func (m *Memory) ReadStream(ctx context.Context, streamID string, afterVersion int64) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	head := int64(len(m.streams[streamID]))
	if afterVersion >= head {
		return []Event{}, nil
	}
	return m.versions(streamID, afterVersion+1, head), nil
}

// versions returns the stream's events with from <= version <= to, in version order. The
// caller holds m.mu.
func (m *Memory) versions(streamID string, from, to int64) []Event {
	indexes := m.streams[streamID]
	from, to = max(from, 1), min(to, int64(len(indexes)))
	if from > to {
		return []Event{}
	}
	out := make([]Event, 0, to-from+1)
	for _, i := range indexes[from-1 : to] {
		out = append(out, clone(m.all[i]))
	}
	return out
}

// ReadAll implements Store.
func (m *Memory) ReadAll(ctx context.Context, after Checkpoint, limit int) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	start := sort.Search(len(m.all), func(i int) bool { return after.Before(m.all[i].Checkpoint()) })
	end := len(m.all)
	if limit > 0 && start+limit < end {
		end = start + limit
	}
	out := make([]Event, 0, end-start)
	for _, e := range m.all[start:end] {
		out = append(out, clone(e))
	}
	return out, nil
}

// Subscribe implements Store.
func (m *Memory) Subscribe(ctx context.Context, types ...string) <-chan struct{} {
	return m.subscribers.Subscribe(ctx, types...)
}

// Ping implements Store; memory is always reachable.
func (m *Memory) Ping(ctx context.Context) error { return ctx.Err() }

// Head implements Store.
func (m *Memory) Head(ctx context.Context) (Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return Checkpoint{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if len(m.all) == 0 {
		return Checkpoint{}, nil
	}
	return m.all[len(m.all)-1].Checkpoint(), nil
}

// Locate implements Store.
func (m *Memory) Locate(ctx context.Context, position int64) (Checkpoint, error) {
	if err := ctx.Err(); err != nil {
		return Checkpoint{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	if position < 1 || position > int64(len(m.all)) {
		return Checkpoint{}, errs.E(errs.NotFound, "there is no event at position %d", position)
	}
	return m.all[position-1].Checkpoint(), nil
}

// LastPosition implements Store: positions are 1, 2, ... in the order of appends.
func (m *Memory) LastPosition(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return int64(len(m.all)), nil
}

// CountAfter implements Store.
func (m *Memory) CountAfter(ctx context.Context, after Checkpoint, types ...string) (int64, error) {
	return m.CountAfterUpTo(ctx, after, 0, types...)
}

// CountAfterUpTo implements Store.
func (m *Memory) CountAfterUpTo(ctx context.Context, after Checkpoint, atMost int64, types ...string) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	start := sort.Search(len(m.all), func(i int) bool { return after.Before(m.all[i].Checkpoint()) })
	var n int64
	for _, e := range m.all[start:] {
		if atMost > 0 && n == atMost {
			break
		}
		if len(types) == 0 || Reads(types, e.Type) {
			n++
		}
	}
	return n, nil
}

func clone(e Event) Event {
	e.Data = bytes.Clone(e.Data)
	return e
}
