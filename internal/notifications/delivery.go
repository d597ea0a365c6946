package notifications

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"library/internal/processor"
	"library/internal/tracing"
)

// delivery is one email to send, loan email or reminder: the email, its span, and the record
// kept once the relay took it.
type delivery struct {
	email Email
	// span names the span of the send; spanOptions add its links and attributes.
	span        string
	spanOptions []trace.SpanStartOption
	// accepted is recorded once the relay took the email, stamped with the time it did.
	accepted Acceptance
}

// deliver sends d's email, within its recipient domain's slots, and records it once the relay
// took it (not when the Mailer only logs). sent is false when the send failed, with the
// mailer's error (a *SendError, Later for a full domain, or ctx's): the caller sorts
// it. sent is true once the relay took the email, with the record's error, if any.
func (o *Outbox) deliver(ctx context.Context, d delivery) (sent bool, err error) {
	start := o.now()
	if err := o.sendWithinDomain(ctx, d); err != nil {
		return false, err
	}
	took := o.now().Sub(start)
	o.relayAnswered()
	o.observe(func(ob Observer) { ob.EmailAccepted(took) })
	if logsOnly(o.Mailer) {
		return true, nil // no relay took it: the record of accepted emails, and a member's export, hold only emails sent
	}
	d.accepted.MessageID, d.accepted.AcceptedAt = d.email.MessageID, o.now().UTC()
	return true, o.record(ctx, d.accepted)
}

// send hands the email to the mailer, in a span of its own.
func (o *Outbox) send(ctx context.Context, d delivery) error {
	tracer := o.Tracer
	if tracer == nil {
		tracer = tracing.Tracer(nil, "")
	}
	ctx, span := tracer.Start(ctx, d.span, append([]trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient)}, d.spanOptions...)...)
	defer span.End()
	o.observe(func(ob Observer) { ob.EmailsInFlight(1) })
	err := o.Mailer.Send(ctx, d.email)
	o.observe(func(ob Observer) { ob.EmailsInFlight(-1) })
	if se, ok := sendError(err); ok {
		span.SetAttributes(attribute.String("library.email.failure", string(se.Class)), attribute.Int("smtp.reply.code", se.Code))
		span.SetStatus(codes.Error, se.PublicText())
	} else if err != nil {
		span.SetStatus(codes.Error, "not sent")
	}
	return err
}

// sendFailed sorts a failed send for the processor: a permanent refusal parks the email, a
// relay that is down pauses sending, and anything else defers the email to a later attempt.
func (o *Outbox) sendFailed(err error) error {
	se, ok := sendError(err)
	if !ok {
		return err // ctx ended, or the domain is full (Later): the processor sees it
	}
	o.observe(func(ob Observer) { ob.EmailFailed(se.Class, se.Reason) })
	switch se.Class {
	case RelayDown:
		o.relayDown()
		return processor.Pause(err)
	case Permanent:
		if se.Code != 0 {
			o.relayAnswered()
		}
		return &processor.ParkError{Reason: se.Error(), Public: se.PublicText()}
	default:
		o.relayAnswered()
		return err
	}
}

// alreadyAccepted reports whether the relay accepted the email before. One that was accepted
// here but could not be recorded is recorded now.
func (o *Outbox) alreadyAccepted(ctx context.Context, id string) (bool, error) {
	o.mu.Lock()
	pending, ok := o.unsaved[id]
	o.mu.Unlock()
	if ok {
		return true, o.record(ctx, pending)
	}
	accepted, err := o.acceptedEmails().Accepted(ctx, id)
	if err != nil {
		return false, err
	}
	if accepted {
		o.observe(func(ob Observer) { ob.EmailSkipped() })
	}
	return accepted, nil
}

// record records an accepted email. When that fails, the email is kept in memory as accepted
// and the failure returned: the processor tries the event (or the timer) again, and this
// replica records it then instead of sending it again.
func (o *Outbox) record(ctx context.Context, a Acceptance) error {
	err := o.acceptedEmails().Record(ctx, a)
	o.mu.Lock()
	defer o.mu.Unlock()
	if err != nil {
		if o.unsaved == nil {
			o.unsaved = map[string]Acceptance{}
		}
		o.unsaved[a.MessageID] = a
		return fmt.Errorf("email %s was accepted but not recorded: %w", a.MessageID, err)
	}
	delete(o.unsaved, a.MessageID)
	return nil
}
