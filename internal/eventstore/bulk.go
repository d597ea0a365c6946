package eventstore

import "context"

// Bulk is a Store that also writes many streams' appends at the database's pace, for an import
// of many records at once: AppendBulk writes every part at its expected version, or none, as
// AppendAll does, and returns no events, so that a store may write them the fastest way it has
// (pgstore: COPY). What it writes reads back as AppendAll's would. On a conflict, the
// *ConflictError may name no stream.
type Bulk interface {
	AppendBulk(ctx context.Context, parts []StreamAppend) error
	// StreamVersions returns the version of each of the streams that exists; one that does
	// not is left out.
	StreamVersions(ctx context.Context, streamIDs []string) (map[string]int64, error)
	// ReadStreams returns the events of each of the streams that exists, in version order, as
	// ReadStream would, in one read; one that does not is left out.
	ReadStreams(ctx context.Context, streamIDs []string) (map[string][]Event, error)
}

// AppendBulk implements Bulk with AppendAll.
func (m *Memory) AppendBulk(ctx context.Context, parts []StreamAppend) error {
	_, err := m.AppendAll(ctx, parts)
	return err
}

// StreamVersions implements Bulk.
func (m *Memory) StreamVersions(ctx context.Context, streamIDs []string) (map[string]int64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]int64{}
	for _, id := range streamIDs {
		if n := len(m.streams[id]); n > 0 {
			out[id] = int64(n)
		}
	}
	return out, nil
}

// ReadStreams implements Bulk.
func (m *Memory) ReadStreams(ctx context.Context, streamIDs []string) (map[string][]Event, error) {
	out := map[string][]Event{}
	for _, id := range streamIDs {
		events, err := m.ReadStream(ctx, id, 0)
		if err != nil {
			return nil, err
		}
		if len(events) > 0 {
			out[id] = events
		}
	}
	return out, nil
}
