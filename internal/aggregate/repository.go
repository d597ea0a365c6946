package aggregate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/tracing"
)

// Log is the part of the event store that commands need.
type Log interface {
	ReadStream(ctx context.Context, streamID string, afterVersion int64) ([]eventstore.Event, error)
	// ReadVersions returns the stream's events from version from to version to, both included.
	ReadVersions(ctx context.Context, streamID string, from, to int64) ([]eventstore.Event, error)
	Append(ctx context.Context, streamID string, expectedVersion int64, events []eventstore.NewEvent) ([]eventstore.Event, error)
	// LoadStream returns the stream's snapshot of the given schema version, if it has one that
	// matches the log, and the events after it: in one round trip.
	LoadStream(ctx context.Context, streamID string, schemaVersion int) (*eventstore.Snapshot, []eventstore.Event, error)
	// SaveSnapshot keeps a snapshot of a stream, unless a newer one is kept.
	SaveSnapshot(ctx context.Context, s eventstore.Snapshot) error
	// Erase appends, and deletes owner's data key in the same transaction.
	Erase(ctx context.Context, streamID string, expectedVersion int64, events []eventstore.NewEvent, owner string) ([]eventstore.Event, error)
}

// Options tune a Repository. The zero value gives the defaults.
type Options struct {
	// CommandIDsPerStream is how many of a stream's most recent keyed commands are recognised
	// by their key. Commands without a key take no place among them. Default 100.
	CommandIDsPerStream int
	// MaxAttempts is how many times a command is decided before a version conflict is given
	// up as errs.ConcurrencyConflict. Default 30.
	MaxAttempts int
	// Observer is told the outcome of every command, for metrics. Default: nobody.
	Observer Observer
	// Tracer makes a span of every command. Default: one that records nothing.
	Tracer trace.Tracer
	// CacheBytes bounds the aggregates kept in memory between commands, by an estimate of the
	// bytes each takes: its state (Type.Weigh) and its command window. Default
	// DefaultCacheBytes; negative keeps none. Only types with a Clone function are kept.
	CacheBytes int
	// SnapshotEvery is how many events of a stream come between two of its snapshots, for
	// types with a SnapshotCodec. Default DefaultSnapshotEvery; negative keeps none.
	SnapshotEvery int
	// Logger hears of snapshots that could not be written or read. Default: nowhere.
	Logger *slog.Logger
	// Cipher seals the personal values of events (PersonalEvent) with their owner's data key,
	// and the snapshots of types whose state holds them. Nil: stored as they are.
	Cipher Cipher
	// FingerprintKey, when set, gives the key that makes payload fingerprints keyed hashes
	// (HMAC-SHA-256), so that a guess at a payload can't be confirmed from the log alone. It
	// is asked for at the first command, and kept once it answered.
	FingerprintKey func(ctx context.Context) ([]byte, error)
}

// Observer is told how each command ended. It is called on the request's goroutine, so it
// must be quick and safe for concurrent use.
type Observer interface {
	CommandDone(command string, outcome Outcome)
	// CacheLookup is told whether an aggregate was found among those kept in memory, and what
	// the kept ones take (an estimate, in bytes).
	CacheLookup(aggregateType string, hit bool, bytes int)
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

func (noObserver) CommandDone(string, Outcome)   {}
func (noObserver) CacheLookup(string, bool, int) {}

const (
	defaultCommandIDsPerStream = 100
	defaultMaxAttempts         = 30
)

// DefaultCacheBytes is the default bound of the aggregates each repository keeps in memory.
const DefaultCacheBytes = 16 << 20

// Repository loads and changes the aggregates of one type.
type Repository[S any] struct {
	log     Log
	typ     Type[S]
	decoder decoder
	opts    Options
	cache   *cache[S] // nil: nothing is kept
	queues  *streamQueues[S]
	fpKey   atomic.Pointer[[]byte] // Options.FingerprintKey's answer, once it answered
}

// fingerprintKey is the key of payload fingerprints, nil without one.
func (r *Repository[S]) fingerprintKey(ctx context.Context) ([]byte, error) {
	if r.opts.FingerprintKey == nil {
		return nil, nil
	}
	if key := r.fpKey.Load(); key != nil {
		return *key, nil
	}
	key, err := r.opts.FingerprintKey(ctx)
	if err != nil {
		return nil, err
	}
	r.fpKey.Store(&key)
	return key, nil
}

// NewRepository returns a repository of aggregates of type t, stored in log.
func NewRepository[S any](log Log, t Type[S], opts Options) *Repository[S] {
	if opts.CommandIDsPerStream <= 0 {
		opts.CommandIDsPerStream = defaultCommandIDsPerStream
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = defaultMaxAttempts
	}
	if opts.Observer == nil {
		opts.Observer = noObserver{}
	}
	if opts.Tracer == nil {
		opts.Tracer = tracing.Tracer(nil, "library/internal/aggregate")
	}
	if opts.CacheBytes == 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.SnapshotEvery == 0 {
		opts.SnapshotEvery = DefaultSnapshotEvery
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	r := &Repository[S]{log: log, typ: t, decoder: newDecoder(t.Events), opts: opts, queues: newStreamQueues[S]()}
	if t.Clone != nil && opts.CacheBytes > 0 {
		weigh := t.Weigh
		if weigh == nil {
			weigh = func(S) int { return defaultStateBytes }
		}
		r.cache = newCache[S](opts.CacheBytes, weigh)
	}
	return r
}

// Loaded is an aggregate's state as folded from its stream. The state may be shared with other
// commands: read it, never change it.
type Loaded[S any] struct {
	State S
	// Version is the stream's version: 0 when the aggregate has no events.
	Version int64
	// Position is the global position of the stream's last event.
	Position int64
	commands recentCommands
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
	empty := Loaded[S]{State: r.typ.New(), commands: newRecentCommands(r.opts.CommandIDsPerStream)}
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
	next.commands = from.commands.with(stored)
	r.cache.put(streamID, next)
	return next, nil
}

// Execute runs a command against the aggregate with the given id: see the package comment for
// how command ids and conflicts are handled.
//
// The command is a span of its own; its traceparent goes into the metadata of the events it
// writes, so that what is done later from them links back to it.
func (r *Repository[S]) Execute(ctx context.Context, id string, cmd Command[S]) (Result, error) {
	ctx, span := r.opts.Tracer.Start(ctx, "command "+cmd.Name, trace.WithAttributes(
		attribute.String("library.aggregate", r.typ.Name), attribute.String("library.command", cmd.Name)))
	defer span.End()
	result, err := r.execute(ctx, id, cmd)
	outcome := outcomeOf(result, err)
	span.SetAttributes(attribute.String("library.outcome", string(outcome)), attribute.Int64("library.position", result.Position))
	if outcome == OutcomeFailed || outcome == OutcomeConflict {
		span.SetStatus(codes.Error, string(errs.CodeOf(err)))
	}
	r.opts.Observer.CommandDone(cmd.Name, outcome)
	return result, err
}

func (r *Repository[S]) execute(ctx context.Context, id string, cmd Command[S]) (Result, error) {
	if cmd.Validate != nil {
		if err := cmd.Validate(); err != nil {
			return Result{}, err
		}
	}
	key, err := r.fingerprintKey(ctx)
	if err != nil {
		return Result{}, err
	}
	fp, legacy, err := fingerprintPayload(cmd.Payload, key)
	if err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	// A command without a key records no command id: nothing can ask for it again, and it
	// takes no place in the window of remembered keys, so keyless commands never push a key
	// out of it.
	w := &waiter[S]{cmd: cmd, fp: fp, legacyFP: legacy, done: make(chan outcome, 1), meta: eventstore.Metadata{
		CommandID: cmd.Origin.CommandID, Command: cmd.Name, Fingerprint: fp.String(),
		CorrelationID: cmd.Origin.CorrelationID, TraceParent: tracing.TraceParent(ctx), Actor: cmd.Origin.Actor}}
	streamID := r.typ.StreamID(id)
	if r.queues.enqueue(streamID, w) {
		r.lead(ctx, streamID)
	}
	select {
	case o := <-w.done:
		return o.result, o.err
	case <-ctx.Done():
		if r.queues.withdraw(streamID, w) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Result{}, errs.Wrap(errs.Unavailable, ctx.Err(), "other commands on %s kept this one waiting too long; try again", streamID)
		}
		return Result{}, ctx.Err() // its outcome, if it was being run, is for a retry to find
	}
}

// maxGroup bounds the commands decided together and appended in one go.
const maxGroup = 64

// groupTimeout bounds the running of one group, whose commands belong to many requests, so no
// single request's context can cut it short.
const groupTimeout = 10 * time.Second

// lead runs the stream's next group, then hands the stream on to a new leader if more commands
// wait, so that the caller that led returns with its own answer.
func (r *Repository[S]) lead(ctx context.Context, streamID string) {
	groupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), groupTimeout)
	due := r.runGroup(groupCtx, streamID, r.queues.take(streamID, maxGroup))
	cancel()
	if r.queues.finish(streamID) {
		go r.lead(context.WithoutCancel(ctx), streamID)
	}
	if due != nil {
		// After the commit and the answers, and while the next group runs: the leader's own
		// request pays for it, once every SnapshotEvery events.
		r.snapshot(ctx, streamID, *due)
	}
}

// toAppend returns the events a decision records, nil when it records nothing.
func (r *Repository[S]) toAppend(ctx context.Context, streamID string, decided []Event, meta eventstore.Metadata, key string, version int64) ([]eventstore.NewEvent, error) {
	switch {
	case len(decided) > 0:
		stored, err := r.sealed(ctx, streamID, decided, version+1)
		if err != nil {
			return nil, err
		}
		return encode(stored, meta)
	case key != "" && version > 0:
		// A keyed command that changes nothing is still recorded, so that its retry is
		// answered like this attempt rather than decided again on a state that may have
		// changed in between.
		return []eventstore.NewEvent{{Type: NothingChanged, Data: json.RawMessage(`{}`), Metadata: meta}}, nil
	default:
		return nil, nil
	}
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

// replay answers a command whose id is already in the stream, for the actor who first used it
// only: anyone else who sends the same key gets a refusal, never the first person's answer. The
// answer is rebuilt from the events the command wrote, read back from the log.
func (r *Repository[S]) replay(ctx context.Context, streamID string, w waiterIdentity, past *pastCommand) (Result, error) {
	name := past.name.Value()
	switch {
	case past.actor != w.actor:
		return Result{}, errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used by someone else on this stream; make a new key for each request")
	case name != w.name:
		return Result{}, errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream, not %q", name, w.name)
	case past.fingerprint != w.fp && past.fingerprint != w.legacyFP:
		return Result{}, errs.E(errs.IdempotencyKeyReused,
			"this Idempotency-Key was first used for the command %q on this stream with another payload", name)
	}
	recorded, err := r.log.ReadVersions(ctx, streamID, past.first, past.last())
	if err != nil {
		return Result{}, err
	}
	if int64(len(recorded)) != past.count {
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
