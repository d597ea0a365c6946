package eventstore

import "context"

// SaveSnapshot implements Snapshots.
func (m *Memory) SaveSnapshot(ctx context.Context, s Snapshot) error {
	if err := ValidateSnapshot(s); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.matches(s) {
		return Mismatch(s)
	}
	stored, ok := m.snapshots[s.StreamID]
	if ok && stored.Version >= s.Version && stored.SchemaVersion == s.SchemaVersion && m.matches(stored) {
		return nil // never moved back
	}
	m.snapshots[s.StreamID] = cloneSnapshot(s)
	return nil
}

// LoadStream implements Snapshots.
func (m *Memory) LoadStream(ctx context.Context, streamID string, schemaVersion int) (*Snapshot, []Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	head := int64(len(m.streams[streamID]))
	s, ok := m.snapshots[streamID]
	if !ok || s.SchemaVersion != schemaVersion || !m.matches(s) {
		return nil, m.versions(streamID, 1, head), nil
	}
	s = cloneSnapshot(s)
	return &s, m.versions(streamID, s.Version+1, head), nil
}

// DeleteSnapshot implements Snapshots.
func (m *Memory) DeleteSnapshot(ctx context.Context, streamID string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.snapshots, streamID)
	return nil
}

// ReadVersions implements VersionReader.
func (m *Memory) ReadVersions(ctx context.Context, streamID string, from, to int64) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.versions(streamID, from, to), nil
}

// matches reports whether the log holds the snapshot's event: its stream's event at its
// version, at its position. The caller holds m.mu.
func (m *Memory) matches(s Snapshot) bool {
	indexes := m.streams[s.StreamID]
	return s.Version >= 1 && s.Version <= int64(len(indexes)) && m.all[indexes[s.Version-1]].Position == s.Position
}
