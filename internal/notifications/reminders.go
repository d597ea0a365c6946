package notifications

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"time"

	"library/internal/books"
	"library/internal/processor"
)

// Reminders says when a loan's reminders go: REMIND_BEFORE, OVERDUE_AFTER, OVERDUE_EVERY and
// OVERDUE_NOTICES.
type Reminders struct {
	// Before is how long before the loan's due time its due-soon reminder goes.
	Before time.Duration
	// OverdueAfter is how long after the due time the first overdue notice goes, and
	// OverdueEvery how long after each notice's time the next one's comes.
	OverdueAfter, OverdueEvery time.Duration
	// OverdueNotices is how many overdue notices a loan gets at most.
	OverdueNotices int
}

// DefaultReminders are the reminders of an unset environment: two days before the due time,
// then a day after it, and weekly, three overdue notices in all.
var DefaultReminders = Reminders{Before: 48 * time.Hour, OverdueAfter: 24 * time.Hour, OverdueEvery: 168 * time.Hour, OverdueNotices: 3}

// withDefaults returns r with every zero field at DefaultReminders'.
func (r Reminders) withDefaults() Reminders {
	if r.Before <= 0 {
		r.Before = DefaultReminders.Before
	}
	if r.OverdueAfter <= 0 {
		r.OverdueAfter = DefaultReminders.OverdueAfter
	}
	if r.OverdueEvery <= 0 {
		r.OverdueEvery = DefaultReminders.OverdueEvery
	}
	if r.OverdueNotices <= 0 {
		r.OverdueNotices = DefaultReminders.OverdueNotices
	}
	return r
}

// The kinds of reminder: the first part of their timers' keys.
const (
	dueSoon = "due-soon"
	overdue = "overdue"
)

// reminderKey is the key of a loan's reminder timer of a kind, "due-soon:dune/loan-1": ids
// only, never personal data. An id has no "/", so no two loans share a key. A loan whose ids
// make a key longer than a timer's may be is named by a digest of them instead.
func reminderKey(kind, bookID, loanID string) string {
	key := kind + ":" + bookID + "/" + loanID
	if len(key) <= processor.MaxTimerKeyLength {
		return key
	}
	sum := sha256.Sum256([]byte(bookID + "/" + loanID))
	return kind + ":#" + hex.EncodeToString(sum[:16])
}

// reminder is a reminder timer's data: ids and times, never personal data.
type reminder struct {
	BookID string `json:"bookId"`
	LoanID string `json:"loanId"`
	// DueAt is the loan's due time the reminder was scheduled for: one that no longer is the
	// loan's (a renewal since) moves with the loan instead of going.
	DueAt time.Time `json:"dueAt"`
	// At is when the reminder was due, as its timer was first scheduled: its Message-ID comes
	// from it and the key, and it stays while the reminder waits for an address (its timer is
	// then scheduled again, later).
	At time.Time `json:"at"`
	// Notice counts the overdue notices, from 1; 0 for the due-soon reminder.
	Notice int `json:"notice,omitempty"`
}

// timerTime is a time as a timer keeps it (processor.Schedule): UTC, to the microsecond. A
// reminder's At is its timer's own, so that whoever fires it derives the same Message-ID.
func timerTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// scheduleReminders schedules a loan's reminders for the due time it was lent or renewed to at
// madeAt, replacing those it had: the due-soon reminder and the first overdue notice. A due-soon
// time that has passed by madeAt (a loan shorter than REMIND_BEFORE) gets no reminder: the loan
// email, or the renewal, has just told the member the due time.
func (o *Outbox) scheduleReminders(ctx context.Context, bookID, loanID string, dueAt, madeAt time.Time) error {
	if err := o.scheduleDueSoon(ctx, bookID, loanID, dueAt, madeAt); err != nil {
		return err
	}
	return o.scheduleOverdue(ctx, bookID, loanID, dueAt, 1)
}

func (o *Outbox) scheduleDueSoon(ctx context.Context, bookID, loanID string, dueAt, madeAt time.Time) error {
	key := reminderKey(dueSoon, bookID, loanID)
	at := timerTime(dueAt.Add(-o.reminders().Before))
	if !at.After(madeAt) {
		return processor.Cancel(ctx, key)
	}
	return processor.Schedule(ctx, key, at, reminder{BookID: bookID, LoanID: loanID, DueAt: dueAt, At: at})
}

// scheduleOverdue schedules a loan's overdue notice n, due OVERDUE_AFTER after the loan's due
// time and OVERDUE_EVERY after notice n-1's time: the times come from the due time alone, so
// that a notice scheduled again (a fire repeated after a crash) has the same time, and the
// same Message-ID.
func (o *Outbox) scheduleOverdue(ctx context.Context, bookID, loanID string, dueAt time.Time, n int) error {
	r := o.reminders()
	at := timerTime(dueAt.Add(r.OverdueAfter + time.Duration(n-1)*r.OverdueEvery))
	return processor.Schedule(ctx, reminderKey(overdue, bookID, loanID), at,
		reminder{BookID: bookID, LoanID: loanID, DueAt: dueAt, At: at, Notice: n})
}

// moveReminders moves a loan's reminders with its due time, moved at movedAt for a reason of
// the library's (a closed day: books.DueDateMoved). The due-soon reminder goes for the new due
// time, as a renewal's does: none when its time has passed by movedAt. The overdue notices go
// on counting rather than start again, since the loan may have been overdue already (a closing
// recorded after the day): the notices whose times, from the old due time, had come by movedAt
// are not sent again, and the next goes at its time from the new due time; none once
// OVERDUE_NOTICES had come. A reminder timer for the old due time that fires before this is
// handled sends nothing (Fire finds the loan due at another time).
func (o *Outbox) moveReminders(ctx context.Context, bookID string, m books.DueDateMoved, movedAt time.Time) error {
	if err := o.scheduleDueSoon(ctx, bookID, m.LoanID, m.DueAt, movedAt); err != nil {
		return err
	}
	r := o.reminders()
	came := 0
	for came < r.OverdueNotices && !m.From.Add(r.OverdueAfter+time.Duration(came)*r.OverdueEvery).After(movedAt) {
		came++
	}
	if came == r.OverdueNotices {
		return processor.Cancel(ctx, reminderKey(overdue, bookID, m.LoanID))
	}
	return o.scheduleOverdue(ctx, bookID, m.LoanID, m.DueAt, came+1)
}

// cancelReminders cancels the reminders of a loan that ended: returned, lost or claimed
// returned.
func (o *Outbox) cancelReminders(ctx context.Context, bookID, loanID string) error {
	if err := processor.Cancel(ctx, reminderKey(dueSoon, bookID, loanID)); err != nil {
		return err
	}
	return processor.Cancel(ctx, reminderKey(overdue, bookID, loanID))
}

func (o *Outbox) reminders() Reminders { return o.Reminders.withDefaults() }
