package notifications

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/smtpclient"
	"library/internal/tracing"
)

// OutboxName is the name of the loan email outbox: its lease, its checkpoint, its deferred and
// parked emails, and the first part of every Message-ID it makes. Never rename it.
const OutboxName = "notifications"

// Outbox sends one email per BookLent, to the member's account email. It is safe for
// concurrent use: the processor hands it up to Processor.InFlight loans at once.
type Outbox struct {
	Mailer Mailer
	// Books tells the title and author of the book lent.
	Books Books
	// Members tells where a member's email goes.
	Members Members
	// Accepted is the record of the emails the relay accepted.
	Accepted AcceptedEmails
	// Installation returns the installation id that goes into every Message-ID
	// (eventstore.Store.Installation). It is asked once, when the first email is sent.
	Installation func(ctx context.Context) (string, error)
	// From is the sender (MAIL_FROM); its domain is the Message-IDs' too.
	From string
	// InFlight is how many emails may be in flight at once (SMTP_MAX_IN_FLIGHT; default 1).
	InFlight int
	// Observer is told what becomes of the emails, for metrics. Nil: nobody.
	Observer Observer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Tracer makes a span of every email sent, linked to the request that lent the book. Nil:
	// no spans.
	Tracer trace.Tracer

	mu       sync.Mutex
	ids      *MessageIDs // made on first use
	relay    relayState
	domains  domainSlots           // emails in flight per recipient domain (domains.go)
	unsaved  map[string]Acceptance // accepted, but not yet recorded: the record failed
	initOnce sync.Once
}

// Observer is told what becomes of the outbox's emails. It is called on the outbox's
// goroutines, so it must be quick and safe for concurrent use.
type Observer interface {
	// EmailAccepted: the relay took an email; took is how long the send took.
	EmailAccepted(took time.Duration)
	// EmailSkipped: an email was not sent because the relay had accepted it before.
	EmailSkipped()
	// EmailFailed: an attempt to send failed, sorted into class; reason is
	// smtpclient.SendError.Reason.
	EmailFailed(class smtpclient.FailureClass, reason string)
	// EmailDeferred: an email that failed for now waits for its next attempt.
	EmailDeferred()
	// EmailParked: an email was parked: refused for good, no address, or out of attempts.
	EmailParked()
	// EmailsInFlight: delta more emails are being sent right now.
	EmailsInFlight(delta int)
	// RelayUp: the relay answered (true), or could not be reached or took no mail (false).
	RelayUp(up bool)
}

var (
	_ processor.ParkListener  = (*Outbox)(nil)
	_ processor.DeferListener = (*Outbox)(nil)
	_ processor.RelayReporter = (*Outbox)(nil)
)

// Processor is the outbox as a processor to run.
func (o *Outbox) Processor() processor.Processor {
	return processor.Processor{Name: OutboxName, Kind: processor.KindOutbox, Handler: o, InFlight: o.InFlight}
}

// Handle implements processor.Handler: it sends the loan email of a BookLent, unless the relay
// accepted it before, and records that the relay accepted it (not when the Mailer only logs). A member with no account, or no email on it, gets nothing yet: the email
// is parked with that reason, and retry-parked sends it once the member has an address.
func (o *Outbox) Handle(ctx context.Context, e eventstore.Event) error {
	bookID, ok := strings.CutPrefix(e.StreamID, books.Type().Name+"-")
	if !ok || e.Type != (books.BookLent{}).EventType() {
		return nil
	}
	var lent books.BookLent
	if err := json.Unmarshal(e.Data, &lent); err != nil {
		return &processor.ParkError{Reason: fmt.Sprintf("BookLent can't be read: %v", err), Public: "the event can't be read"}
	}
	ids, err := o.messageIDs(ctx)
	if err != nil {
		return err
	}
	id := ids.For(e)
	if done, err := o.alreadyAccepted(ctx, id); done || err != nil {
		return err
	}
	email, err := o.email(ctx, bookID, e.Version, id, lent)
	if err != nil {
		return err
	}
	start := o.now()
	err = o.sendWithinDomain(ctx, e, email)
	if err != nil {
		return o.sendFailed(err)
	}
	took := o.now().Sub(start)
	o.relayAnswered()
	o.observe(func(ob Observer) { ob.EmailAccepted(took) })
	if logsOnly(o.Mailer) {
		return nil // no relay took it: the record of accepted emails, and a member's export, hold only emails sent
	}
	return o.record(ctx, Acceptance{
		MessageID: id, Position: e.Position, LoanID: lent.LoanID, AcceptedAt: o.now().UTC(), Attempts: max(1, processor.Attempt(ctx)),
	})
}

// send hands the email to the mailer, in a span linked to the span of the command that lent the
// book, in whichever replica that ran.
func (o *Outbox) send(ctx context.Context, e eventstore.Event, email smtpclient.Email) error {
	tracer := o.Tracer
	if tracer == nil {
		tracer = tracing.Tracer(nil, "")
	}
	ctx, span := tracer.Start(ctx, "send loan email", trace.WithSpanKind(trace.SpanKindClient), tracing.LinkedTo(e.Metadata.TraceParent),
		trace.WithAttributes(attribute.Int64("library.position", e.Position), attribute.Int("library.attempt", processor.Attempt(ctx))))
	defer span.End()
	o.observe(func(ob Observer) { ob.EmailsInFlight(1) })
	err := o.Mailer.Send(ctx, email)
	o.observe(func(ob Observer) { ob.EmailsInFlight(-1) })
	if se, ok := smtpclient.IsSendError(err); ok {
		span.SetAttributes(attribute.String("library.email.failure", string(se.Class)), attribute.Int("smtp.reply.code", se.Code))
		span.SetStatus(codes.Error, se.PublicText())
	} else if err != nil {
		span.SetStatus(codes.Error, "not sent")
	}
	return err
}

// email builds the email of a loan, or says why there is none yet.
func (o *Outbox) email(ctx context.Context, bookID string, version int64, id string, lent books.BookLent) (smtpclient.Email, error) {
	// A book's title and author never change once it is added, so a book as of this event
	// will do, and is usually kept in memory.
	book, err := o.Books.BookAt(ctx, bookID, version)
	if err != nil {
		return smtpclient.Email{}, err
	}
	account, err := o.Members.Recipient(ctx, lent.MemberID)
	switch {
	case errs.Is(err, errs.NotFound):
		return smtpclient.Email{}, &processor.ParkError{Reason: "the member has no account, so no email address", Public: "no email address"}
	case err != nil:
		return smtpclient.Email{}, err
	case account.Erased:
		return smtpclient.Email{}, &processor.ParkError{Reason: processor.ErasedReason, Public: "erased"}
	case account.Email == "":
		return smtpclient.Email{}, &processor.ParkError{Reason: "the member has no email address", Public: "no email address"}
	}
	return smtpclient.Email{
		MessageID: id,
		From:      o.From,
		To:        account.Email,
		Subject:   "You borrowed " + book.Title,
		Body:      loanBody(account.Name, book, lent),
	}, nil
}

// sendFailed sorts a failed send for the processor: a permanent refusal parks the email, a
// relay that is down pauses sending, and anything else defers the email to a later attempt.
func (o *Outbox) sendFailed(err error) error {
	se, ok := smtpclient.IsSendError(err)
	if !ok {
		return err // ctx ended: the processor sees it
	}
	o.observe(func(ob Observer) { ob.EmailFailed(se.Class, se.Reason) })
	switch se.Class {
	case smtpclient.RelayDown:
		o.relayDown()
		return processor.Pause(err)
	case smtpclient.Permanent:
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
// and the failure returned: the processor tries the event again, and this replica records it
// then instead of sending it again.
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

// messageIDs returns the outbox's MessageIDs, asking for the installation id the first time.
func (o *Outbox) messageIDs(ctx context.Context) (MessageIDs, error) {
	o.mu.Lock()
	ids := o.ids
	o.mu.Unlock()
	if ids != nil {
		return *ids, nil
	}
	installation, err := o.Installation(ctx)
	if err != nil {
		return MessageIDs{}, err
	}
	made := NewMessageIDs(installation, o.From)
	o.mu.Lock()
	o.ids = &made
	o.mu.Unlock()
	return made, nil
}

func (o *Outbox) acceptedEmails() AcceptedEmails {
	o.initOnce.Do(func() {
		if o.Accepted == nil {
			o.Accepted = NewMemoryAcceptedEmails()
		}
	})
	return o.Accepted
}

// Parked implements processor.ParkListener. Only BookLent events can fail here, so every event
// parked is an email that was not sent.
func (o *Outbox) Parked(eventstore.Event) { o.observe(func(ob Observer) { ob.EmailParked() }) }

// Deferred implements processor.DeferListener.
func (o *Outbox) Deferred(eventstore.Event) { o.observe(func(ob Observer) { ob.EmailDeferred() }) }

// Idle implements processor.Idler: emails that come close together share SMTP connections,
// which are closed once the outbox has had nothing to send for a second. Emails still waiting
// for a slot of their domain are told to try again.
func (o *Outbox) Idle() {
	_ = o.Mailer.Close()
	o.domains.wakeAll()
}

func (o *Outbox) observe(f func(Observer)) {
	if o.Observer != nil {
		f(o.Observer)
	}
}

func (o *Outbox) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

func loanBody(name string, book Book, lent books.BookLent) string {
	greeting := "Hello,"
	if name != "" {
		greeting = "Hello " + name + ","
	}
	return fmt.Sprintf("%s\n\nyou borrowed %s by %s on %s.\nPlease bring it back by %s.\n\nLoan: %s\n",
		greeting, book.Title, book.Author, lent.LentAt.Format("2 January 2006"),
		lent.DueAt.Format("2 January 2006, 15:04 MST"), lent.LoanID)
}
