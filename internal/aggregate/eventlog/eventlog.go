// Package eventlog is the plain aggregate.Store: a type's streams read from and appended to
// the event store as they are, events encoded as JSON with their schema versions and read back
// through their types' upcasters, nothing kept in memory, no snapshots, nothing sealed. The
// other stores (packages cache, snapshots, sealing) wrap it, and decode through it.
package eventlog

import (
	"context"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
)

// Store is the plain store of aggregates of type S in a log.
type Store[S any] struct {
	log     aggregate.Log
	typ     aggregate.Type[S]
	decoder aggregate.Decoder
}

// New returns the plain store of t's aggregates in log.
func New[S any](log aggregate.Log, t aggregate.Type[S]) *Store[S] {
	return &Store[S]{log: log, typ: t, decoder: aggregate.NewDecoder(t.Events)}
}

// Load reads the stream from its start.
func (s *Store[S]) Load(ctx context.Context, streamID string) (aggregate.Start[S], error) {
	stored, err := s.log.ReadStream(ctx, streamID, 0)
	return aggregate.Start[S]{Stored: stored}, err
}

// Peek finds nothing: the plain store keeps nothing.
func (s *Store[S]) Peek(string) (aggregate.Loaded[S], bool) { return aggregate.Loaded[S]{}, false }

// ReadAfter reads the stream's events after version.
func (s *Store[S]) ReadAfter(ctx context.Context, streamID string, version int64) ([]eventstore.Event, error) {
	return s.log.ReadStream(ctx, streamID, version)
}

// ReadVersions reads the stream's events from version from to to.
func (s *Store[S]) ReadVersions(ctx context.Context, streamID string, from, to int64) ([]eventstore.Event, error) {
	return s.log.ReadVersions(ctx, streamID, from, to)
}

// Decode decodes stored events with the type's codecs, each upcast from the schema version it
// was stored at: nil for a NothingChanged marker. An event written by a newer release than
// this one is an errs.Unavailable error (aggregate.NewerSchemaError), which a caller may try
// again; any other that can't be read is an errs.Internal one.
func (s *Store[S]) Decode(_ context.Context, streamID string, stored []eventstore.Event) ([]aggregate.Event, error) {
	out := make([]aggregate.Event, len(stored))
	for i, e := range stored {
		if e.Type == aggregate.NothingChanged {
			continue
		}
		event, err := s.decoder.Decode(e)
		if err != nil {
			if errs.Is(err, errs.Unavailable) {
				return nil, err
			}
			return nil, errs.Wrap(errs.Internal, err, "stream %s cannot be read", streamID)
		}
		out[i] = event
	}
	return out, nil
}

// Encode encodes decided events as JSON, each with the schema version of its type.
func (s *Store[S]) Encode(_ context.Context, _ string, decided []aggregate.Event, meta eventstore.Metadata, _ int64) ([]eventstore.NewEvent, error) {
	return aggregate.Encode(s.typ.Events, decided, meta)
}

// Append appends: with a command that forgets its owner, the append also deletes the owner's
// data key, in its transaction; with a command's Also, the append spans the other streams too.
func (s *Store[S]) Append(ctx context.Context, a aggregate.Append) ([]eventstore.Event, error) {
	switch {
	case len(a.Also) > 0:
		parts, err := s.log.AppendAll(ctx, append([]eventstore.StreamAppend{
			{StreamID: a.StreamID, ExpectedVersion: a.Version, Events: a.Events}}, a.Also...))
		if err != nil {
			return nil, err
		}
		return parts[0], nil
	case a.Forget:
		return s.log.Erase(ctx, a.StreamID, a.Version, a.Events, s.typ.Owner(a.StreamID))
	default:
		return s.log.Append(ctx, a.StreamID, a.Version, a.Events)
	}
}

// Keep keeps nothing.
func (s *Store[S]) Keep(context.Context, string, int64, aggregate.Loaded[S]) func(context.Context) {
	return nil
}

// Drop has nothing to drop.
func (s *Store[S]) Drop(string) {}
