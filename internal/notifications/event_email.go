package notifications

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/tracing"
)

// eventEmail is what sets one event's email apart: whom it goes to, what it says, and what is
// recorded of it once the relay accepts it.
type eventEmail struct {
	memberID string
	subject  func(Book) string
	body     func(name string, book Book) string
	span     string
	loanID   string
}

// sendEventEmail sends the one email of event e about bookID, unless the relay accepted it
// before, and records that the relay accepted it (not when the Mailer only logs). Its
// Message-ID comes from the event. An email whose member has no address yet waits for one
// (address.go); an erased member's is parked.
func (o *Outbox) sendEventEmail(ctx context.Context, e eventstore.Event, bookID string, m eventEmail) error {
	ids, err := o.messageIDs(ctx)
	if err != nil {
		return err
	}
	id := ids.For(e)
	if done, err := o.alreadyAccepted(ctx, id); done || err != nil {
		return err
	}
	// A book's title and author never change once it is added, so a book as of this event
	// will do, and is usually kept in memory.
	book, err := o.Facts.BookAt(ctx, bookID, e.Version)
	if err != nil {
		return err
	}
	to, err := o.recipient(ctx, m.memberID)
	if why, ok := noAddress(err); ok {
		return o.waitForAddress(why, e.RecordedAt)
	}
	if err != nil {
		return err
	}
	sent, err := o.deliver(ctx, delivery{
		email: Email{
			MessageID: id, From: o.From, To: to.Email,
			Subject: m.subject(book),
			Body:    m.body(to.Name, book),
		},
		span: m.span,
		spanOptions: []trace.SpanStartOption{tracing.LinkedTo(e.Metadata.TraceParent),
			trace.WithAttributes(attribute.Int64("library.position", e.Position), attribute.Int("library.attempt", processor.Attempt(ctx)))},
		accepted: Acceptance{Position: e.Position, LoanID: m.loanID, Attempts: max(1, processor.Attempt(ctx))},
	})
	if !sent {
		return o.sendFailed(err)
	}
	return err
}
