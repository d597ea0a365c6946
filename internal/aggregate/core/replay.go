package core

import (
	"context"

	"library/internal/aggregate"
	"library/internal/aggregate/window"
	"library/internal/errs"
	"library/internal/eventstore"
)

// replay answers a command whose id is already in the stream, for the actor who first used it
// only: anyone else who sends the same key gets a refusal, never the first person's answer. The
// answer is rebuilt from the events the command wrote, read back from the log.
func (r *Repository[S]) replay(ctx context.Context, streamID string, w waiterIdentity, past *window.Command) (aggregate.Result, error) {
	first := waiterIdentity{name: past.Name.Value(), fp: past.Fingerprint, actor: past.Actor}
	if err := first.refuses(w); err != nil {
		return aggregate.Result{}, err
	}
	recorded, err := r.store.ReadVersions(ctx, streamID, past.First, past.Last())
	if err != nil {
		return aggregate.Result{}, err
	}
	if int64(len(recorded)) != past.Count {
		r.store.Drop(streamID) // the log no longer holds what was kept: read it again next time
		return aggregate.Result{}, errs.E(errs.Unavailable, "the first answer to this command can't be read back yet; try again")
	}
	opened, err := r.store.Decode(ctx, streamID, recorded)
	if err != nil {
		return aggregate.Result{}, err
	}
	decoded := make([]aggregate.Event, 0, len(recorded))
	for _, e := range opened {
		if e != nil {
			decoded = append(decoded, e)
		}
	}
	result := resultOf(streamID, recorded, decoded)
	result.Replayed = true
	return result, nil
}

// refuses refuses a command whose id was first used by the command first, unless it is the
// same command again: by the same person, under the same name, with the same payload (by
// either of its fingerprints, so that a retry across the change to keyed fingerprints is
// still recognised).
func (first waiterIdentity) refuses(again waiterIdentity) error {
	switch {
	case first.actor != again.actor:
		return errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used by someone else on this stream; make a new key for each request")
	case first.name != again.name:
		return errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream, not %q", first.name, again.name)
	case first.fp != again.fp && first.fp != again.legacyFP:
		return errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream with another payload", first.name)
	}
	return nil
}

// resultOf is the result of a command that recorded the given events; events are the decoded
// domain events among them, in order. A NothingChanged marker counts for the version and
// position but is not listed.
func resultOf(streamID string, recorded []eventstore.Event, events []aggregate.Event) aggregate.Result {
	last := recorded[len(recorded)-1]
	result := aggregate.Result{StreamID: streamID, Version: last.Version, Position: last.Position, Events: make([]aggregate.RecordedEvent, 0, len(events))}
	for _, e := range recorded {
		if e.Type == aggregate.NothingChanged {
			continue
		}
		data := events[len(result.Events)]
		result.Events = append(result.Events, aggregate.RecordedEvent{Type: e.Type, Version: e.Version, Position: e.Position, RecordedAt: e.RecordedAt, Data: data})
	}
	return result
}
