package core

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/tracing"
)

type noObserver struct{}

func (noObserver) CommandDone(string, aggregate.Outcome) {}
func (noObserver) CacheLookup(string, bool, int)         {}

// Execute runs a command against the aggregate with the given id: see the package comment for
// how command ids and conflicts are handled.
//
// The command is a span of its own; its traceparent goes into the metadata of the events it
// writes, so that what is done later from them links back to it.
func (r *Repository[S]) Execute(ctx context.Context, id string, cmd aggregate.Command[S]) (aggregate.Result, error) {
	if !r.traced {
		// No span to start, name or describe: the tracer would drop it, after a handful of
		// allocations for its name and attributes. Its events carry no traceparent, as under a
		// span that records nothing.
		result, err := r.execute(ctx, id, cmd)
		r.opts.Observer.CommandDone(cmd.Name, aggregate.OutcomeOf(result, err))
		return result, err
	}
	ctx, span := r.opts.Tracer.Start(ctx, "command "+cmd.Name, trace.WithAttributes(
		attribute.String("library.aggregate", r.typ.Name), attribute.String("library.command", cmd.Name)))
	defer span.End()
	result, err := r.execute(ctx, id, cmd)
	outcome := aggregate.OutcomeOf(result, err)
	span.SetAttributes(attribute.String("library.outcome", string(outcome)), attribute.Int64("library.position", result.Position))
	if outcome == aggregate.OutcomeFailed || outcome == aggregate.OutcomeConflict {
		span.SetStatus(codes.Error, string(errs.CodeOf(err)))
	}
	r.opts.Observer.CommandDone(cmd.Name, outcome)
	return result, err
}

func (r *Repository[S]) execute(ctx context.Context, id string, cmd aggregate.Command[S]) (aggregate.Result, error) {
	if cmd.Validate != nil {
		if err := cmd.Validate(); err != nil {
			return aggregate.Result{}, err
		}
	}
	fingerprints, err := r.fp.Get(ctx)
	if err != nil {
		return aggregate.Result{}, err
	}
	fp, legacy, err := fingerprints.Payload(cmd.Payload)
	if err != nil {
		return aggregate.Result{}, err
	}
	traceParent := ""
	if r.traced {
		traceParent = tracing.TraceParent(ctx)
	}
	if err := ctx.Err(); err != nil {
		return aggregate.Result{}, err
	}
	// A command without a key records no command id: nothing can ask for it again, and it
	// takes no place in the window of remembered keys, so keyless commands never push a key
	// out of it.
	w := &waiter[S]{cmd: cmd, fp: fp, legacyFP: legacy, done: make(chan outcome, 1), meta: eventstore.Metadata{
		CommandID: cmd.Origin.CommandID, Command: cmd.Name, Fingerprint: fp.String(),
		CorrelationID: cmd.Origin.CorrelationID, TraceParent: traceParent, Actor: cmd.Origin.Actor, Card: cmd.Origin.Card}}
	streamID := r.typ.StreamID(id)
	if r.queues.Enqueue(streamID, w) {
		r.lead(ctx, streamID)
	}
	select {
	case o := <-w.done:
		return o.result, o.err
	case <-ctx.Done():
		if r.queues.Withdraw(streamID, w) && errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return aggregate.Result{}, errs.Wrap(errs.Unavailable, ctx.Err(), "other commands on %s kept this one waiting too long; try again", streamID)
		}
		return aggregate.Result{}, ctx.Err() // its outcome, if it was being run, is for a retry to find
	}
}

// maxGroup bounds the commands decided together and appended in one go.
const maxGroup = 64

// groupTimeout bounds the running of one group, whose commands belong to many requests, so no
// single request's context can cut it short.
const groupTimeout = 10 * time.Second

// alone reports whether a command is decided and appended in a group of its own: one with Also,
// whose append spans another stream, or with Prepare, whose decision reads one.
func alone[S any](w *waiter[S]) bool { return w.cmd.Also != nil || w.cmd.Prepare != nil }

// lead runs the stream's next group, then hands the stream on to a new leader if more commands
// wait, so that the caller that led returns with its own answer.
func (r *Repository[S]) lead(ctx context.Context, streamID string) {
	groupCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), groupTimeout)
	later := r.runGroup(groupCtx, streamID, r.queues.Take(streamID, maxGroup, alone[S]))
	cancel()
	if r.queues.Finish(streamID) {
		go r.lead(context.WithoutCancel(ctx), streamID)
	}
	if later != nil {
		// After the commit and the answers, and while the next group runs: the leader's own
		// request pays for it (a snapshot, once every SnapshotEvery events).
		later(ctx)
	}
}

// toAppend returns the events a decision records, nil when it records nothing.
func (r *Repository[S]) toAppend(ctx context.Context, streamID string, decided []aggregate.Event, meta eventstore.Metadata, key string, version int64) ([]eventstore.NewEvent, error) {
	switch {
	case len(decided) > 0:
		return r.store.Encode(ctx, streamID, decided, meta, version+1)
	case key != "" && version > 0:
		// A keyed command that changes nothing is still recorded, so that its retry is
		// answered like this attempt rather than decided again on a state that may have
		// changed in between.
		return []eventstore.NewEvent{{Type: aggregate.NothingChanged, Data: json.RawMessage(`{}`), Metadata: meta}}, nil
	default:
		return nil, nil
	}
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
