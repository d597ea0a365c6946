package eventstore

import (
	"bytes"
	"context"
	"maps"
	"slices"

	"library/internal/pii"
)

var _ pii.Store = (*Memory)(nil)

// isErased reports whether k is what m.keys holds for an erased member in place of their key
// (the zero WrappedKey: no KEK, nothing wrapped), so that they never get a key again.
func isErased(k pii.WrappedKey) bool { return k.KEKID == "" }

// DataKey implements pii.Store.
func (m *Memory) DataKey(ctx context.Context, owner string) (pii.WrappedKey, error) {
	if err := ctx.Err(); err != nil {
		return pii.WrappedKey{}, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	k, ok := m.keys[owner]
	if !ok || isErased(k) {
		return pii.WrappedKey{}, pii.ErrNoKey
	}
	return pii.WrappedKey{KEKID: k.KEKID, Wrapped: bytes.Clone(k.Wrapped)}, nil
}

// AddDataKey implements pii.Store: an erased member gets no key.
func (m *Memory) AddDataKey(ctx context.Context, owner string, k pii.WrappedKey) (pii.WrappedKey, error) {
	if err := ctx.Err(); err != nil {
		return pii.WrappedKey{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if kept, ok := m.keys[owner]; ok {
		if isErased(kept) {
			return pii.WrappedKey{}, pii.ErrErased
		}
		return pii.WrappedKey{KEKID: kept.KEKID, Wrapped: bytes.Clone(kept.Wrapped)}, nil
	}
	m.keys[owner] = pii.WrappedKey{KEKID: k.KEKID, Wrapped: bytes.Clone(k.Wrapped)}
	return k, nil
}

// RewrapDataKeys implements pii.Store, all or nothing.
func (m *Memory) RewrapDataKeys(ctx context.Context, rewrap func(pii.WrappedKey) (pii.WrappedKey, bool, error)) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	next := make(map[string]pii.WrappedKey, len(m.keys))
	n := 0
	for _, owner := range slices.Sorted(maps.Keys(m.keys)) {
		if isErased(m.keys[owner]) {
			next[owner] = m.keys[owner]
			continue
		}
		k, changed, err := rewrap(m.keys[owner])
		if err != nil {
			return 0, err
		}
		if changed {
			n++
		}
		next[owner] = k
	}
	m.keys = next
	return n, nil
}

// DeleteDataKey deletes owner's data key, if they have one: an erased member's key that a
// restore brought back. The member is marked erased, as Erase does.
func (m *Memory) DeleteDataKey(ctx context.Context, owner string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys[owner] = pii.WrappedKey{} // erased
	return nil
}

// Erase appends events and deletes owner's data key at once, marking them erased.
func (m *Memory) Erase(ctx context.Context, streamID string, expectedVersion int64, events []NewEvent, owner string) ([]Event, error) {
	return m.appendThen(ctx, streamID, expectedVersion, events, func() { m.keys[owner] = pii.WrappedKey{} })
}

// FingerprintKey returns the secret of this log's keyed fingerprints: new for every memory log.
func (m *Memory) FingerprintKey(ctx context.Context) ([]byte, error) {
	return bytes.Clone(m.fingerprintKey), ctx.Err()
}
