package aggregate

import (
	"context"
	"strings"

	"library/internal/aggregate/window"
	"library/internal/eventstore"
)

// Loaded is an aggregate's state as folded from its stream. The state may be shared with other
// commands: read it, never change it.
type Loaded[S any] struct {
	State S
	// Version is the stream's version: 0 when the aggregate has no events.
	Version int64
	// Position is the global position of the stream's last event.
	Position int64
	// Commands are the stream's last keyed commands, as its events up to Version record them.
	Commands window.Window
}

// Store is the log as a repository (package core) sees it: where it reads a stream from and
// appends to it. Package eventlog is the plain one, on the event store; packages cache,
// snapshots and sealing each wrap a Store in another, that keeps the same promises (the suite
// in internal/testkit/aggregatetest checks them) and adds one thing: kept aggregates, snapshots,
// sealed personal values.
type Store[S any] interface {
	// Load starts a stream's aggregate: from one kept in memory (Start.Kept: nothing was read,
	// and it may be behind the log, never wrong about what it holds), or from a snapshot or the
	// stream's start, with the events after it, to be folded onto it.
	Load(ctx context.Context, streamID string) (Start[S], error)
	// Peek returns the aggregate kept in memory for a stream, if any, reading nothing.
	Peek(streamID string) (Loaded[S], bool)
	// ReadAfter returns the stream's events after version.
	ReadAfter(ctx context.Context, streamID string, version int64) ([]eventstore.Event, error)
	// ReadVersions returns the stream's events from version from to version to, both included.
	ReadVersions(ctx context.Context, streamID string, from, to int64) ([]eventstore.Event, error)
	// Decode decodes a stream's stored events as they were decided: nil for a NothingChanged
	// marker.
	Decode(ctx context.Context, streamID string, stored []eventstore.Event) ([]Event, error)
	// Encode encodes the events one command decided, the first to be at version first, each
	// with the command's metadata, as they are to be stored. decided is not changed.
	Encode(ctx context.Context, streamID string, decided []Event, meta eventstore.Metadata, first int64) ([]eventstore.NewEvent, error)
	// Append appends, all or nothing, at a.Version: an *eventstore.ConflictError when the
	// stream (or Also's stream) is at another version.
	Append(ctx context.Context, a Append) ([]eventstore.Event, error)
	// Keep is told a stream's aggregate as a load folded it (from the version it started at)
	// or an append left it. It returns work to do once the commands of the append have their
	// answers, or nil.
	Keep(ctx context.Context, streamID string, from int64, loaded Loaded[S]) (later func(context.Context))
	// Drop forgets what is kept of a stream: the log does not hold what was kept.
	Drop(streamID string)
}

// Start is where a stream's aggregate starts, as Store.Load found it.
type Start[S any] struct {
	// From is the aggregate the stored events follow; nil: the stream's start.
	From *Loaded[S]
	// Kept: From was kept in memory, and nothing was read.
	Kept bool
	// Stored are the events after From.
	Stored []eventstore.Event
}

// Append is one append of a repository's: Events at Version of StreamID.
type Append struct {
	StreamID string
	Version  int64
	Events   []eventstore.NewEvent
	// Forget: the append deletes the owner's data key in its transaction (Command.Forget).
	Forget bool
	// Also are the other streams' parts of a command with Also, appended with it: none for none.
	Also []eventstore.StreamAppend
}

// Owner is the aggregate id of a stream of t's: whose personal values its events hold.
func (t Type[S]) Owner(streamID string) string { return strings.TrimPrefix(streamID, t.Name+"-") }
