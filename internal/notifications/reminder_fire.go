package notifications

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"library/internal/errs"
	"library/internal/processor"
)

// Fire implements processor.TimerHandler: a loan's reminder is due. It goes only for the loan it
// was scheduled for, at the due time it was scheduled for, as the book is now: a loan returned
// since gets nothing (its return cancels its reminders, but may not have been read yet), and a
// loan renewed since has the reminder moved with it (its renewal moves it too; this is for a
// reminder fired before the renewal was read, or written after it by a loan email's late
// retry). It sends through the loan email's path, with a Message-ID from the timer's key and
// due time, so that a fire repeated after a crash is recognised as sent.
func (o *Outbox) Fire(ctx context.Context, t processor.Timer) error {
	kind, r, ok := readReminder(t)
	if !ok {
		o.giveUp(ctx, t.Key, t.At, "its timer can't be read")
		return nil
	}
	book, err := o.Facts.Current(ctx, r.BookID)
	switch {
	case errs.Is(err, errs.NotFound):
		return nil
	case err != nil:
		return err
	case book.Loan == nil || book.Loan.ID != r.LoanID:
		return nil
	case !book.Loan.DueAt.Equal(r.DueAt):
		if kind == dueSoon {
			return o.scheduleDueSoon(ctx, r.BookID, r.LoanID, book.Loan.DueAt, o.now())
		}
		return o.scheduleOverdue(ctx, r.BookID, r.LoanID, book.Loan.DueAt, 1)
	}
	next, err := o.remind(ctx, t, kind, r, book)
	if err != nil || !next || kind != overdue || r.Notice >= o.reminders().OverdueNotices {
		return err
	}
	return o.scheduleOverdue(ctx, r.BookID, r.LoanID, r.DueAt, r.Notice+1)
}

// readReminder reads a reminder timer.
func readReminder(t processor.Timer) (kind string, r reminder, ok bool) {
	kind, _, _ = strings.Cut(t.Key, ":")
	if kind != dueSoon && kind != overdue || json.Unmarshal(t.Data, &r) != nil {
		return "", reminder{}, false
	}
	return kind, r, r.BookID != "" && r.LoanID != "" && !r.At.IsZero() && (kind == dueSoon || r.Notice > 0)
}

// remind sends a reminder, unless the relay accepted it before, and reports whether it is done
// with, so that the next overdue notice may be scheduled: sent, sent before, or given up for
// this once (no address in time, refused, out of attempts). It is not done with while it waits
// for an address, nor once the member is erased (they get nothing more).
func (o *Outbox) remind(ctx context.Context, t processor.Timer, kind string, r reminder, book Book) (next bool, err error) {
	ids, err := o.messageIDs(ctx)
	if err != nil {
		return false, err
	}
	id := ids.ForTimer(t.Key, r.At)
	if done, err := o.alreadyAccepted(ctx, id); done || err != nil {
		return done, err
	}
	to, err := o.recipient(ctx, book.Loan.MemberID)
	var park *processor.ParkError
	if why, ok := noAddress(err); ok {
		return o.reminderWaits(ctx, t, r, why)
	} else if errors.As(err, &park) {
		o.giveUp(ctx, t.Key, r.At, park.Reason) // the member was erased: names nobody
		return false, nil
	} else if err != nil {
		return false, err
	}
	sent, err := o.deliver(ctx, delivery{
		email: reminderEmail(kind, r, book, to, id, o.From, o.reminders().OverdueNotices),
		span:  "send reminder",
		spanOptions: []trace.SpanStartOption{trace.WithAttributes(attribute.String("library.reminder", kind),
			attribute.Int("library.attempt", t.Attempts+1))},
		accepted: Acceptance{LoanID: r.LoanID, Attempts: t.Attempts + 1},
	})
	if sent {
		return err == nil, err // a record that failed: the next fire records it, and goes on
	}
	return o.reminderFailed(ctx, t, r, err)
}

// reminderWaits is what becomes of a reminder whose member has no address yet: its timer is
// scheduled again for the next look (AddressPoll), keeping its due time, and so its Message-ID,
// until AddressWait has passed since it was due; then it is given up.
func (o *Outbox) reminderWaits(ctx context.Context, t processor.Timer, r reminder, why *noAddressError) (next bool, err error) {
	left := o.addressLeft(r.At)
	if left <= 0 {
		o.giveUp(ctx, t.Key, r.At, fmt.Sprintf("%s, %s after it was due", why.reason, o.addressWait()))
		return true, nil
	}
	return false, processor.Schedule(ctx, t.Key, o.now().Add(o.nextAddressLook(left)), r)
}

// reminderFailed sorts a reminder the mailer did not send, as a loan email's failure is sorted:
// the relay down pauses the timers, a refusal for now is tried again on the Retry schedule
// until ReminderAttempts have failed, and a refusal for good gives it up. A timer is never
// parked (see processor), so giving up is the end of this reminder: it is logged and counted as
// parked.
func (o *Outbox) reminderFailed(ctx context.Context, t processor.Timer, r reminder, err error) (next bool, _ error) {
	se, ok := sendError(err)
	if !ok {
		return false, err // ctx ended, or the domain is full (Later): fired again once a slot frees
	}
	sorted := o.sendFailed(err)
	var park *processor.ParkError
	switch {
	case errors.As(sorted, &park):
		o.giveUp(ctx, t.Key, r.At, se.PublicText())
		return true, nil
	case se.Class == RelayDown:
		return false, sorted
	case t.Attempts+1 >= o.reminderAttempts():
		o.giveUp(ctx, t.Key, r.At, "out of attempts: "+se.PublicText())
		return true, nil
	}
	o.observe(func(ob Observer) { ob.EmailDeferred() })
	return false, sorted
}

// giveUp ends a reminder that will not go: logged, with its timer's key (ids only), its due
// time and a reason that names nobody, and counted as parked.
func (o *Outbox) giveUp(ctx context.Context, key string, due time.Time, reason string) {
	if o.Logger != nil {
		o.Logger.LogAttrs(ctx, slog.LevelWarn, "reminder not sent", slog.String("processor", OutboxName),
			slog.String("key", key), slog.Time("due", due), slog.String("reason", reason))
	}
	o.observe(func(ob Observer) { ob.EmailParked() })
}

func (o *Outbox) reminderAttempts() int {
	if o.ReminderAttempts <= 0 {
		return processor.DefaultRetry.Attempts
	}
	return o.ReminderAttempts
}

// reminderEmail is the email of a reminder.
func reminderEmail(kind string, r reminder, book Book, to Recipient, id, from string, notices int) Email {
	email := Email{MessageID: id, From: from, To: to.Email}
	due := r.DueAt.Format(dueFormat)
	if kind == dueSoon {
		email.Subject = "Due soon: " + book.Title
		email.Body = fmt.Sprintf("%s\n\n%s by %s is due back by %s.\nPlease bring it back, or renew the loan, by then.\n\nLoan: %s\n",
			greeting(to.Name), book.Title, book.Author, due, r.LoanID)
		return email
	}
	email.Subject = "Overdue: " + book.Title
	email.Body = fmt.Sprintf("%s\n\n%s by %s was due back by %s.\nPlease bring it back as soon as you can.\n\nOverdue notice %d of %d.\nLoan: %s\n",
		greeting(to.Name), book.Title, book.Author, due, r.Notice, notices, r.LoanID)
	return email
}
