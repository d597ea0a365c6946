package notifications

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/smtpclient"
)

// handled hands e to the outbox as the processor does, and returns the timer changes it made.
func handled(t *testing.T, o *Outbox, e eventstore.Event) []processor.TimerChange {
	t.Helper()
	ctx, changes := processor.RecordTimers(t.Context())
	require.NoError(t, o.Handle(ctx, e))
	return changes.Changes()
}

// fired fires a timer as the processor does, and returns the timer changes it made.
func fired(t *testing.T, o *Outbox, timer processor.Timer) []processor.TimerChange {
	t.Helper()
	ctx, changes := processor.RecordTimers(t.Context())
	require.NoError(t, o.Fire(ctx, timer))
	return changes.Changes()
}

// timerOf is the timer a change scheduled, as the store hands it to Fire.
func timerOf(c processor.TimerChange) processor.Timer {
	return processor.Timer{Key: c.Key, At: c.At, Data: c.Data}
}

// dataOf reads a change's reminder.
func dataOf(t *testing.T, c processor.TimerChange) reminder {
	t.Helper()
	var r reminder
	require.NoError(t, json.Unmarshal(c.Data, &r))
	return r
}

// bookEvent is the event of a book's stream at version.
func (env outboxEnv) bookEvent(t *testing.T, bookID string, version int64) eventstore.Event {
	t.Helper()
	events, err := env.store.ReadStream(t.Context(), books.Type().StreamID(bookID), version-1) // the events after version-1
	require.NoError(t, err)
	require.NotEmpty(t, events)
	return events[0]
}

// A BookLent schedules the loan's due-soon reminder REMIND_BEFORE before its due time and its
// first overdue notice OVERDUE_AFTER after it, keyed by the book and the loan, with ids and
// times only; a LoanRenewed schedules them again under the same keys, for the new due time; a
// BookReturned cancels both.
func TestOutboxSchedulesAMovesAndCancelsTheReminders(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	lent := env.lend(t, "dune", "reader@example.org")
	var loan books.BookLent
	require.NoError(t, json.Unmarshal(lent.Data, &loan))

	changes := handled(t, o, lent)
	require.Len(t, changes, 2)
	soon, late := changes[0], changes[1]
	require.Equal(t, "due-soon:dune/loan-dune", soon.Key)
	require.Equal(t, timerTime(loan.DueAt.Add(-48*time.Hour)), soon.At)
	require.Equal(t, reminder{BookID: "dune", LoanID: "loan-dune", DueAt: loan.DueAt, At: soon.At}, dataOf(t, soon))
	require.Equal(t, "overdue:dune/loan-dune", late.Key)
	require.Equal(t, timerTime(loan.DueAt.Add(24*time.Hour)), late.At)
	require.Equal(t, reminder{BookID: "dune", LoanID: "loan-dune", DueAt: loan.DueAt, At: late.At, Notice: 1}, dataOf(t, late))
	for _, c := range changes {
		require.NotContains(t, string(c.Data), "reader", "ids, no personal data")
		require.NotContains(t, string(c.Data), "m-dune", "not even the member's id")
	}

	_, err := env.books.Renew(t.Context(), "dune", books.RenewLoan{LoanID: "loan-dune"}, aggregate.Origin{})
	require.NoError(t, err)
	renewed := env.bookEvent(t, "dune", 3)
	var moved books.LoanRenewed
	require.NoError(t, json.Unmarshal(renewed.Data, &moved))
	changes = handled(t, o, renewed)
	require.Len(t, changes, 2)
	require.Equal(t, []string{soon.Key, late.Key}, []string{changes[0].Key, changes[1].Key}, "the same keys: they replace")
	require.Equal(t, timerTime(moved.DueAt.Add(-48*time.Hour)), changes[0].At)
	require.Equal(t, timerTime(moved.DueAt.Add(24*time.Hour)), changes[1].At)

	_, err = env.books.Return(t.Context(), "dune", books.ReturnBook{LoanID: "loan-dune"}, aggregate.Origin{})
	require.NoError(t, err)
	changes = handled(t, o, env.bookEvent(t, "dune", 4))
	require.Equal(t, []processor.TimerChange{{Key: soon.Key, Cancel: true}, {Key: late.Key, Cancel: true}}, changes)
}

// A loan shorter than REMIND_BEFORE gets no due-soon reminder: its time has passed when the
// loan is made, and the loan email has just said when it is due.
func TestOutboxShortLoanGetsNoDueSoonReminder(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	o.Reminders = Reminders{Before: 15 * 24 * time.Hour} // the loan is 14 days
	changes := handled(t, o, env.lend(t, "dune", "reader@example.org"))
	require.Len(t, changes, 2)
	require.Equal(t, processor.TimerChange{Key: "due-soon:dune/loan-dune", Cancel: true}, changes[0])
	require.Equal(t, "overdue:dune/loan-dune", changes[1].Key)
}

// Keys name a loan by its book and loan ids, which can't hold "/"; ids long enough to make a
// key longer than a timer's may give a digest of them.
func TestReminderKeys(t *testing.T) {
	t.Parallel()
	require.NotEqual(t, reminderKey(dueSoon, "a:b", "c"), reminderKey(dueSoon, "a", "b:c"))
	long := strings.Repeat("x", 128)
	key := reminderKey(overdue, long, long)
	require.LessOrEqual(t, len(key), processor.MaxTimerKeyLength)
	require.True(t, strings.HasPrefix(key, "overdue:#"))
	require.NotEqual(t, key, reminderKey(overdue, long, long[1:]))
	require.NotEqual(t, key, reminderKey(dueSoon, long, long))
}

// A reminder's Message-ID comes from its timer's key and due time only: stable for them, and
// another for another loan, kind or time; valid in a header, and not a loan email's.
func TestMessageIDsForTimers(t *testing.T) {
	t.Parallel()
	ids := NewMessageIDs("5f0c5e2e-1111-4222-8333-944455556666", "desk@library.example.org")
	at := time.Date(2026, 12, 13, 9, 0, 0, 123456000, time.UTC)
	id := ids.ForTimer("overdue:dune/loan-1", at)
	require.Equal(t, id, ids.ForTimer("overdue:dune/loan-1", at.In(time.FixedZone("CET", 3600))), "stable")
	require.Regexp(t, `^<notifications\.t[a-z2-7]{24}\.5f0c5e2e-1111-4222-8333-944455556666@library\.example\.org>$`, id)
	require.True(t, smtpclient.ValidMessageID(id[1:len(id)-1]))
	_, isLoanEmail := PositionOf(id)
	require.False(t, isLoanEmail)
	require.NotEqual(t, id, ids.ForTimer("overdue:dune/loan-1", at.Add(7*24*time.Hour)), "the next notice")
	require.NotEqual(t, id, ids.ForTimer("overdue:dune/loan-1", at.Add(time.Microsecond)))
	require.NotEqual(t, id, ids.ForTimer("due-soon:dune/loan-1", at))
	require.NotEqual(t, id, ids.ForTimer("overdue:dune/loan-2", at))
	require.NotEqual(t, id, NewMessageIDs("00000000-1111-4222-8333-944455556666", "desk@library.example.org").ForTimer("overdue:dune/loan-1", at))
}

// A reminder's fire sends it once, with a Message-ID from its key and due time: a holder that
// fires it again (after a takeover) sends nothing, and one that never saw it recorded (a crash
// between the relay's 250 and the record) sends the same Message-ID again, which a receiver
// drops. The overdue notice schedules the next, OVERDUE_EVERY after its own time, up to
// OVERDUE_NOTICES.
func TestOutboxFiresARemindOnceAcrossHolders(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	first := env.outbox(t)
	first.Reminders = Reminders{OverdueNotices: 2}
	changes := handled(t, first, env.lend(t, "dune", "reader@example.org"))
	env.srv.WaitForMessages(t, 1, waitFor) // the loan email
	overdueNotice := timerOf(changes[1])

	next := fired(t, first, overdueNotice)
	msgs := env.srv.WaitForMessages(t, 2, waitFor)
	notice := msgs[1]
	require.Equal(t, "Overdue: Title dune", notice.Subject)
	require.Equal(t, []string{"reader@example.org"}, notice.To)
	require.Contains(t, notice.Body, "Overdue notice 1 of 2")
	a, ok := env.accepted.Get(notice.MessageID)
	require.True(t, ok, "recorded")
	require.Equal(t, "loan-dune", a.LoanID)
	require.Len(t, next, 1, "the next notice")
	require.Equal(t, overdueNotice.Key, next[0].Key)
	require.Equal(t, overdueNotice.At.Add(168*time.Hour), next[0].At)
	require.Equal(t, 2, dataOf(t, next[0]).Notice)

	again := env.outbox(t) // the next holder
	require.Equal(t, next, fired(t, again, overdueNotice), "goes on to the next notice")
	require.Len(t, env.srv.Messages(), 2, "not sent again")

	crashed := env.outbox(t)
	crashed.Accepted = NewMemoryAcceptedEmails() // the first holder died before its record
	fired(t, crashed, overdueNotice)
	msgs = env.srv.WaitForMessages(t, 3, waitFor)
	require.Equal(t, notice.MessageID, msgs[2].MessageID, "a repeat carries the same Message-ID")

	require.Empty(t, fired(t, first, timerOf(next[0])), "the last notice schedules none")
	msgs = env.srv.WaitForMessages(t, 4, waitFor)
	require.Contains(t, msgs[3].Body, "Overdue notice 2 of 2")
	require.NotEqual(t, notice.MessageID, msgs[3].MessageID)
}

// A reminder goes only for the loan it was scheduled for, at its due time: a loan returned
// since gets nothing; a loan renewed since has the reminder moved to its new due time, sending
// nothing now.
func TestOutboxReminderFollowsTheLoanAsItIsNow(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	changes := handled(t, o, env.lend(t, "dune", "reader@example.org"))
	env.srv.WaitForMessages(t, 1, waitFor)
	soon := timerOf(changes[0])

	_, err := env.books.Renew(t.Context(), "dune", books.RenewLoan{LoanID: "loan-dune"}, aggregate.Origin{})
	require.NoError(t, err)
	moved := fired(t, o, soon) // the renewal not read yet
	require.Len(t, moved, 1)
	require.Equal(t, soon.Key, moved[0].Key)
	book, _, err := env.books.Get(t.Context(), "dune")
	require.NoError(t, err)
	require.Equal(t, timerTime(book.Loan.DueAt.Add(-48*time.Hour)), moved[0].At)

	_, err = env.books.Return(t.Context(), "dune", books.ReturnBook{LoanID: "loan-dune"}, aggregate.Origin{})
	require.NoError(t, err)
	require.Empty(t, fired(t, o, timerOf(moved[0])))
	require.Empty(t, fired(t, o, timerOf(changes[1])))
	require.Len(t, env.srv.Messages(), 1, "no reminder for a loan returned")
}

// A reminder whose member has no address yet waits for it: its timer looks again every
// AddressPoll, keeping its due time (and so its Message-ID); once the address comes it goes;
// one still without an address AddressWait after its due time is given up, and the next notice
// scheduled.
func TestOutboxReminderWaitsForTheAddress(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	changes := handled(t, o, env.lend(t, "dune", "reader@example.org"))
	env.srv.WaitForMessages(t, 1, waitFor)
	_, err := env.accounts.SetContact(t.Context(), "m-dune", accounts.SetContact{Name: "Member dune", Email: ""}, aggregate.Origin{})
	require.NoError(t, err)

	clock := changes[0].At.Add(time.Second)
	o.Now = func() time.Time { return clock }
	soon := timerOf(changes[0])
	look := fired(t, o, soon)
	require.Len(t, look, 1, "looks again")
	require.Equal(t, soon.Key, look[0].Key)
	require.Equal(t, clock.Add(DefaultAddressPoll).UTC().Truncate(time.Microsecond), look[0].At)
	require.Equal(t, soon.At, dataOf(t, look[0]).At, "keeping its due time")
	require.Len(t, env.srv.Messages(), 1)

	_, err = env.accounts.SetContact(t.Context(), "m-dune", accounts.SetContact{Name: "Member dune", Email: "back@example.org"}, aggregate.Origin{})
	require.NoError(t, err)
	require.Empty(t, fired(t, o, timerOf(look[0])))
	msgs := env.srv.WaitForMessages(t, 2, waitFor)
	require.Equal(t, "Due soon: Title dune", msgs[1].Subject)
	ids, err := o.messageIDs(t.Context())
	require.NoError(t, err)
	require.Equal(t, ids.ForTimer(soon.Key, soon.At), msgs[1].MessageID, "the Message-ID of its due time")

	_, err = env.accounts.SetContact(t.Context(), "m-dune", accounts.SetContact{Name: "Member dune", Email: ""}, aggregate.Origin{})
	require.NoError(t, err)
	first := timerOf(changes[1])
	clock = first.At.Add(DefaultAddressWait)
	next := fired(t, o, first)
	require.Len(t, next, 1)
	require.Equal(t, 2, dataOf(t, next[0]).Notice, "given up, and the next notice scheduled")
	require.Len(t, env.srv.Messages(), 2)
}

// A reminder the relay refuses is sorted as a loan email is: a refusal for good gives it up
// (counted as parked) and the next notice is scheduled; a refusal for now fails the fire, to be
// tried again, until ReminderAttempts have failed, and is then given up; a relay that hangs up
// pauses the timers, using up nothing.
func TestOutboxSortsARemindersFailures(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	o.ReminderAttempts = 3
	lend := func(id, addr string) processor.Timer {
		ctx, changes := processor.RecordTimers(t.Context())
		_ = o.Handle(ctx, env.lend(t, id, addr)) // its loan email refused as its notice will be
		return timerOf(changes.Changes()[1])     // the first overdue notice
	}
	ctx := handling(t)

	env.srv.RefuseRecipient("gone@example.org", 550, "no such user")
	gone := lend("a", "gone@example.org")
	next := fired(t, o, gone)
	require.Len(t, next, 1, "given up, and the next notice scheduled")
	require.Equal(t, 2, dataOf(t, next[0]).Notice)
	require.Equal(t, 1, env.seen.parked, "the notice given up (the loan email is counted when the processor parks it)")

	env.srv.RefuseRecipient("full@example.org", 452, "mailbox full")
	full := lend("b", "full@example.org")
	err := o.Fire(ctx, full)
	require.Error(t, err, "tried again")
	var pause *processor.PauseError
	require.False(t, errors.As(err, &pause))
	full.Attempts = 2 // the third attempt fails too
	require.Len(t, fired(t, o, full), 1, "out of attempts: given up, the next notice scheduled")

	env.srv.RefuseRecipient("busy@example.org", 421, "closing")
	busy := lend("c", "busy@example.org")
	err = o.Fire(ctx, busy)
	require.ErrorAs(t, err, &pause, "the relay is down: the timers pause")
}
