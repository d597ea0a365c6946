// Package snapshots is the aggregate.Store that keeps snapshots: it wraps another, and gives a
// stream a snapshot every Every events: its state, in the type's own encoding
// (Type.Snapshot), and its window of command ids, kept by the log beside its events
// (eventstore.Snapshots). A stream is loaded from its snapshot and the events after it, in one
// round trip, so that a cold load costs the same on any history.
//
// A snapshot is written after the commit that passed the mark, once the commands of the append
// have their answers (the work Keep returns); and after a load that read a tail that long (a
// stream from before snapshots, or whose snapshot was dropped). A snapshot that can't be
// written is only logged: it is a cache of the log, and the next will do. The log gives back
// only a snapshot that matches it (the event at its version is there, at its position), and
// only one of the type's current codec version: a state that changes shape bumps the version,
// and its old snapshots are ignored and written again, never misread. One that can't be
// decoded is ignored too, and the stream read whole.
//
// The window keeps, per command, its key, the fingerprint of its payload, its name, who ran it
// and the versions of the events it wrote, but not the events: a replay reads them back from
// the log, where they are the first answer, byte for byte.
package snapshots

import (
	"context"
	"log/slog"
	"time"

	"library/internal/aggregate"
	"library/internal/aggregate/window"
	"library/internal/eventstore"
)

// Sealer seals the snapshots of states that hold personal values (package sealing's
// Snapshots).
type Sealer[S any] interface {
	// Seal returns what to store of state's encoding; write false: nothing is to be written.
	Seal(ctx context.Context, streamID string, version int64, state S, encoded []byte) (stored []byte, write bool, err error)
	// Open returns a stored snapshot's encoding; ok false: it is to be ignored (and was logged).
	Open(ctx context.Context, snap *eventstore.Snapshot) (encoded []byte, ok bool)
}

// Options are what a Store needs besides the store it wraps.
type Options[S any] struct {
	// Every is how many events of a stream come between two of its snapshots: above 0.
	Every int
	// CommandIDsPerStream is the size of a stream's window of command ids.
	CommandIDsPerStream int
	// Sealer, when set, seals snapshots of personal states.
	Sealer Sealer[S]
	// Logger hears of snapshots that could not be written or read.
	Logger *slog.Logger
}

// Store wraps a store of aggregates of type S, keeping their snapshots in log.
type Store[S any] struct {
	aggregate.Store[S]
	log   aggregate.Log
	typ   aggregate.Type[S]
	codec *aggregate.SnapshotCodec[S]
	opts  Options[S]
}

// Wrap returns inner with snapshots of t's streams (t.Snapshot must be set) kept in log.
func Wrap[S any](inner aggregate.Store[S], log aggregate.Log, t aggregate.Type[S], opts Options[S]) *Store[S] {
	return &Store[S]{Store: inner, log: log, typ: t, codec: t.Snapshot, opts: opts}
}

// writeTimeout bounds the writing of one snapshot.
const writeTimeout = 5 * time.Second

// Load starts a stream from its snapshot, if it has one that can be read, or from its start.
func (s *Store[S]) Load(ctx context.Context, streamID string) (aggregate.Start[S], error) {
	snap, stored, err := s.log.LoadStream(ctx, streamID, s.codec.Version)
	if err != nil {
		return aggregate.Start[S]{}, err
	}
	if snap == nil {
		return aggregate.Start[S]{Stored: stored}, nil
	}
	if kept, ok := s.fromSnapshot(ctx, snap); ok {
		return aggregate.Start[S]{From: &kept, Stored: stored}, nil
	}
	stored, err = s.log.ReadStream(ctx, streamID, 0)
	return aggregate.Start[S]{Stored: stored}, err
}

// fromSnapshot is the aggregate a snapshot holds; ok is false (and the snapshot is to be
// ignored) when it can't be read.
func (s *Store[S]) fromSnapshot(ctx context.Context, snap *eventstore.Snapshot) (aggregate.Loaded[S], bool) {
	encoded := snap.State
	if s.opts.Sealer != nil {
		var ok bool
		if encoded, ok = s.opts.Sealer.Open(ctx, snap); !ok {
			return aggregate.Loaded[S]{}, false
		}
	}
	state, err := s.codec.Decode(encoded)
	if err != nil {
		s.opts.Logger.Warn("snapshot ignored: its state can't be read", "aggregate", s.typ.Name, "version", snap.Version, "error", err)
		return aggregate.Loaded[S]{}, false
	}
	commands, err := window.Decode(snap.Window, s.opts.CommandIDsPerStream)
	if err != nil {
		s.opts.Logger.Warn("snapshot ignored: its window can't be read", "aggregate", s.typ.Name, "version", snap.Version, "error", err)
		return aggregate.Loaded[S]{}, false
	}
	return aggregate.Loaded[S]{State: state, Version: snap.Version, Position: snap.Position, Commands: commands}, true
}

// Keep passes loaded on, and returns the writing of its snapshot when one is due: when the
// stream passed a multiple of Every, or a load read a tail that long.
func (s *Store[S]) Keep(ctx context.Context, streamID string, from int64, loaded aggregate.Loaded[S]) func(context.Context) {
	later := s.Store.Keep(ctx, streamID, from, loaded)
	n := int64(s.opts.Every)
	if after := loaded.Version; after <= from || (after/n == from/n && after-from < n) {
		return later
	}
	return func(ctx context.Context) {
		if later != nil {
			later(ctx)
		}
		s.write(ctx, streamID, loaded)
	}
}

// write writes loaded as its stream's snapshot. It runs after the commit that brought the
// stream there, outside any command's transaction, and a failure only logs.
func (s *Store[S]) write(ctx context.Context, streamID string, loaded aggregate.Loaded[S]) {
	state, err := s.codec.Encode(loaded.State)
	if err == nil && s.opts.Sealer != nil {
		var write bool
		if state, write, err = s.opts.Sealer.Seal(ctx, streamID, loaded.Version, loaded.State, state); err == nil && !write {
			return
		}
	}
	if err == nil {
		var encoded []byte
		if encoded, err = window.Encode(loaded.Commands); err == nil {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), writeTimeout)
			defer cancel()
			err = s.log.SaveSnapshot(ctx, eventstore.Snapshot{StreamID: streamID, Version: loaded.Version,
				Position: loaded.Position, SchemaVersion: s.codec.Version, State: state, Window: encoded})
		}
	}
	if err != nil {
		s.opts.Logger.Warn("snapshot not written", "aggregate", s.typ.Name, "version", loaded.Version, "error", err)
	}
}
