package notifications

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/smtpclient"
	"library/internal/tracing"
)

// sendPickupEmail tells the member a BookHeld is for that the book waits for them on the hold
// shelf, once, as a loan email is sent: one Message-ID per event, unless the relay accepted it
// before; an email whose member has no address yet waits for one; an erased member's is parked
// (and forgotten with the member's other waiting events).
func (o *Outbox) sendPickupEmail(ctx context.Context, e eventstore.Event, bookID string, held books.BookHeld) error {
	ids, err := o.messageIDs(ctx)
	if err != nil {
		return err
	}
	id := ids.For(e)
	if done, err := o.alreadyAccepted(ctx, id); done || err != nil {
		return err
	}
	book, err := o.Books.BookAt(ctx, bookID, e.Version)
	if err != nil {
		return err
	}
	to, err := o.recipient(ctx, held.MemberID)
	if why, ok := noAddress(err); ok {
		return o.waitForAddress(why, e.RecordedAt)
	}
	if err != nil {
		return err
	}
	sent, err := o.deliver(ctx, delivery{
		email: smtpclient.Email{
			MessageID: id, From: o.From, To: to.Email,
			Subject: "Ready for pickup: " + book.Title,
			Body:    pickupBody(to.Name, book, held),
		},
		span: "send pickup email",
		spanOptions: []trace.SpanStartOption{tracing.LinkedTo(e.Metadata.TraceParent),
			trace.WithAttributes(attribute.Int64("library.position", e.Position), attribute.Int("library.attempt", processor.Attempt(ctx)))},
		accepted: Acceptance{Position: e.Position, Attempts: max(1, processor.Attempt(ctx))},
	})
	if !sent {
		return o.sendFailed(err)
	}
	return err
}

func pickupBody(name string, book Book, held books.BookHeld) string {
	return fmt.Sprintf("%s\n\n%s by %s, which you asked to hold, is back, and waits for you at the desk until %s.\n"+
		"After that it goes to the next member in line.\n", greeting(name), book.Title, book.Author, held.Until.Format(dueFormat))
}
