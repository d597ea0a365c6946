package eventstore

import (
	"context"
	"errors"
	"fmt"
)

// Snapshot is a stream folded up to Version (whose last event is at Position), kept so that a
// load reads only the events after it. SchemaVersion is the aggregate type's snapshot version:
// a snapshot of another version is never returned. State and Window are the aggregate's own
// encodings.
type Snapshot struct {
	StreamID      string
	Version       int64
	Position      int64
	SchemaVersion int
	State         []byte
	Window        []byte
}

// Snapshots keeps one snapshot per stream beside the log. Snapshots are a cache of the log:
// they are written after the command's commit, never inside it, and a snapshot that does not
// match the log is ignored, never misread (see the package comment).
type Snapshots interface {
	// SaveSnapshot keeps s as its stream's snapshot. It replaces the stored one only when
	// s.Version is higher, when the stored one has another SchemaVersion, or when the stored
	// one no longer matches the log; otherwise it keeps the stored one and returns nil, so a
	// slow writer never moves a snapshot back. A snapshot whose event (StreamID, Version) is
	// not in the log at Position is refused with an error that wraps ErrSnapshotMismatch.
	SaveSnapshot(ctx context.Context, s Snapshot) error
	// LoadStream returns the stream's snapshot of schemaVersion and the stream's events after
	// it, in version order, read together in one consistent read. The snapshot is nil (and the
	// events are all of the stream's) when there is none, when it is of another schema
	// version, or when it does not match the log: the event at its version missing or at
	// another position.
	LoadStream(ctx context.Context, streamID string, schemaVersion int) (*Snapshot, []Event, error)
	// DeleteSnapshot removes the stream's snapshot, if it has one.
	DeleteSnapshot(ctx context.Context, streamID string) error
}

// VersionReader reads a stretch of a stream by version: to rebuild a past command's answer
// from the events it wrote.
type VersionReader interface {
	// ReadVersions returns the stream's events with from <= version <= to, in version order;
	// none (not an error) when there are none.
	ReadVersions(ctx context.Context, streamID string, from, to int64) ([]Event, error)
}

var (
	_ Snapshots     = (*Memory)(nil)
	_ VersionReader = (*Memory)(nil)
)

// ErrSnapshotMismatch is wrapped by the error of a SaveSnapshot whose snapshot is not of the
// log: its version is ahead of the stream, or the event at its version is at another position.
var ErrSnapshotMismatch = errors.New("eventstore: the snapshot does not match the log")

// ValidateSnapshot checks a snapshot as every SaveSnapshot does before it looks at the log: a
// stream id and a version of 1 or more.
func ValidateSnapshot(s Snapshot) error {
	switch {
	case s.StreamID == "":
		return fmt.Errorf("eventstore: a snapshot needs a stream id")
	case s.Version < 1:
		return fmt.Errorf("eventstore: snapshot of %q at version %d: versions start at 1", s.StreamID, s.Version)
	}
	return nil
}

// Mismatch is the error of a SaveSnapshot whose snapshot s is not of the log: it wraps
// ErrSnapshotMismatch.
func Mismatch(s Snapshot) error {
	return fmt.Errorf("%w: %q has no event at version %d and position %d", ErrSnapshotMismatch, s.StreamID, s.Version, s.Position)
}

// cloneSnapshot copies the snapshot's bytes; empty ones come back empty, not nil, as they do
// from PostgreSQL.
func cloneSnapshot(s Snapshot) Snapshot {
	s.State, s.Window = append([]byte{}, s.State...), append([]byte{}, s.Window...)
	return s
}
