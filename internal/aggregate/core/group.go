package core

import (
	"context"
	"errors"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
)

// decision is what became of one command of a group, decided on the state the commands before
// it in the group left.
type decision struct {
	// replay: the command's key was found among the stream's past commands; result is the
	// first answer.
	replay *aggregate.Result
	// sameAs: the command's key was first used by the group's command at this index (-1: no).
	sameAs int
	err    error
	// events are the command's decided domain events, and first and count where its events
	// (a NothingChanged marker included) are in the group's append.
	events       []aggregate.Event
	first, count int
}

// plan is a group decided: each command's decision and the events to append for them all.
type plan[S any] struct {
	decisions []decision
	toAppend  []eventstore.NewEvent
	// also are the other streams' parts of the append, for a command with Also: none for none.
	also []eventstore.StreamAppend
	// stale: a refusal or a "nothing to do" was decided on a kept aggregate, which may be
	// behind the log: the group must be decided again on what the log says.
	stale bool
	// state is the aggregate's state after the decided events: the loaded one, cloned before
	// the first was applied.
	state S
}

// runGroup decides a group of commands on one stream, one after another, and appends their
// events together: one append, at the version that was loaded, for what each would have
// appended on its own in turn. When the append fails on the version (another process wrote),
// the stream is read again and the whole group decided again, as one command would be.
//
// It returns the work the store has to do once the group has its answers (a snapshot), or nil.
func (r *Repository[S]) runGroup(ctx context.Context, streamID string, group []*waiter[S]) func(context.Context) {
	// A kept aggregate is decided on without reading the log first. It may be behind: then the
	// append at its version fails, and the group is decided again on what the log says. Only an
	// append proves the state current, so a refusal or a "nothing to do" decided on a kept
	// aggregate is decided again after reading the log.
	start, err := r.store.Load(ctx, streamID)
	var loaded aggregate.Loaded[S]
	if err == nil && start.Kept {
		loaded = *start.From
	} else if err == nil {
		loaded, err = r.started(ctx, streamID, start)
	}
	if err != nil {
		failAll(group, err)
		return nil
	}
	current := !start.Kept
	for attempt := 1; ; attempt++ {
		p, err := r.decideGroup(ctx, streamID, loaded, group)
		if err == nil && p.stale && !current {
			if loaded, err = r.catchUp(ctx, streamID, loaded); err != nil {
				failAll(group, err)
				return nil
			}
			current = true
			attempt--
			continue
		}
		if err != nil {
			failAll(group, err)
			return nil
		}
		if len(p.toAppend) == 0 {
			deliver(streamID, group, p, loaded, nil, nil)
			return nil
		}
		recorded, err := r.store.Append(ctx, aggregate.Append{StreamID: streamID, Version: loaded.Version,
			Events: p.toAppend, Forget: forgets(group), Also: p.also})
		if conflict, ok := errors.AsType[*eventstore.ConflictError](err); ok {
			if attempt >= r.opts.MaxAttempts {
				failAll(group, errs.E(errs.ConcurrencyConflict,
					"%s changed %s while this command was being decided; try again", conflict.StreamID, errs.Count(attempt, "time", "times")))
				return nil
			}
			if conflict.StreamID != streamID {
				// The other stream of an Also moved on: this one did not, and Also reads
				// that one again when the command is decided again.
				if err := backoff(ctx, attempt); err != nil {
					failAll(group, err)
					return nil
				}
				continue
			}
			if current {
				// Another writer got there first: let the writers spread out. A kept
				// aggregate that was merely behind is read again at once.
				if err := backoff(ctx, attempt); err != nil {
					failAll(group, err)
					return nil
				}
			}
			if loaded, err = r.reload(ctx, streamID, loaded); err != nil {
				failAll(group, err)
				return nil
			}
			current = true
			continue
		}
		if err != nil {
			deliver(streamID, group, p, loaded, nil, err)
			return nil
		}
		deliver(streamID, group, p, loaded, recorded, nil)
		return r.appended(ctx, streamID, loaded, p.state, recorded)
	}
}

// decideGroup decides each command of the group in turn, on the state the ones before it
// left, and gathers the events to append.
func (r *Repository[S]) decideGroup(ctx context.Context, streamID string, loaded aggregate.Loaded[S], group []*waiter[S]) (plan[S], error) {
	p := plan[S]{decisions: make([]decision, len(group))}
	state := loaded.State
	cloned := false
	keys := map[string]int{} // key: the group's first command that appends under it
	for i, w := range group {
		d := &p.decisions[i]
		d.sameAs = -1
		key := w.cmd.Origin.CommandID
		if past, ok := loaded.Commands.Find(key); ok {
			res, err := r.replay(ctx, streamID, w.identity(), past)
			d.replay, d.err = &res, err
			continue
		}
		if first, ok := keys[key]; ok && key != "" {
			d.sameAs, d.err = first, group[first].identity().refuses(w.identity())
			continue
		}
		if w.cmd.Prepare != nil {
			if err := w.cmd.Prepare(ctx, state); err != nil {
				d.err = err // the other stream can't be read, or refuses: nothing is appended
				continue
			}
		}
		decided, err := w.cmd.Decide(state)
		if err != nil {
			d.err, p.stale = err, true
			continue
		}
		version := loaded.Version + int64(len(p.toAppend))
		events, err := r.toAppend(ctx, streamID, decided, w.meta, key, version)
		if err != nil {
			return plan[S]{}, err
		}
		if events == nil {
			d.first, p.stale = len(p.toAppend), true
			continue
		}
		if w.cmd.Also != nil && len(decided) > 0 {
			if p.also, err = r.alsoPart(ctx, w, decided); err != nil {
				d.err = err // refused by the other stream, or it can't be read: nothing is appended
				continue
			}
		}
		if len(decided) > 0 {
			if !cloned && r.typ.Clone != nil {
				state, cloned = r.typ.Clone(state), true // the loaded state may be kept and shared
			}
			for _, e := range decided {
				state = r.typ.Apply(state, e)
			}
		}
		d.events, d.first, d.count = decided, len(p.toAppend), len(events)
		if p.toAppend == nil {
			p.toAppend = events[:len(events):len(events)] // the group's first: no copy; a later append makes one
		} else {
			p.toAppend = append(p.toAppend, events...)
		}
		if key != "" {
			keys[key] = i
		}
	}
	p.state = state
	return p, nil
}

// deliver answers each command of a decided group. recorded are the group's appended events;
// when appendErr is set the append failed, and every command but those answered from the
// stream's past gets that error: the events it decided, or decided on, may not be in the log.
func deliver[S any](streamID string, group []*waiter[S], p plan[S], loaded aggregate.Loaded[S], recorded []eventstore.Event, appendErr error) {
	var few [4]aggregate.Result // a group is most often one command: no slice to allocate
	results := few[:0]
	if len(group) > len(few) {
		results = make([]aggregate.Result, len(group))
	}
	results = results[:len(group)]
	for i, w := range group {
		d := p.decisions[i]
		var o outcome
		switch {
		case d.replay != nil:
			o = outcome{result: *d.replay, err: d.err}
		case appendErr != nil:
			o = outcome{err: appendErr}
		case d.err != nil:
			o = outcome{err: d.err}
		case d.sameAs >= 0:
			res := results[d.sameAs]
			res.Replayed = true
			o = outcome{result: res}
		case d.count > 0:
			results[i] = resultOf(streamID, recorded[d.first:d.first+d.count], d.events)
			o = outcome{result: results[i]}
		default: // nothing to do, decided on the state the events before it in the group left
			o = outcome{result: unchanged(streamID, loaded, recorded, d.first)}
		}
		w.done <- o
	}
}

// unchanged is the result of a command that decided nothing after the group's first `before`
// events: the stream as it was after them.
func unchanged[S any](streamID string, loaded aggregate.Loaded[S], recorded []eventstore.Event, before int) aggregate.Result {
	r := aggregate.Result{StreamID: streamID, Version: loaded.Version, Position: loaded.Position, Events: []aggregate.RecordedEvent{}}
	if before > 0 {
		r.Version, r.Position = recorded[before-1].Version, recorded[before-1].Position
	}
	return r
}

// failAll answers every command of the group with err.
func failAll[S any](group []*waiter[S], err error) {
	for _, w := range group {
		w.done <- outcome{err: err}
	}
}

// forgets reports whether a command of the group erases its aggregate's owner: the group's
// append then deletes the owner's data key in its transaction.
func forgets[S any](group []*waiter[S]) bool {
	for _, w := range group {
		if w.cmd.Forget {
			return true
		}
	}
	return false
}

// alsoPart asks a command's Also for the other streams' parts of its append, and encodes them
// with the command's metadata, less its id. None when Also has nothing to add.
func (r *Repository[S]) alsoPart(ctx context.Context, w *waiter[S], decided []aggregate.Event) ([]eventstore.StreamAppend, error) {
	also, err := w.cmd.Also(ctx, decided)
	if err != nil {
		return nil, err
	}
	meta := w.meta
	meta.CommandID = ""
	return encodeAlso(nil, also, meta)
}

// encodeAlso appends to parts the encoded part of also and of each of its More, leaving out
// those without events.
func encodeAlso(parts []eventstore.StreamAppend, also aggregate.Also, meta eventstore.Metadata) ([]eventstore.StreamAppend, error) {
	if len(also.Events) > 0 {
		for _, e := range also.Events {
			if _, personal := e.(aggregate.PersonalEvent); personal {
				// It would be sealed with this stream's owner's key, not the other's.
				return nil, errs.E(errs.Internal, "aggregate: %s can't be written by Also: it holds personal values", e.EventType())
			}
		}
		events, err := aggregate.Encode(also.Codecs, also.Events, meta)
		if err != nil {
			return nil, err
		}
		parts = append(parts, eventstore.StreamAppend{StreamID: also.StreamID, ExpectedVersion: also.ExpectedVersion, Events: events})
	}
	for _, more := range also.More {
		var err error
		if parts, err = encodeAlso(parts, more, meta); err != nil {
			return nil, err
		}
	}
	return parts, nil
}
