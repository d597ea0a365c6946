package books_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/calendar"
	"library/internal/errs"
	"library/internal/eventstore"
)

// paris is the library's zone in these tests: a day there is not a day in UTC.
var paris = mustZone("Europe/Paris")

func mustZone(name string) *time.Location {
	zone, err := time.LoadLocation(name)
	if err != nil {
		panic(err)
	}
	return zone
}

// date is a civil date of December 2026 (the 1st is a Tuesday, the 27th a Sunday).
func date(day int) calendar.Date { return calendar.NewDate(2026, time.December, day) }

// inParis is a time on a December day on the library's clock.
func inParis(day, hour, minute int) time.Time {
	return time.Date(2026, time.December, day, hour, minute, 0, 0, paris).UTC()
}

// endOf is the end of a December day on the library's clock: 23:59:59 there.
func endOf(day int) time.Time { return time.Date(2026, time.December, day, 23, 59, 59, 0, paris).UTC() }

// closings is the calendar of these tests: Christmas Eve and Day closed, and every Sunday.
func closings() calendar.Calendar {
	return calendar.NewCalendar().WithClosed(date(24)).WithClosed(date(25)).WithWeekly([]time.Weekday{time.Sunday}).In(paris)
}

// A loan due on a closed day moves to the end of the next day the library opens, as the
// library's clock dates it; nothing moves for a loan that is not current, due on another day,
// or due on a day the library opens, so that a second run records nothing.
func TestMoveDueDate(t *testing.T) {
	t.Parallel()
	lentOn := func(due time.Time) []books.Event {
		return []books.Event{added, books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: due.Add(-loanPeriod), DueAt: due}}
	}
	moved := func(from, to time.Time, day int) []books.Event {
		return []books.Event{books.DueDateMoved{LoanID: "l1", MemberID: "m1", From: from, DueAt: to, Reason: "closed", Date: date(day).String()}}
	}
	christmasEve := inParis(24, 16, 0)
	lateOnTheEve := inParis(24, 23, 30) // 22:30 in UTC: the 24th both ways
	pastMidnight := inParis(25, 0, 30)  // 23:30 on the 24th in UTC: the 25th in Paris
	for name, tc := range map[string]struct {
		given []books.Event
		cmd   books.MoveDueDate
		cal   calendar.Calendar
		want  []books.Event
	}{
		"a closed date: past the next closed one too": {lentOn(christmasEve), books.MoveDueDate{LoanID: "l1", Date: date(24)}, closings(), moved(christmasEve, endOf(26), 24)},
		"late on the closed day, by the zone's clock": {lentOn(lateOnTheEve), books.MoveDueDate{LoanID: "l1", Date: date(24)}, closings(), moved(lateOnTheEve, endOf(26), 24)},
		"the zone's day, not UTC's":                   {lentOn(pastMidnight), books.MoveDueDate{LoanID: "l1", Date: date(24)}, closings(), nil},
		"the zone's day, asked for":                   {lentOn(pastMidnight), books.MoveDueDate{LoanID: "l1", Date: date(25)}, closings(), moved(pastMidnight, endOf(26), 25)},
		"a weekday closed every week":                 {lentOn(inParis(27, 10, 0)), books.MoveDueDate{LoanID: "l1", Date: date(27)}, closings(), moved(inParis(27, 10, 0), endOf(28), 27)},
		"an open day: nothing to move":                {lentOn(inParis(23, 10, 0)), books.MoveDueDate{LoanID: "l1", Date: date(23)}, closings(), nil},
		"reopened since":                              {lentOn(christmasEve), books.MoveDueDate{LoanID: "l1", Date: date(24)}, closings().WithReopened(date(24)), nil},
		"moved already: due on another day":           {append(lentOn(christmasEve), moved(christmasEve, endOf(26), 24)...), books.MoveDueDate{LoanID: "l1", Date: date(24)}, closings(), nil},
		"renewed since": {append(lentOn(christmasEve), books.LoanRenewed{LoanID: "l1", MemberID: "m1", DueAt: inParis(30, 12, 0)}),
			books.MoveDueDate{LoanID: "l1", Date: date(24)}, closings(), nil},
		"returned":          {append(lentOn(christmasEve), returnedL1), books.MoveDueDate{LoanID: "l1", Date: date(24)}, closings(), nil},
		"another loan":      {lentOn(christmasEve), books.MoveDueDate{LoanID: "l2", Date: date(24)}, closings(), nil},
		"no open weekday":   {lentOn(christmasEve), books.MoveDueDate{LoanID: "l1", Date: date(24)}, allWeekdaysClosed(), nil},
		"a calendar in UTC": {lentOn(pastMidnight), books.MoveDueDate{LoanID: "l1", Date: date(24)}, closings().In(nil), moved(pastMidnight, time.Date(2026, 12, 26, 23, 59, 59, 0, time.UTC), 24)},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tc.cmd.Validate())
			got, err := tc.cmd.Decide(fold(tc.given...), tc.cal)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			if len(got) == 0 {
				return
			}
			again, err := tc.cmd.Decide(fold(append(tc.given, got...)...), tc.cal)
			require.NoError(t, err)
			require.Empty(t, again, "once moved, the same command moves nothing")
		})
	}
	_, err := books.MoveDueDate{LoanID: "l1", Date: date(24)}.Decide(fold(), closings())
	require.True(t, errs.Is(err, errs.NotFound), "%v", err)
	require.True(t, errs.Is(books.MoveDueDate{LoanID: "", Date: date(24)}.Validate(), errs.InvalidRequest))
	require.True(t, errs.Is(books.MoveDueDate{LoanID: "l1"}.Validate(), errs.InvalidRequest), "a date is needed")
}

// allWeekdaysClosed is a calendar the commands never record: closed every day of the week.
func allWeekdaysClosed() calendar.Calendar {
	all := []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
	return closings().WithWeekly(all)
}

// A move changes the loan's due time and nothing else: not its renewals, nor another loan's;
// the state survives a snapshot; a late return counts from the new due time; a member's loans
// (their export) show it.
func TestDueDateMovedFolds(t *testing.T) {
	t.Parallel()
	from := inParis(24, 16, 0)
	given := []books.Event{added, books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: from.Add(-loanPeriod), DueAt: from},
		books.LoanRenewed{LoanID: "l1", MemberID: "m1", DueAt: from}, books.DueDateMoved{LoanID: "l9", DueAt: endOf(31)}}
	b := fold(given...)
	moved := books.DueDateMoved{LoanID: "l1", MemberID: "m1", From: from, DueAt: endOf(26), Reason: "closed", Date: "2026-12-24"}
	b = books.Apply(b, moved)
	require.Equal(t, endOf(26), b.Loan.DueAt)
	require.Equal(t, 1, b.Loan.Renewals, "a move is not a renewal")
	codec := books.Type().Snapshot
	raw, err := codec.Encode(b)
	require.NoError(t, err)
	again, err := codec.Decode(raw)
	require.NoError(t, err)
	require.Equal(t, endOf(26), again.Loan.DueAt)
	back, err := books.ReturnBook{LoanID: "l1"}.Decide(b, endOf(26).Add(time.Hour), pickup)
	require.NoError(t, err)
	require.Equal(t, 0, back[0].(books.BookReturned).DaysLate, "on time by the moved due time")

	data, err := json.Marshal(moved)
	require.NoError(t, err)
	require.JSONEq(t, `{"loanId":"l1","memberId":"m1","from":"2026-12-24T15:00:00Z","dueAt":"2026-12-26T22:59:59Z","reason":"closed","date":"2026-12-24"}`, string(data))
	var stored []eventstore.Event
	for i, e := range append(given[1:2], moved) {
		raw, err := json.Marshal(e)
		require.NoError(t, err)
		stored = append(stored, eventstore.Event{StreamID: "book-b1", Type: e.EventType(), Data: raw, Position: int64(i + 1)})
	}
	loans, err := books.MemberLoans(stored)
	require.NoError(t, err)
	require.Len(t, loans, 1)
	require.Equal(t, endOf(26), loans[0].DueAt, "the export shows the moved due date")
}

// days is a calendar read as the calendar's service reads it: what the log holds now.
type days struct{ cal calendar.Calendar }

func (d *days) Get(context.Context) (calendar.Calendar, error) { return d.cal, nil }

// Through the service: a move is recorded once, under the command id the loan and the date
// make; run again, or after the day reopens, it writes nothing at all.
func TestDueDatesMoveOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	lib := books.NewService(store, aggregate.Options{}, func() time.Time { return inParis(1, 9, 0) }, books.Policy{LoanPeriod: loanPeriod}, nil)
	_, err := lib.Add(ctx, books.AddBook{ID: "b1", Title: "Dune", Author: "Frank Herbert"}, aggregate.Origin{})
	require.NoError(t, err)
	due := inParis(24, 16, 0)
	_, err = lib.Lend(ctx, "b1", books.LendBook{LoanID: "l1", MemberID: "m1", DueAt: &due}, aggregate.Origin{})
	require.NoError(t, err)
	cal := &days{cal: closings()}
	moves := books.DueDates{Books: lib, Calendar: cal, Zone: paris}
	cmd := books.MoveDueDate{LoanID: "l1", Date: date(24)}

	first, err := moves.Move(ctx, "b1", cmd, aggregate.Origin{})
	require.NoError(t, err)
	require.Len(t, first.Events, 1)
	require.Equal(t, books.DueDateMoved{LoanID: "l1", MemberID: "m1", From: due, DueAt: endOf(26), Reason: "closed", Date: "2026-12-24"}, first.Events[0].Data)
	stream, err := store.ReadStream(ctx, "book-b1", 0)
	require.NoError(t, err)
	require.Equal(t, "due-date:l1:2026-12-24", stream[len(stream)-1].Metadata.CommandID)

	for _, c := range []calendar.Calendar{closings(), closings().WithReopened(date(24))} {
		cal.cal = c
		again, err := moves.Move(ctx, "b1", cmd, aggregate.Origin{})
		require.NoError(t, err)
		require.Empty(t, again.Events)
		require.Equal(t, first.Version, again.Version, "nothing written, not even a repeat's marker")
	}
	book, _, err := lib.Get(ctx, "b1")
	require.NoError(t, err)
	require.Equal(t, endOf(26), book.Loan.DueAt)

	_, err = moves.Move(ctx, "nope", cmd, aggregate.Origin{})
	require.True(t, errs.Is(err, errs.NotFound), "%v", err)
	_, err = moves.Move(ctx, "b1", books.MoveDueDate{LoanID: "l1"}, aggregate.Origin{})
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
}
