package notifications

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/notifications/slots"
	"library/internal/processor"
)

// OutboxName is the name of the loan email outbox: its lease, its checkpoint, its deferred and
// parked emails, its timers, and the first part of every Message-ID it makes. Never rename it.
const OutboxName = "notifications"

// Outbox sends one email per BookLent, to the member's account email, and the loan's reminders
// on its timers (reminders.go). It is safe for concurrent use: the processor hands it up to
// Processor.InFlight loans, and as many timers, at once.
type Outbox struct {
	Mailer Mailer
	// Facts tells the title and author of the book lent, its loan now, and where a member's
	// email goes.
	Facts Facts
	// Accepted is the record of the emails the relay accepted.
	Accepted AcceptedEmails
	// Installation returns the installation id that goes into every Message-ID
	// (eventstore.Store.Installation). It is asked once, when the first email is sent.
	Installation func(ctx context.Context) (string, error)
	// From is the sender (MAIL_FROM); its domain is the Message-IDs' too.
	From string
	// InFlight is how many emails may be in flight at once (SMTP_MAX_IN_FLIGHT; default 1).
	InFlight int
	// Reminders says when a loan's reminders go; a zero field takes DefaultReminders'.
	Reminders Reminders
	// AddressWait is how long an email waits for its member's address, from its loan's event
	// or its reminder's due time, before it is parked, or a reminder given up
	// (EMAIL_ADDRESS_WAIT); zero: DefaultAddressWait.
	AddressWait time.Duration
	// AddressPoll is how often an email that waits for an address looks for it again; zero:
	// DefaultAddressPoll.
	AddressPoll time.Duration
	// ReminderAttempts is how many times a reminder the relay refuses for now is tried before
	// it is given up, as a loan email is parked once processor.Options.Retry.Attempts have
	// failed; zero: processor.DefaultRetry.Attempts.
	ReminderAttempts int
	// Observer is told what becomes of the emails, for metrics. Nil: nobody.
	Observer Observer
	// Logger says which reminders were given up, and why. Nil: nobody.
	Logger *slog.Logger
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Tracer makes a span of every email sent, a loan email's linked to the request that lent
	// the book. Nil: no spans.
	Tracer trace.Tracer

	mu       sync.Mutex
	ids      *MessageIDs // made on first use
	relay    relayState
	domains  slots.Keyed           // emails in flight per recipient domain (domains.go)
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
	// EmailFailed: an attempt to send failed, sorted into class; reason is SendError.Reason.
	EmailFailed(class FailureClass, reason string)
	// EmailDeferred: an email that failed for now waits for its next attempt.
	EmailDeferred()
	// EmailParked: an email was parked, or a reminder given up: refused for good, no address
	// in time, or out of attempts.
	EmailParked()
	// EmailsInFlight: delta more emails are being sent right now.
	EmailsInFlight(delta int)
	// RelayUp: the relay answered (true), or could not be reached or took no mail (false).
	RelayUp(up bool)
}

var (
	_ processor.TimerHandler  = (*Outbox)(nil)
	_ processor.ParkListener  = (*Outbox)(nil)
	_ processor.DeferListener = (*Outbox)(nil)
	_ processor.RelayReporter = (*Outbox)(nil)
)

// Processor is the outbox as a processor to run.
func (o *Outbox) Processor() processor.Processor {
	return processor.Processor{Name: OutboxName, Kind: processor.KindOutbox, Handler: o, InFlight: o.InFlight, Types: []string{
		books.BookLent{}.EventType(), books.LoanRenewed{}.EventType(), books.DueDateMoved{}.EventType(), books.BookReturned{}.EventType(),
		books.BookHeld{}.EventType(), books.LoanLost{}.EventType(), books.ClaimedReturned{}.EventType()}}
}

// Handle implements processor.Handler. A BookLent schedules the loan's reminders and sends its
// loan email (loan_email.go); a LoanRenewed or a DueDateMoved moves the reminders, a
// BookReturned cancels them (reminders.go), and so does the end of a loan lost or claimed
// returned: no more overdue notices for it; a BookHeld sends the pickup email
// (pickup_email.go). Other events are none of the outbox's business.
func (o *Outbox) Handle(ctx context.Context, e eventstore.Event) error {
	bookID, ok := books.BookID(e)
	if !ok || !reads(e.Type) {
		return nil
	}
	decoded, err := books.Decode(e)
	if err != nil {
		return processor.Unreadable(e, err)
	}
	switch ev := decoded.(type) {
	case books.BookLent:
		if err := o.scheduleReminders(ctx, bookID, ev.LoanID, ev.DueAt, ev.LentAt); err != nil {
			return err
		}
		return o.sendLoanEmail(ctx, e, bookID, ev)
	case books.LoanRenewed:
		return o.scheduleReminders(ctx, bookID, ev.LoanID, ev.DueAt, e.RecordedAt)
	case books.DueDateMoved:
		return o.moveReminders(ctx, bookID, ev, e.RecordedAt)
	case books.BookReturned:
		return o.cancelReminders(ctx, bookID, ev.LoanID)
	case books.LoanLost:
		return o.cancelReminders(ctx, bookID, ev.LoanID)
	case books.ClaimedReturned:
		return o.cancelReminders(ctx, bookID, ev.LoanID)
	case books.BookHeld:
		return o.sendPickupEmail(ctx, e, bookID, ev)
	}
	return nil
}

// reads reports whether the outbox reads book events of type typ.
func reads(typ string) bool {
	switch typ {
	case books.BookLent{}.EventType(), books.LoanRenewed{}.EventType(), books.DueDateMoved{}.EventType(), books.BookReturned{}.EventType(),
		books.BookHeld{}.EventType(), books.LoanLost{}.EventType(), books.ClaimedReturned{}.EventType():
		return true
	}
	return false
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

// Parked implements processor.ParkListener. Only BookLent and BookHeld events can fail here,
// so every event parked is an email that was not sent.
func (o *Outbox) Parked(eventstore.Event) { o.observe(func(ob Observer) { ob.EmailParked() }) }

// Deferred implements processor.DeferListener.
func (o *Outbox) Deferred(eventstore.Event) { o.observe(func(ob Observer) { ob.EmailDeferred() }) }

// Idle implements processor.Idler: emails that come close together share SMTP connections,
// which are closed once the outbox has had nothing to send for a second. Emails still waiting
// for a slot of their domain are told to try again.
func (o *Outbox) Idle() {
	_ = o.Mailer.Close()
	o.domains.WakeAll()
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
