package aggregate

import (
	"context"

	"library/internal/aggregate/window"
	"library/internal/errs"
	"library/internal/eventstore"
)

// replay answers a command whose id is already in the stream, for the actor who first used it
// only: anyone else who sends the same key gets a refusal, never the first person's answer. The
// answer is rebuilt from the events the command wrote, read back from the log.
func (r *Repository[S]) replay(ctx context.Context, streamID string, w waiterIdentity, past *window.Command) (Result, error) {
	name := past.Name.Value()
	switch {
	case past.Actor != w.actor:
		return Result{}, errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used by someone else on this stream; make a new key for each request")
	case name != w.name:
		return Result{}, errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream, not %q", name, w.name)
	case past.Fingerprint != w.fp && past.Fingerprint != w.legacyFP:
		return Result{}, errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream with another payload", name)
	}
	recorded, err := r.log.ReadVersions(ctx, streamID, past.First, past.Last())
	if err != nil {
		return Result{}, err
	}
	if int64(len(recorded)) != past.Count {
		r.cache.drop(streamID) // the log no longer holds what was kept: read it again next time
		return Result{}, errs.E(errs.Unavailable, "the first answer to this command can't be read back yet; try again")
	}
	opened, err := r.decodeAll(ctx, streamID, recorded)
	if err != nil {
		return Result{}, err
	}
	decoded := make([]Event, 0, len(recorded))
	for _, e := range opened {
		if e != nil {
			decoded = append(decoded, e)
		}
	}
	result := resultOf(streamID, recorded, decoded)
	result.Replayed = true
	return result, nil
}

// resultOf is the result of a command that recorded the given events; events are the decoded
// domain events among them, in order. A NothingChanged marker counts for the version and
// position but is not listed.
func resultOf(streamID string, recorded []eventstore.Event, events []Event) Result {
	last := recorded[len(recorded)-1]
	result := Result{StreamID: streamID, Version: last.Version, Position: last.Position, Events: make([]RecordedEvent, 0, len(events))}
	for _, e := range recorded {
		if e.Type == NothingChanged {
			continue
		}
		data := events[len(result.Events)]
		result.Events = append(result.Events, RecordedEvent{Type: e.Type, Version: e.Version, Position: e.Position, RecordedAt: e.RecordedAt, Data: data})
	}
	return result
}
