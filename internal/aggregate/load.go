package aggregate

import (
	"context"

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
	commands window.Window
}

// Load folds an aggregate's events into its state, up to the stream's current version.
func (r *Repository[S]) Load(ctx context.Context, id string) (Loaded[S], error) {
	streamID := r.typ.StreamID(id)
	if kept, ok := r.kept(streamID); ok {
		return r.catchUp(ctx, streamID, kept)
	}
	return r.loadAll(ctx, streamID)
}

// kept is the cache's entry for a stream, its lookup told to the observer.
func (r *Repository[S]) kept(streamID string) (Loaded[S], bool) {
	if r.cache == nil {
		return Loaded[S]{}, false
	}
	loaded, ok := r.cache.get(streamID)
	r.opts.Observer.CacheLookup(r.typ.Name, ok, r.cache.bytes())
	return loaded, ok
}

// LoadAtLeast returns an aggregate folded at least to version: a kept one without reading the
// log when it is recent enough, otherwise what Load returns. It serves readers of the log that
// have seen an event of the stream and need its state from no earlier than that event.
func (r *Repository[S]) LoadAtLeast(ctx context.Context, id string, version int64) (Loaded[S], error) {
	if kept, ok := r.cache.get(r.typ.StreamID(id)); ok && kept.Version >= version {
		return kept, nil
	}
	return r.Load(ctx, id)
}

// loadAll reads a stream from its snapshot, if it has one, or from its start; a long read is
// followed by a snapshot, so that the next cold load is short.
func (r *Repository[S]) loadAll(ctx context.Context, streamID string) (Loaded[S], error) {
	empty := Loaded[S]{State: r.typ.New(), commands: window.New(r.opts.CommandIDsPerStream)}
	if !r.snapshots() {
		stored, err := r.log.ReadStream(ctx, streamID, 0)
		if err != nil {
			return Loaded[S]{}, err
		}
		return r.fold(ctx, streamID, empty, stored, false)
	}
	snap, stored, err := r.log.LoadStream(ctx, streamID, r.typ.Snapshot.Version)
	if err != nil {
		return Loaded[S]{}, err
	}
	from := empty
	if snap != nil {
		if kept, ok := r.fromSnapshot(ctx, snap); ok {
			from = kept
		} else if stored, err = r.log.ReadStream(ctx, streamID, 0); err != nil {
			return Loaded[S]{}, err
		}
	}
	loaded, err := r.fold(ctx, streamID, from, stored, false)
	if err == nil && r.due(from.Version, loaded.Version) {
		r.snapshot(ctx, streamID, loaded)
	}
	return loaded, err
}

// catchUp reads the events that came after from and folds them onto it.
func (r *Repository[S]) catchUp(ctx context.Context, streamID string, from Loaded[S]) (Loaded[S], error) {
	stored, err := r.log.ReadStream(ctx, streamID, from.Version)
	if err != nil {
		return Loaded[S]{}, err
	}
	return r.fold(ctx, streamID, from, stored, true)
}

// fold applies stored events, which follow from's version, to a copy of from and keeps the
// result in the cache.
func (r *Repository[S]) fold(ctx context.Context, streamID string, from Loaded[S], stored []eventstore.Event, shared bool) (Loaded[S], error) {
	if len(stored) == 0 {
		return from, nil
	}
	events, err := r.decodeAll(ctx, streamID, stored)
	if err != nil {
		r.cache.drop(streamID)
		return Loaded[S]{}, err
	}
	next := from
	if shared && r.cache != nil {
		next.State = r.typ.Clone(from.State) // the kept state must not change
	}
	for i, e := range stored {
		next.Version, next.Position = e.Version, e.Position
		if events[i] != nil {
			next.State = r.typ.Apply(next.State, events[i])
		}
	}
	next.commands = from.commands.With(stored)
	r.cache.put(streamID, next)
	return next, nil
}

// reload brings loaded up to the log after an append at its version failed. The log had moved
// on, so reading after that version finds events; when it finds none, the log does not hold
// what was kept (it was restored or replaced), and the stream is read whole.
func (r *Repository[S]) reload(ctx context.Context, streamID string, loaded Loaded[S]) (Loaded[S], error) {
	next, err := r.catchUp(ctx, streamID, loaded)
	if err != nil || next.Version != loaded.Version {
		return next, err
	}
	r.cache.drop(streamID)
	return r.loadAll(ctx, streamID)
}
