package engine

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/tracing"
)

// handle is one worker: it hands an event to the handler, at attempt attempt, and sorts what
// the handler returned (see Handler). It keeps trying while the gate says what the handler
// depends on is down; it gives up, leaving the event to the next holder, when the holding
// ends first. from is the event's entry in the window, nil for a deferred event.
func (d *dispatcher) handle(e eventstore.Event, attempt int, from *entry) result {
	res := result{entry: from, position: e.Position}
	for {
		probe, ok := d.gate.Enter(d.shutdown, d.leased)
		if !ok {
			return res
		}
		if !d.fresh() {
			d.gate.Abandon(probe)
			return res
		}
		changes, err := d.attempt(e, attempt)
		if d.leased.Err() != nil {
			d.gate.Abandon(probe)
			return res
		}
		switch sortOutcome(err) {
		case later:
			// Nothing was tried: the gate learns nothing, and a probe lets another go.
			d.gate.Abandon(probe)
			var wait *processor.LaterError
			errors.As(err, &wait)
			res.held = &heldEvent{event: e, attempt: attempt, entry: from, ready: wait.Ready}
			return res
		case pauseAll:
			d.gate.Paused(probe)
			d.failedAt(e.Position, err)
			d.logger.Warn("processor paused: what it depends on is down", "processor", d.proc.Name,
				"position", e.Position, "error", err)
			continue
		case handled:
			d.gate.Passed()
			d.succeeded()
			res.changes = changes // an event from the log: saved with the checkpoint that passes it
			res.done = from != nil || d.persist(func(ctx context.Context) error {
				return d.checkpoints.Done(ctx, d.proc.Name, e.Position, changes...)
			})
			if from == nil && len(changes) > 0 {
				d.wakeTimers()
			}
		case waitFor:
			d.gate.Passed()
			d.waits(&res, e, err, attempt, changes)
		case parkIt:
			d.gate.Passed()
			res.done = d.park(e, err, attempt)
		default:
			d.gate.Passed()
			if attempt >= d.opts.Retry.Attempts {
				res.done = d.park(e, err, attempt)
				break
			}
			res.deferredTo = time.Now().Add(d.opts.Retry.Delay(attempt))
			res.done = d.deferTo(e, err, attempt, res.deferredTo)
		}
		return res
	}
}

// attempt hands the event to the handler once, in a span of its own that links to the span of
// the command that wrote the event, in whichever replica that ran. It returns the timer changes
// the handler made, when it fires timers.
func (d *dispatcher) attempt(e eventstore.Event, attempt int) ([]processor.TimerChange, error) {
	ctx, cancel := d.bounded()
	defer cancel()
	ctx, span := d.tracer.Start(ctx, d.proc.Name+" "+e.Type, trace.WithNewRoot(), tracing.LinkedTo(e.Metadata.TraceParent),
		trace.WithAttributes(attribute.String("library.processor", d.proc.Name), attribute.Int64("library.position", e.Position),
			attribute.Int("library.attempt", attempt)))
	defer span.End()
	var timers *processor.TimerRecorder
	if d.proc.FiresTimers() {
		ctx, timers = processor.RecordTimers(ctx)
	}
	err := d.handler.Handle(processor.WithAttempt(ctx, attempt), e)
	if err != nil {
		span.SetStatus(codes.Error, processor.PublicText(err))
	}
	return timers.Changes(), err
}

// deferTo keeps a failed event to be tried again at next.
func (d *dispatcher) deferTo(e eventstore.Event, reason error, attempts int, next time.Time) bool {
	d.failedAt(e.Position, reason)
	d.logger.Warn("event deferred", "processor", d.proc.Name, "stream", e.StreamID, "version", e.Version,
		"position", e.Position, "attempt", attempts, "retry_in", time.Until(next).Round(time.Millisecond).String(),
		"error", reason)
	deferred := d.persist(func(ctx context.Context) error {
		return d.checkpoints.Defer(ctx, d.proc.Name, processor.Deferred{Event: e, Reason: reason.Error(), Attempts: attempts, NextAttempt: next})
	})
	if l, ok := d.handler.(processor.DeferListener); ok && deferred {
		l.Deferred(e)
	}
	return deferred
}

// waits defers an event whose handler said it waits (Wait), to be tried again once its wait is
// over, with the attempts it had used before this one: a wait uses up none. Nothing failed, so
// the timers its handling scheduled stand: an event from the log has them saved with the
// checkpoint that passes it, as a handled event has (a deferred event tried again writes its
// timers with its Done, once it is handled). It is not recorded for Status nor told to the
// DeferListener, and it is logged at debug level only: an event may wait, and be looked at
// again, for days.
func (d *dispatcher) waits(res *result, e eventstore.Event, reason error, attempt int, changes []processor.TimerChange) {
	var w *processor.WaitError
	errors.As(reason, &w)
	if res.entry != nil {
		res.changes = changes
	}
	next := time.Now().Add(max(w.For, laterRetry))
	d.logger.Debug("event waits", "processor", d.proc.Name, "stream", e.StreamID, "version", e.Version,
		"position", e.Position, "retry_in", time.Until(next).Round(time.Millisecond).String(), "reason", reason)
	res.deferredTo = next
	res.done = d.persist(func(ctx context.Context) error {
		return d.checkpoints.Defer(ctx, d.proc.Name, processor.Deferred{Event: e, Reason: reason.Error(), Attempts: attempt - 1, NextAttempt: next})
	})
}

// park parks an event with the reason it failed.
func (d *dispatcher) park(e eventstore.Event, reason error, attempts int) bool {
	d.failedAt(e.Position, reason)
	d.logger.Warn("event parked", "processor", d.proc.Name, "stream", e.StreamID, "version", e.Version,
		"position", e.Position, "attempts", attempts, "reason", reason)
	parked := d.persist(func(ctx context.Context) error {
		return d.checkpoints.Park(ctx, d.proc.Name, processor.Parked{Event: e, Reason: reason.Error(), Attempts: attempts})
	})
	if l, ok := d.handler.(processor.ParkListener); ok && parked {
		l.Parked(e)
	}
	return parked
}

// persist runs a write to the checkpoints until it succeeds, backing off between tries, and
// reports false when the holding ended first: the event is then not finished with, and the
// next holder handles it again.
func (d *dispatcher) persist(write func(ctx context.Context) error) bool {
	for failures := 1; ; failures++ {
		ctx, cancel := d.bounded()
		err := write(ctx)
		cancel()
		if err == nil {
			return true
		}
		if d.leased.Err() != nil {
			return false
		}
		d.failed(err)
		d.logger.Warn("processor could not record an event's outcome; trying again", "processor", d.proc.Name,
			"error", err, "failures", failures)
		if !sleep(d.leased, d.leased, processor.StoreBackoff(failures)) {
			return false
		}
	}
}
