package eventstore

import (
	"context"
	"errors"
	"slices"
)

// Page is what a read of some event types returns (Store.ReadTypes).
type Page struct {
	// Events are the events of the types asked for, in the log's global order.
	Events []Event
	// Through is how far the read looked: the checkpoint of the last event, of any type, that
	// it passed. It is at least the last returned event's, and at least the checkpoint read
	// from. Reading again from Through misses no event of the types asked for, so a reader can
	// move past the events it does not read without reading them.
	Through Checkpoint
}

// TypeReader is the part of the log a processor reads through: the events of the types it
// handles, and wake-ups for those types only.
type TypeReader interface {
	// ReadTypes returns at most limit events of the given types (every type when types is
	// empty) that come after the checkpoint in the log's global order, and how far it looked.
	ReadTypes(ctx context.Context, after Checkpoint, limit int, types []string) (Page, error)
}

// DataReader is a TypeReader that can leave out what a view model never reads. ReadData is
// ReadTypes, but its events carry, of their Metadata, the schema version alone: the rest, about
// the command that wrote the event, is empty. A view folds events into rows by their data, and
// a log far ahead of a view saves extracting and sending the rest for every event it reads.
type DataReader interface {
	ReadData(ctx context.Context, after Checkpoint, limit int, types []string) (Page, error)
}

// An OlderReader reads, of some types, only the events written at a schema version below a
// bound: what a reader that upgrades the log's older events reads (package adoption), the
// newer passed over in the store, rather than read and decoded to be passed over. Its Page is
// ReadTypes' without the newer events: Through moves past them as past other types'. It reads
// some types, at least one (ErrNoTypes otherwise).
type OlderReader interface {
	ReadOlder(ctx context.Context, after Checkpoint, limit int, types []string, below int) (Page, error)
}

// ErrNoTypes is what an OlderReader returns for a read that names no type.
var ErrNoTypes = errors.New("eventstore: a read of older events names at least one type")

// Older reports whether e was written at a schema version below below (version 1 for an
// event that records none).
func Older(e Event, below int) bool { return max(e.Metadata.Schema, 1) < below }

// DataOnly is e with its Metadata's schema version alone: what DataReader reads.
func DataOnly(e Event) Event {
	e.Metadata = Metadata{Schema: e.Metadata.Schema}
	return e
}

// Reads reports whether a reader of types reads events of type t: every type does when types
// is empty.
func Reads(types []string, t string) bool {
	return len(types) == 0 || slices.Contains(types, t)
}

// readsAny reports whether a reader of types reads any of the appended types: every reader
// does when appended is empty (what was appended is not known).
func readsAny(types, appended []string) bool {
	if len(types) == 0 || len(appended) == 0 {
		return true
	}
	for _, t := range appended {
		if slices.Contains(types, t) {
			return true
		}
	}
	return false
}
