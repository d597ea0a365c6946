// Package cache is the aggregate.Store that keeps recently used aggregates in memory: it wraps
// another, and keeps each stream's aggregate as the last load folded it or the last append left
// it, with its command window, so that a command on a long stream costs what one on a short
// stream does. It is bounded by an estimate of the bytes it holds (Type.Weigh weighs a state),
// least recently used out first; a missing aggregate is loaded by the store it wraps.
//
// Every event in it came from the log or was decided and recorded by a successful append, and
// a kept state is cloned before anything is folded onto it (Type.Clone), so a kept aggregate
// can be behind the log, never wrong about what it holds.
//
// A command on a kept aggregate is decided without reading the log, and appended at the kept
// version. When another process has appended since, that append fails on the version, and the
// events after it are read and the command decided again: so a command id recorded elsewhere is
// found before anything is written twice. An append is the only proof that a kept aggregate was
// current; a refusal or a "nothing to do" is decided again after reading the log, so neither
// is ever the answer of a stale state. Load always reads what came after the kept version.
//
// The log is append-only: a kept aggregate assumes that the events it folded are still there.
// A log restored to an earlier version is noticed (an append fails and nothing follows the kept
// version) and read whole; a log replaced by a different history of the same length or longer
// is not, so restart the service after restoring its database.
package cache

import (
	"context"

	"library/internal/aggregate"
)

// defaultStateBytes is a state's weight when its type gives no Weigh.
const defaultStateBytes = 256

// Store wraps a store of aggregates of type S, keeping recent ones in memory.
type Store[S any] struct {
	aggregate.Store[S]
	name     string
	kept     *lru[S]
	observer aggregate.Observer
}

// Wrap returns inner with up to about limit bytes of t's aggregates kept in memory; observer
// (nil: nobody) is told of every lookup a load makes. t.Clone must be set.
func Wrap[S any](inner aggregate.Store[S], t aggregate.Type[S], limit int, observer aggregate.Observer) *Store[S] {
	weigh := t.Weigh
	if weigh == nil {
		weigh = func(S) int { return defaultStateBytes }
	}
	return &Store[S]{Store: inner, name: t.Name, kept: newLRU[S](limit, weigh), observer: observer}
}

// Load starts from the kept aggregate, reading nothing, or from what the wrapped store loads.
func (s *Store[S]) Load(ctx context.Context, streamID string) (aggregate.Start[S], error) {
	loaded, ok := s.kept.get(streamID)
	if s.observer != nil {
		s.observer.CacheLookup(s.name, ok, s.kept.bytes())
	}
	if ok {
		return aggregate.Start[S]{From: &loaded, Kept: true}, nil
	}
	return s.Store.Load(ctx, streamID)
}

// Peek returns the kept aggregate, if any.
func (s *Store[S]) Peek(streamID string) (aggregate.Loaded[S], bool) { return s.kept.get(streamID) }

// Keep keeps loaded, unless a newer aggregate of the stream is kept, and passes it on.
func (s *Store[S]) Keep(ctx context.Context, streamID string, from int64, loaded aggregate.Loaded[S]) func(context.Context) {
	s.kept.put(streamID, loaded)
	return s.Store.Keep(ctx, streamID, from, loaded)
}

// Drop forgets the kept aggregate, and passes it on.
func (s *Store[S]) Drop(streamID string) {
	s.kept.drop(streamID)
	s.Store.Drop(streamID)
}

// Bytes is the estimate of what the kept aggregates take.
func (s *Store[S]) Bytes() int { return s.kept.bytes() }
