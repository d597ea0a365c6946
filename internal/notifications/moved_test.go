package notifications

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/calendar"
	"library/internal/eventstore"
	"library/internal/processor"
)

// closedOn is a calendar closed on one date, read as the calendar's service reads it.
type closedOn struct{ date calendar.Date }

func (c closedOn) Get(context.Context) (calendar.Calendar, error) {
	return calendar.NewCalendar().WithClosed(c.date), nil
}

// A DueDateMoved (the library closed on the day a loan was due) moves the loan's reminders as a
// renewal does: the due-soon reminder and the first overdue notice, under the same keys, for
// the new due time. A reminder for the old due time that fires before the move is read sends
// nothing: it is moved with the loan.
func TestOutboxMovesTheRemindersWithTheDueDate(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	lent := handled(t, o, env.lend(t, "dune", "reader@example.org"))
	env.srv.WaitForMessages(t, 1, waitFor) // the loan email
	book, _, err := env.books.Get(t.Context(), "dune")
	require.NoError(t, err)
	closed := calendar.DateOf(book.Loan.DueAt, time.UTC)
	moves := books.DueDates{Books: env.books, Calendar: closedOn{closed}}
	_, err = moves.Move(t.Context(), "dune", books.MoveDueDate{LoanID: "loan-dune", Date: closed}, aggregate.Origin{})
	require.NoError(t, err)
	e := env.bookEvent(t, "dune", 3)
	var moved books.DueDateMoved
	require.NoError(t, json.Unmarshal(e.Data, &moved))
	require.True(t, moved.DueAt.After(book.Loan.DueAt))

	early := fired(t, o, timerOf(lent[0])) // the old due-soon reminder fires before the move is read
	require.Len(t, early, 1)
	require.Equal(t, timerTime(moved.DueAt.Add(-48*time.Hour)), early[0].At, "moved, not sent")

	changes := handled(t, o, e)
	require.Len(t, changes, 2)
	require.Equal(t, []string{lent[0].Key, lent[1].Key}, []string{changes[0].Key, changes[1].Key}, "the same keys: they replace")
	require.Equal(t, reminder{BookID: "dune", LoanID: "loan-dune", DueAt: moved.DueAt, At: timerTime(moved.DueAt.Add(-48 * time.Hour))}, dataOf(t, changes[0]))
	require.Equal(t, reminder{BookID: "dune", LoanID: "loan-dune", DueAt: moved.DueAt, At: timerTime(moved.DueAt.Add(24 * time.Hour)), Notice: 1},
		dataOf(t, changes[1]))
	require.Len(t, env.srv.Messages(), 1, "no reminder for the old due time")

	require.Empty(t, fired(t, o, timerOf(changes[0])), "the due-soon reminder for the new due time goes, and schedules nothing")
	got := env.srv.WaitForMessages(t, 2, waitFor)
	require.Equal(t, "Due soon: Title dune", got[1].Subject)
	require.Contains(t, got[1].Body, moved.DueAt.Format(dueFormat))
}

// A loan moved when it was overdue already (a day closed after it) is not sent again the
// notices its old due time had by then: the count goes on from the new due time, and a loan
// that had every notice gets no more. The due-soon reminder goes only when its time, from the
// new due time, is still to come.
func TestOutboxMovedLoanKeepsItsNoticeCount(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	o.Reminders = Reminders{Before: 48 * time.Hour, OverdueAfter: 24 * time.Hour, OverdueEvery: 7 * 24 * time.Hour, OverdueNotices: 3}
	from := time.Date(2026, 12, 24, 22, 59, 59, 0, time.UTC)
	to := from.Add(48 * time.Hour)
	event := func(movedAt time.Time) eventstore.Event {
		data, err := json.Marshal(books.DueDateMoved{LoanID: "l1", MemberID: "m1", From: from, DueAt: to, Reason: books.MovedClosed, Date: "2026-12-24"})
		require.NoError(t, err)
		return eventstore.Event{StreamID: "book-dune", Version: 3, Position: 9, Type: "DueDateMoved", Data: data, RecordedAt: movedAt}
	}
	soonKey, lateKey := "due-soon:dune/l1", "overdue:dune/l1"
	for name, tc := range map[string]struct {
		movedAt time.Time
		want    []processor.TimerChange
	}{
		"before the due-soon time": {from.Add(-72 * time.Hour), []processor.TimerChange{
			{Key: soonKey, At: to.Add(-48 * time.Hour)}, {Key: lateKey, At: to.Add(24 * time.Hour)}}},
		"before the first notice": {from.Add(time.Hour), []processor.TimerChange{
			{Key: soonKey, Cancel: true}, {Key: lateKey, At: to.Add(24 * time.Hour)}}},
		"after the first notice": {from.Add(25 * time.Hour), []processor.TimerChange{
			{Key: soonKey, Cancel: true}, {Key: lateKey, At: to.Add(24*time.Hour + 7*24*time.Hour)}}},
		"after the last notice": {from.Add(24*time.Hour + 14*24*time.Hour), []processor.TimerChange{
			{Key: soonKey, Cancel: true}, {Key: lateKey, Cancel: true}}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			changes := handled(t, o, event(tc.movedAt))
			require.Len(t, changes, len(tc.want))
			for i, want := range tc.want {
				require.Equal(t, want.Key, changes[i].Key)
				require.Equal(t, want.Cancel, changes[i].Cancel)
				require.Equal(t, want.At, changes[i].At)
			}
			if last := changes[1]; !last.Cancel {
				notice := dataOf(t, last).Notice
				require.Equal(t, 1+int(last.At.Sub(to.Add(24*time.Hour))/(7*24*time.Hour)), notice, "the notice's number goes with its time")
			}
		})
	}
}
