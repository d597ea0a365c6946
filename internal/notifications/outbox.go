package notifications

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"library/internal/accounts"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
)

// OutboxName is the name of the loan email outbox: its lease, its checkpoint, its parked
// emails, and the first part of every Message-ID it makes. Never rename it.
const OutboxName = "notifications"

// Outbox sends one email per BookLent, to the member's account email.
type Outbox struct {
	Mailer   Mailer
	Books    *books.Service
	Accounts *accounts.Service
	// From is the sender (MAIL_FROM).
	From string
	// Observer is told of every send attempt and every parked email, for metrics. Nil: nobody.
	Observer Observer
}

// Observer is told what became of the outbox's emails. It is called on the outbox's goroutine,
// so it must be quick.
type Observer interface {
	// EmailSent: the mail server took an email.
	EmailSent()
	// EmailFailed: an attempt to send failed; it may be tried again or parked.
	EmailFailed()
	// EmailParked: an email was parked, at once (no address) or once its attempts ran out.
	EmailParked()
}

var _ processor.ParkListener = (*Outbox)(nil)

// Processor is the outbox as a processor to run.
func (o *Outbox) Processor() processor.Processor {
	return processor.Processor{Name: OutboxName, Kind: processor.KindOutbox, Handler: o}
}

// MessageID is the Message-ID of the email for an event: made from the outbox's name and the
// event's position only, so that every replica, and every retry, gives one email one id, and a
// receiver can drop a repeat.
func MessageID(e eventstore.Event) string {
	return "<" + OutboxName + "." + strconv.FormatInt(e.Position, 10) + "@library>"
}

// Handle implements processor.Handler: it sends the loan email of a BookLent. A member with no
// account, or no email on it, gets nothing yet: the email is parked with that reason, and
// retry-parked sends it once the member has an address.
func (o *Outbox) Handle(ctx context.Context, e eventstore.Event) error {
	bookID, ok := strings.CutPrefix(e.StreamID, books.Type().Name+"-")
	if !ok || e.Type != (books.BookLent{}).EventType() {
		return nil
	}
	var lent books.BookLent
	if err := json.Unmarshal(e.Data, &lent); err != nil {
		return processor.Park(fmt.Sprintf("BookLent can't be read: %v", err))
	}
	// A book's title and author never change once it is added, so a book as of this event
	// will do, and is usually kept in memory.
	book, _, err := o.Books.GetAtLeast(ctx, bookID, e.Version)
	if err != nil {
		return err
	}
	account, _, err := o.Accounts.Get(ctx, lent.MemberID)
	switch {
	case errs.Is(err, errs.NotFound):
		return processor.Park(fmt.Sprintf("member %s has no account, so no email address", lent.MemberID))
	case err != nil:
		return err
	case account.Email == "":
		return processor.Park(fmt.Sprintf("member %s has no email address", lent.MemberID))
	}
	err = o.Mailer.Send(ctx, Email{
		MessageID: MessageID(e),
		From:      o.From,
		To:        account.Email,
		Subject:   "You borrowed " + book.Title,
		Body:      loanBody(account.Name, book, lent),
	})
	if o.Observer != nil {
		if err != nil {
			o.Observer.EmailFailed()
		} else {
			o.Observer.EmailSent()
		}
	}
	return err
}

// Parked implements processor.ParkListener. Only BookLent events can fail here, so every event
// parked is an email that was not sent.
func (o *Outbox) Parked(eventstore.Event) {
	if o.Observer != nil {
		o.Observer.EmailParked()
	}
}

// Idle implements processor.Idler: emails that come close together share one SMTP connection,
// which is closed once the outbox has had nothing to send for a second.
func (o *Outbox) Idle() { _ = o.Mailer.Close() }

func loanBody(name string, book books.Book, lent books.BookLent) string {
	greeting := "Hello,"
	if name != "" {
		greeting = "Hello " + name + ","
	}
	return fmt.Sprintf("%s\n\nyou borrowed %s by %s on %s.\nPlease bring it back by %s.\n\nLoan: %s\n",
		greeting, book.Title, book.Author, lent.LentAt.Format("2 January 2006"),
		lent.DueAt.Format("2 January 2006, 15:04 MST"), lent.LoanID)
}
