package core

import (
	"context"

	"library/internal/aggregate"
	"library/internal/aggregate/window"
	"library/internal/eventstore"
)

// Load folds an aggregate's events into its state, up to the stream's current version.
func (r *Repository[S]) Load(ctx context.Context, id string) (aggregate.Loaded[S], error) {
	return r.load(ctx, r.typ.StreamID(id))
}

// LoadAtLeast returns an aggregate folded at least to version: a kept one without reading the
// log when it is recent enough, otherwise what Load returns. It serves readers of the log that
// have seen an event of the stream and need its state from no earlier than that event.
func (r *Repository[S]) LoadAtLeast(ctx context.Context, id string, version int64) (aggregate.Loaded[S], error) {
	if kept, ok := r.store.Peek(r.typ.StreamID(id)); ok && kept.Version >= version {
		return kept, nil
	}
	return r.Load(ctx, id)
}

// Present decodes a stream's stored events for showing (a history, an export): personal
// values opened, or erased when their owner's key is gone; nil for a NothingChanged marker.
func (r *Repository[S]) Present(ctx context.Context, id string, stored []eventstore.Event) ([]aggregate.Event, error) {
	return r.store.Decode(ctx, r.typ.StreamID(id), stored)
}

// load folds a stream: from an aggregate kept in memory, caught up with the log, or as the
// store starts it.
func (r *Repository[S]) load(ctx context.Context, streamID string) (aggregate.Loaded[S], error) {
	start, err := r.store.Load(ctx, streamID)
	if err != nil {
		return aggregate.Loaded[S]{}, err
	}
	if start.Kept {
		return r.catchUp(ctx, streamID, *start.From)
	}
	return r.started(ctx, streamID, start)
}

// started folds a start that was read; a long read is followed by a snapshot, so that the next
// cold load is short.
func (r *Repository[S]) started(ctx context.Context, streamID string, start aggregate.Start[S]) (aggregate.Loaded[S], error) {
	from := aggregate.Loaded[S]{State: r.typ.New(), Commands: window.New(r.opts.CommandIDsPerStream)}
	if start.From != nil {
		from = *start.From
	}
	loaded, err := r.fold(ctx, streamID, from, start.Stored, false)
	if err == nil && len(start.Stored) > 0 {
		if later := r.store.Keep(ctx, streamID, from.Version, loaded); later != nil {
			later(ctx)
		}
	}
	return loaded, err
}

// catchUp reads the events that came after from and folds them onto it.
func (r *Repository[S]) catchUp(ctx context.Context, streamID string, from aggregate.Loaded[S]) (aggregate.Loaded[S], error) {
	stored, err := r.store.ReadAfter(ctx, streamID, from.Version)
	if err != nil {
		return aggregate.Loaded[S]{}, err
	}
	next, err := r.fold(ctx, streamID, from, stored, true)
	if err == nil && len(stored) > 0 {
		r.store.Keep(ctx, streamID, from.Version, next) // no snapshot: it is due after loads and appends
	}
	return next, err
}

// fold applies stored events, which follow from's version, to a copy of from.
func (r *Repository[S]) fold(ctx context.Context, streamID string, from aggregate.Loaded[S], stored []eventstore.Event, shared bool) (aggregate.Loaded[S], error) {
	if len(stored) == 0 {
		return from, nil
	}
	events, err := r.store.Decode(ctx, streamID, stored)
	if err != nil {
		r.store.Drop(streamID)
		return aggregate.Loaded[S]{}, err
	}
	next := from
	if shared && r.typ.Clone != nil {
		next.State = r.typ.Clone(from.State) // from may be kept: it must not change
	}
	for i, e := range stored {
		next.Version, next.Position = e.Version, e.Position
		if events[i] != nil {
			next.State = r.typ.Apply(next.State, events[i])
		}
	}
	next.Commands = from.Commands.With(stored)
	return next, nil
}

// appended is the stream after a group's append, kept: the state the group's decisions left,
// which is what folding the recorded events onto loaded gives (they are the decided events, as
// stored), without decoding them again or cloning the state once more. It returns the work
// the store has to do once the group has its answers.
func (r *Repository[S]) appended(ctx context.Context, streamID string, loaded aggregate.Loaded[S], state S, recorded []eventstore.Event) func(context.Context) {
	last := recorded[len(recorded)-1]
	after := aggregate.Loaded[S]{State: state, Version: last.Version, Position: last.Position, Commands: loaded.Commands.With(recorded)}
	return r.store.Keep(ctx, streamID, loaded.Version, after)
}

// reload brings loaded up to the log after an append at its version failed. The log had moved
// on, so reading after that version finds events; when it finds none, the log does not hold
// what was kept (it was restored or replaced), and the stream is read whole.
func (r *Repository[S]) reload(ctx context.Context, streamID string, loaded aggregate.Loaded[S]) (aggregate.Loaded[S], error) {
	next, err := r.catchUp(ctx, streamID, loaded)
	if err != nil || next.Version != loaded.Version {
		return next, err
	}
	r.store.Drop(streamID)
	return r.load(ctx, streamID)
}
