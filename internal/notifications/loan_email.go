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

// sendLoanEmail sends the loan email of a BookLent, unless the relay accepted it before, and
// records that the relay accepted it (not when the Mailer only logs). An email whose member has
// no address yet waits for one (address.go); an erased member's is parked.
func (o *Outbox) sendLoanEmail(ctx context.Context, e eventstore.Event, bookID string, lent books.BookLent) error {
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
	book, err := o.Books.BookAt(ctx, bookID, e.Version)
	if err != nil {
		return err
	}
	to, err := o.recipient(ctx, lent.MemberID)
	if why, ok := noAddress(err); ok {
		return o.waitForAddress(why, e.RecordedAt)
	}
	if err != nil {
		return err
	}
	sent, err := o.deliver(ctx, delivery{
		email: smtpclient.Email{
			MessageID: id, From: o.From, To: to.Email,
			Subject: "You borrowed " + book.Title,
			Body:    loanBody(to.Name, book, lent),
		},
		span: "send loan email",
		spanOptions: []trace.SpanStartOption{tracing.LinkedTo(e.Metadata.TraceParent),
			trace.WithAttributes(attribute.Int64("library.position", e.Position), attribute.Int("library.attempt", processor.Attempt(ctx)))},
		accepted: Acceptance{Position: e.Position, LoanID: lent.LoanID, Attempts: max(1, processor.Attempt(ctx))},
	})
	if !sent {
		return o.sendFailed(err)
	}
	return err
}

func loanBody(name string, book Book, lent books.BookLent) string {
	return fmt.Sprintf("%s\n\nyou borrowed %s by %s on %s.\nPlease bring it back by %s.\n\nLoan: %s\n",
		greeting(name), book.Title, book.Author, lent.LentAt.Format("2 January 2006"),
		lent.DueAt.Format(dueFormat), lent.LoanID)
}

// dueFormat is how an email gives a loan's due time.
const dueFormat = "2 January 2006, 15:04 MST"

func greeting(name string) string {
	if name == "" {
		return "Hello,"
	}
	return "Hello " + name + ","
}
