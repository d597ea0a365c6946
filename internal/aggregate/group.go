package aggregate

import (
	"context"
	"errors"

	"library/internal/aggregate/window"
	"library/internal/errs"
	"library/internal/eventstore"
)

// decision is what became of one command of a group, decided on the state the commands before
// it in the group left.
type decision struct {
	// replay: the command's key was found among the stream's past commands; result is the
	// first answer.
	replay *Result
	// sameAs: the command's key was first used by the group's command at this index (-1: no).
	sameAs int
	err    error
	// events are the command's decided domain events, and first and count where its events
	// (a NothingChanged marker included) are in the group's append.
	events       []Event
	first, count int
}

// plan is a group decided: each command's decision and the events to append for them all.
type plan struct {
	decisions []decision
	toAppend  []eventstore.NewEvent
	// also is the other stream's part of the append, for a command with Also: nil for none.
	also *eventstore.StreamAppend
	// stale: a refusal or a "nothing to do" was decided on a kept aggregate, which may be
	// behind the log: the group must be decided again on what the log says.
	stale bool
}

// runGroup decides a group of commands on one stream, one after another, and appends their
// events together: one append, at the version that was loaded, for what each would have
// appended on its own in turn. When the append fails on the version (another process wrote),
// the stream is read again and the whole group decided again, as one command would be.
//
// It returns the stream as the group left it when a snapshot of it is due, nil otherwise.
func (r *Repository[S]) runGroup(ctx context.Context, streamID string, group []*waiter[S]) *Loaded[S] {
	// A kept aggregate is decided on without reading the log first. It may be behind: then the
	// append at its version fails, and the group is decided again on what the log says. Only an
	// append proves the state current, so a refusal or a "nothing to do" decided on a kept
	// aggregate is decided again after reading the log.
	loaded, kept := r.kept(streamID)
	var err error
	if !kept {
		if loaded, err = r.loadAll(ctx, streamID); err != nil {
			failAll(group, err)
			return nil
		}
	}
	current := !kept
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
		recorded, err := r.append(ctx, streamID, loaded.Version, p, group)
		var conflict *eventstore.ConflictError
		if errors.As(err, &conflict) {
			if attempt >= r.opts.MaxAttempts {
				failAll(group, errs.E(errs.ConcurrencyConflict,
					"%s changed %d times while this command was being decided; try again", conflict.StreamID, attempt))
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
		var after Loaded[S]
		if r.cache != nil || r.snapshots() {
			if after, err = r.fold(ctx, streamID, loaded, recorded, true); err != nil {
				failAll(group, err)
				return nil
			}
		}
		deliver(streamID, group, p, loaded, recorded, nil)
		if r.due(loaded.Version, after.Version) {
			return &after
		}
		return nil
	}
}

// decideGroup decides each command of the group in turn, on the state the ones before it
// left, and gathers the events to append.
func (r *Repository[S]) decideGroup(ctx context.Context, streamID string, loaded Loaded[S], group []*waiter[S]) (plan, error) {
	p := plan{decisions: make([]decision, len(group))}
	state := loaded.State
	cloned := false
	keys := map[string]int{} // key: the group's first command that appends under it
	for i, w := range group {
		d := &p.decisions[i]
		d.sameAs = -1
		key := w.cmd.Origin.CommandID
		if past, ok := loaded.commands.Find(key); ok {
			res, err := r.replay(ctx, streamID, w.identity(), past)
			d.replay, d.err = &res, err
			continue
		}
		if first, ok := keys[key]; ok && key != "" {
			d.sameAs, d.err = first, sameCommand(group[first], w)
			continue
		}
		decided, err := w.cmd.Decide(state)
		if err != nil {
			d.err, p.stale = err, true
			continue
		}
		version := loaded.Version + int64(len(p.toAppend))
		events, err := r.toAppend(ctx, streamID, decided, w.meta, key, version)
		if err != nil {
			return plan{}, err
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
		p.toAppend = append(p.toAppend, events...)
		if key != "" {
			keys[key] = i
		}
	}
	return p, nil
}

// sameCommand checks that a key used twice in one group is used for one command and payload:
// the second is then answered as the first, otherwise refused as a reused key.
func sameCommand[S any](first, again *waiter[S]) error {
	switch {
	case window.PersonOf(first.meta.Actor) != window.PersonOf(again.meta.Actor):
		return errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used by someone else on this stream; make a new key for each request")
	case first.cmd.Name != again.cmd.Name:
		return errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream, not %q", first.cmd.Name, again.cmd.Name)
	case first.fp != again.fp:
		return errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream with another payload", first.cmd.Name)
	}
	return nil
}

// deliver answers each command of a decided group. recorded are the group's appended events;
// when appendErr is set the append failed, and every command but those answered from the
// stream's past gets that error: the events it decided, or decided on, may not be in the log.
func deliver[S any](streamID string, group []*waiter[S], p plan, loaded Loaded[S], recorded []eventstore.Event, appendErr error) {
	results := make([]Result, len(group))
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
func unchanged[S any](streamID string, loaded Loaded[S], recorded []eventstore.Event, before int) Result {
	r := Result{StreamID: streamID, Version: loaded.Version, Position: loaded.Position, Events: []RecordedEvent{}}
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

// append writes a decided group: with a command that forgets its owner among it, the append
// also deletes the owner's data key, in its transaction; with a command's Also, the append
// spans the other stream too.
func (r *Repository[S]) append(ctx context.Context, streamID string, version int64, p plan, group []*waiter[S]) ([]eventstore.Event, error) {
	if p.also != nil {
		parts, err := r.log.AppendAll(ctx, []eventstore.StreamAppend{
			{StreamID: streamID, ExpectedVersion: version, Events: p.toAppend}, *p.also})
		if err != nil {
			return nil, err
		}
		return parts[0], nil
	}
	for _, w := range group {
		if w.cmd.Forget {
			appended, err := r.log.Erase(ctx, streamID, version, p.toAppend, r.owner(streamID))
			if f, ok := r.opts.Cipher.(interface{ Forget(owner string) }); ok && err == nil {
				f.Forget(r.owner(streamID))
			}
			return appended, err
		}
	}
	return r.log.Append(ctx, streamID, version, p.toAppend)
}

// alsoPart asks a command's Also for the other stream's part of its append, and encodes it
// with the command's metadata, less its id. Nil when Also has nothing to add.
func (r *Repository[S]) alsoPart(ctx context.Context, w *waiter[S], decided []Event) (*eventstore.StreamAppend, error) {
	also, err := w.cmd.Also(ctx, decided)
	if err != nil || len(also.Events) == 0 {
		return nil, err
	}
	for _, e := range also.Events {
		if _, personal := e.(PersonalEvent); personal {
			// It would be sealed with this stream's owner's key, not the other's.
			return nil, errs.E(errs.Internal, "aggregate: %s can't be written by Also: it holds personal values", e.EventType())
		}
	}
	meta := w.meta
	meta.CommandID = ""
	events, err := encode(also.Events, meta)
	if err != nil {
		return nil, err
	}
	return &eventstore.StreamAppend{StreamID: also.StreamID, ExpectedVersion: also.ExpectedVersion, Events: events}, nil
}
