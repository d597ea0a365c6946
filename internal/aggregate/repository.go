package aggregate

import (
	"context"
	crand "crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"library/internal/errs"
	"library/internal/eventstore"
)

// Log is the part of the event store that commands need.
type Log interface {
	ReadStream(ctx context.Context, streamID string, afterVersion int64) ([]eventstore.Event, error)
	Append(ctx context.Context, streamID string, expectedVersion int64, events []eventstore.NewEvent) ([]eventstore.Event, error)
}

// Options tune a Repository. The zero value gives the defaults.
type Options struct {
	// CommandIDsPerStream is how many of a stream's most recent commands are recognised by
	// id. Default 100.
	CommandIDsPerStream int
	// MaxAttempts is how many times a command is decided before a version conflict is given
	// up as errs.ConcurrencyConflict. Default 30.
	MaxAttempts int
	// NewCommandID makes the id of a command that came without one. Default: 128 random bits.
	NewCommandID func() string
	// Observer is told the outcome of every command, for metrics. Default: nobody.
	Observer Observer
}

// Observer is told how each command ended. It is called on the request's goroutine, so it
// must be quick and safe for concurrent use.
type Observer interface {
	CommandDone(command string, outcome Outcome)
}

// Outcome is how a command ended, by what it did rather than by error code, so that a
// dashboard can tell a client's mistakes from the service's.
type Outcome string

// The outcomes of a command.
const (
	// OutcomeRecorded: the command recorded events (201).
	OutcomeRecorded Outcome = "recorded"
	// OutcomeUnchanged: the command was decided and changed nothing (200, no events).
	OutcomeUnchanged Outcome = "unchanged"
	// OutcomeReplayed: the command id was found in the stream and the first answer repeated.
	OutcomeReplayed Outcome = "replayed"
	// OutcomeRefused: the command was invalid or the domain refused it (a 4xx).
	OutcomeRefused Outcome = "refused"
	// OutcomeConflict: the stream kept changing until MaxAttempts ran out.
	OutcomeConflict Outcome = "conflict"
	// OutcomeFailed: the store was unavailable, or something went wrong inside.
	OutcomeFailed Outcome = "failed"
)

// outcomeOf classifies what Execute returned.
func outcomeOf(result Result, err error) Outcome {
	switch code := errs.CodeOf(err); {
	case err == nil && result.Replayed:
		return OutcomeReplayed
	case err == nil && result.Recorded():
		return OutcomeRecorded
	case err == nil:
		return OutcomeUnchanged
	case code == errs.ConcurrencyConflict:
		return OutcomeConflict
	case code == errs.Unavailable || code == errs.Internal:
		return OutcomeFailed
	default:
		return OutcomeRefused
	}
}

type noObserver struct{}

func (noObserver) CommandDone(string, Outcome) {}

const (
	defaultCommandIDsPerStream = 100
	defaultMaxAttempts         = 30
)

// Repository loads and changes the aggregates of one type.
type Repository[S any] struct {
	log     Log
	typ     Type[S]
	decoder decoder
	opts    Options
}

// NewRepository returns a repository of aggregates of type t, stored in log.
func NewRepository[S any](log Log, t Type[S], opts Options) *Repository[S] {
	if opts.CommandIDsPerStream <= 0 {
		opts.CommandIDsPerStream = defaultCommandIDsPerStream
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = defaultMaxAttempts
	}
	if opts.NewCommandID == nil {
		opts.NewCommandID = crand.Text
	}
	if opts.Observer == nil {
		opts.Observer = noObserver{}
	}
	return &Repository[S]{log: log, typ: t, decoder: newDecoder(t.Events), opts: opts}
}

// Loaded is an aggregate's state as folded from its stream.
type Loaded[S any] struct {
	State S
	// Version is the stream's version: 0 when the aggregate has no events.
	Version int64
	// Position is the global position of the stream's last event.
	Position int64
	commands recentCommands
}

// Load folds an aggregate's events into its state.
func (r *Repository[S]) Load(ctx context.Context, id string) (Loaded[S], error) {
	streamID := r.typ.StreamID(id)
	stored, err := r.log.ReadStream(ctx, streamID, 0)
	if err != nil {
		return Loaded[S]{}, err
	}
	loaded := Loaded[S]{State: r.typ.New(), commands: newRecentCommands(r.opts.CommandIDsPerStream)}
	for _, e := range stored {
		loaded.Version, loaded.Position = e.Version, e.Position
		loaded.commands.add(e)
		if e.Type == NothingChanged {
			continue
		}
		event, err := r.decoder.decode(e.Type, e.Data)
		if err != nil {
			return Loaded[S]{}, errs.Wrap(errs.Internal, err, "stream %s cannot be read", streamID)
		}
		loaded.State = r.typ.Apply(loaded.State, event)
	}
	return loaded, nil
}

// Execute runs a command against the aggregate with the given id: see the package comment for
// how command ids and conflicts are handled.
func (r *Repository[S]) Execute(ctx context.Context, id string, cmd Command[S]) (Result, error) {
	result, err := r.execute(ctx, id, cmd)
	r.opts.Observer.CommandDone(cmd.Name, outcomeOf(result, err))
	return result, err
}

func (r *Repository[S]) execute(ctx context.Context, id string, cmd Command[S]) (Result, error) {
	if cmd.Validate != nil {
		if err := cmd.Validate(); err != nil {
			return Result{}, err
		}
	}
	streamID := r.typ.StreamID(id)
	fp, err := fingerprint(cmd.Payload)
	if err != nil {
		return Result{}, err
	}
	meta := eventstore.Metadata{CommandID: cmd.Origin.CommandID, Command: cmd.Name, Fingerprint: fp, CorrelationID: cmd.Origin.CorrelationID}
	if meta.CommandID == "" {
		meta.CommandID = r.opts.NewCommandID()
	}

	for attempt := 1; ; attempt++ {
		loaded, err := r.Load(ctx, id)
		if err != nil {
			return Result{}, err
		}
		if past, ok := loaded.commands.find(cmd.Origin.CommandID); ok {
			return r.replay(streamID, cmd.Name, fp, past)
		}
		decided, err := cmd.Decide(loaded.State)
		if err != nil {
			return Result{}, err
		}
		var toAppend []eventstore.NewEvent
		switch {
		case len(decided) > 0:
			if toAppend, err = encode(decided, meta); err != nil {
				return Result{}, err
			}
		case cmd.Origin.CommandID != "" && loaded.Version > 0:
			// A keyed command that changes nothing is still recorded, so that its retry is
			// answered like this attempt rather than decided again on a state that may have
			// changed in between.
			toAppend = []eventstore.NewEvent{{Type: NothingChanged, Data: json.RawMessage(`{}`), Metadata: meta}}
		default:
			return Result{StreamID: streamID, Version: loaded.Version, Position: loaded.Position, Events: []RecordedEvent{}}, nil
		}
		recorded, err := r.log.Append(ctx, streamID, loaded.Version, toAppend)
		var conflict *eventstore.ConflictError
		if errors.As(err, &conflict) {
			if attempt >= r.opts.MaxAttempts {
				return Result{}, errs.E(errs.ConcurrencyConflict,
					"%s changed %d times while this command was being decided; try again", streamID, attempt)
			}
			if err := backoff(ctx, attempt); err != nil {
				return Result{}, err
			}
			continue
		}
		if err != nil {
			return Result{}, err
		}
		return resultOf(streamID, recorded, decided), nil
	}
}

// replay answers a command whose id is already in the stream.
func (r *Repository[S]) replay(streamID, name, fp string, past *pastCommand) (Result, error) {
	if past.name != name {
		return Result{}, errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream, not %q", past.name, name)
	}
	if past.fingerprint != fp {
		return Result{}, errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream with another payload", past.name)
	}
	decoded := make([]Event, 0, len(past.events))
	for _, e := range past.events {
		if e.Type == NothingChanged {
			continue
		}
		event, err := r.decoder.decode(e.Type, e.Data)
		if err != nil {
			return Result{}, errs.Wrap(errs.Internal, err, "stream %s cannot be read", streamID)
		}
		decoded = append(decoded, event)
	}
	result := resultOf(streamID, past.events, decoded)
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

func encode(events []Event, meta eventstore.Metadata) ([]eventstore.NewEvent, error) {
	out := make([]eventstore.NewEvent, len(events))
	for i, e := range events {
		data, err := json.Marshal(e)
		if err != nil {
			return nil, fmt.Errorf("aggregate: encode %s: %w", e.EventType(), err)
		}
		out[i] = eventstore.NewEvent{Type: e.EventType(), Data: data, Metadata: meta}
	}
	return out, nil
}

// backoff waits before the next attempt after a conflict: a random time up to 2ms * 2^attempt,
// capped at about a quarter of a second, so that writers that collided spread out.
func backoff(ctx context.Context, attempt int) error {
	limit := 2 * time.Millisecond << min(attempt, 7)
	timer := time.NewTimer(rand.N(limit) + time.Millisecond)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-timer.C:
		return nil
	}
}
