package duedates_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/calendar"
	"library/internal/duedates"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
)

var paris = func() *time.Location {
	zone, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		panic(err)
	}
	return zone
}()

// inParis is a time of December 2026 on the library's clock (the 1st is a Tuesday).
func inParis(day, hour, minute int) time.Time {
	return time.Date(2026, time.December, day, hour, minute, 0, 0, paris).UTC()
}

// endOf is the end of a December day on the library's clock.
func endOf(day int) time.Time { return time.Date(2026, time.December, day, 23, 59, 59, 0, paris).UTC() }

func date(day int) calendar.Date { return calendar.NewDate(2026, time.December, day) }

// library is the saga on a log in memory, with a loans view that the test says how far on it
// is: the current loans of its books, read from their streams, as of position at.
type library struct {
	t      *testing.T
	store  *eventstore.Memory
	books  *books.Service
	days   *calendar.Service
	view   *view
	saga   duedates.Saga
	booked []string
}

// view is the loans view as the saga reads it: every current loan, at the position it is
// told, with left events of its types after it.
type view struct {
	lib  *library
	at   processor.Position
	left int64
}

func (v *view) Due(ctx context.Context, from, to time.Time, each func([]duedates.Loan) error) (processor.Position, error) {
	var page []duedates.Loan
	for _, id := range v.lib.booked {
		b, _, err := v.lib.books.Get(ctx, id)
		if err != nil {
			return processor.Position{}, err
		}
		if l := b.Loan; l != nil && (from.IsZero() || !l.DueAt.Before(from)) && (to.IsZero() || l.DueAt.Before(to)) {
			page = append(page, duedates.Loan{BookID: id, LoanID: l.LoanID, DueAt: l.DueAt})
		}
	}
	return v.at, each(page)
}

func (v *view) CountAfter(context.Context, eventstore.Checkpoint, ...string) (int64, error) {
	return v.left, nil
}

func newLibrary(t *testing.T) *library {
	t.Helper()
	store := eventstore.NewMemory(nil)
	lib := &library{t: t, store: store, days: calendar.NewService(store, aggregate.Options{}),
		books: books.NewService(store, aggregate.Options{}, func() time.Time { return inParis(1, 9, 0) }, books.Policy{LoanPeriod: 7 * 24 * time.Hour, MaxRenewals: 3}, nil)}
	lib.view = &view{lib: lib}
	lib.saga = duedates.Saga{Moves: books.DueDates{Books: lib.books, Calendar: lib.days, Zone: paris}, Calendar: lib.days, Zone: paris,
		Loans: lib.view, Log: lib.view, WaitFor: 100 * time.Millisecond}
	return lib
}

// lend adds a book and lends it until due, and returns the BookLent.
func (l *library) lend(id string, due time.Time) eventstore.Event {
	l.t.Helper()
	ctx := context.Background()
	_, err := l.books.Add(ctx, books.AddBook{ID: id, Title: "Title " + id, Author: "Someone"}, aggregate.Origin{})
	require.NoError(l.t, err)
	res, err := l.books.Lend(ctx, id, books.LendBook{LoanID: "loan-" + id, MemberID: "m-" + id, DueAt: &due}, aggregate.Origin{})
	require.NoError(l.t, err)
	l.booked = append(l.booked, id)
	return l.last(res)
}

// last is the last event a command recorded, as the log holds it.
func (l *library) last(res aggregate.Result) eventstore.Event {
	l.t.Helper()
	events, err := l.store.ReadStream(context.Background(), res.StreamID, res.Version-1)
	require.NoError(l.t, err)
	require.NotEmpty(l.t, events)
	require.Equal(l.t, res.Version, events[0].Version)
	return events[0]
}

// handle hands e to the saga, the view being at the head of the log.
func (l *library) handle(e eventstore.Event) error {
	head, err := l.store.Head(context.Background())
	require.NoError(l.t, err)
	l.view.at = processor.Position{Checkpoint: head}
	return l.saga.Handle(context.Background(), e)
}

// moves are the DueDateMoved events of the log, by book.
func (l *library) moves() map[string][]books.DueDateMoved {
	l.t.Helper()
	events, err := l.store.ReadAll(context.Background(), eventstore.Checkpoint{}, 0)
	require.NoError(l.t, err)
	out := map[string][]books.DueDateMoved{}
	for _, e := range events {
		if id, ok := books.BookID(e); ok && e.Type == "DueDateMoved" {
			m, err := books.Decode(e)
			require.NoError(l.t, err)
			out[id] = append(out[id], m.(books.DueDateMoved))
		}
	}
	return out
}

func (l *library) head() eventstore.Checkpoint {
	head, err := l.store.Head(context.Background())
	require.NoError(l.t, err)
	return head
}

// A closed day moves each loan due on it, by the library's clock, once: to the end of the next
// open day; loans due on other days stay. Handled again (a new holder, a replay), or once the
// day is open again, it writes nothing at all.
func TestAClosingMovesTheLoansDueThatDayOnce(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	ctx := context.Background()
	for i, due := range []time.Time{inParis(24, 10, 0), inParis(24, 23, 30), endOf(24)} {
		l.lend(fmt.Sprintf("eve-%d", i), due)
	}
	l.lend("before", endOf(23))
	l.lend("after", inParis(25, 0, 30))
	_, err := l.days.Close(ctx, date(25), aggregate.Origin{})
	require.NoError(t, err)
	closed, err := l.days.Close(ctx, date(24), aggregate.Origin{})
	require.NoError(t, err)

	require.NoError(t, l.handle(l.last(closed)))
	moves := l.moves()
	require.Len(t, moves, 3, "the three loans due on the 24th, not the one due on the 25th: a closing reaches its own day")
	for i, from := range []time.Time{inParis(24, 10, 0), inParis(24, 23, 30), endOf(24)} {
		require.Equal(t, []books.DueDateMoved{{LoanID: fmt.Sprintf("loan-eve-%d", i), MemberID: fmt.Sprintf("m-eve-%d", i), From: from,
			DueAt: endOf(26), Reason: "closed", Date: "2026-12-24"}}, moves[fmt.Sprintf("eve-%d", i)])
	}
	head := l.head()
	require.NoError(t, l.handle(l.last(closed)), "the closing again")
	require.Equal(t, head, l.head(), "nothing written")

	_, err = l.days.Reopen(ctx, date(24), aggregate.Origin{})
	require.NoError(t, err)
	head = l.head()
	require.NoError(t, l.handle(l.last(closed)))
	require.Equal(t, head, l.head(), "reopened: nothing moves, and nothing moves back")
}

// Until the loans view has reached the closing, the closing waits, using up no attempt; a view
// whose checkpoint is before the closing with nothing of its types left to read has reached it.
func TestAClosingWaitsForTheLoansView(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	ctx := context.Background()
	l.lend("eve", inParis(24, 10, 0))
	closed, err := l.days.Close(ctx, date(24), aggregate.Origin{})
	require.NoError(t, err)
	e := l.last(closed)
	l.view.at, l.view.left = processor.Position{}, 1
	err = l.saga.Handle(ctx, e)
	var wait *processor.WaitError
	require.True(t, errors.As(err, &wait), "%v", err)
	require.Equal(t, 100*time.Millisecond, wait.For)
	require.Empty(t, l.moves())

	l.view.left = 0
	require.NoError(t, l.saga.Handle(ctx, e))
	require.Len(t, l.moves(), 1)
}

// A loan decided on a calendar read before a closing, and appended after it, is moved when the
// saga reads it: a loan lent, renewed or moved onto a day the calendar closes now. A loan due on
// an open day is left alone.
func TestALoanDecidedBeforeTheClosingIsMovedAfterIt(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	ctx := context.Background()
	_, err := l.days.Close(ctx, date(24), aggregate.Origin{})
	require.NoError(t, err)
	lent := l.lend("lent", inParis(24, 12, 0))
	open := l.lend("open", inParis(23, 12, 0))
	renewing := l.lend("renewed", inParis(17, 12, 0))
	renewed, err := l.books.Renew(ctx, "renewed", books.RenewLoan{LoanID: "loan-renewed"}, aggregate.Origin{})
	require.NoError(t, err)

	for _, e := range []eventstore.Event{lent, open, renewing, l.last(renewed)} {
		require.NoError(t, l.handle(e))
	}
	moves := l.moves()
	require.Len(t, moves, 2)
	require.Equal(t, endOf(25), moves["lent"][0].DueAt)
	require.Equal(t, endOf(25), moves["renewed"][0].DueAt, "renewed onto the closed day: the 17th plus a week")

	// The next day closed on a calendar read before it: the move onto it is moved again.
	_, err = l.days.Close(ctx, date(25), aggregate.Origin{})
	require.NoError(t, err)
	events, err := l.store.ReadStream(ctx, "book-lent", 0)
	require.NoError(t, err)
	require.NoError(t, l.handle(events[len(events)-1]))
	require.Equal(t, endOf(26), l.moves()["lent"][1].DueAt)
	require.Equal(t, "2026-12-25", l.moves()["lent"][1].Date)
}

// A weekday closed every week moves the loans due on it, whatever their date, and no other.
func TestAWeeklyClosingMovesTheLoansDueOnItsWeekdays(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	ctx := context.Background()
	l.lend("sunday", inParis(13, 15, 0))
	l.lend("next-sunday", inParis(20, 9, 0))
	l.lend("monday", inParis(14, 15, 0))
	set, err := l.days.SetWeekly(ctx, calendar.SetWeekly{Closed: []string{"sunday"}}, aggregate.Origin{})
	require.NoError(t, err)
	require.NoError(t, l.handle(l.last(set)))
	moves := l.moves()
	require.Len(t, moves, 2)
	require.Equal(t, endOf(14), moves["sunday"][0].DueAt)
	require.Equal(t, endOf(21), moves["next-sunday"][0].DueAt)

	none, err := l.days.SetWeekly(ctx, calendar.SetWeekly{Closed: []string{}}, aggregate.Origin{})
	require.NoError(t, err)
	head := l.head()
	require.NoError(t, l.handle(l.last(none)))
	require.Equal(t, head, l.head(), "every weekday open: nothing moves")
}

// A client that took the saga's command id as its own Idempotency-Key on the book can't keep
// the loan on the closed day: the move goes under an id of its own.
func TestAMoveDespiteATakenCommandID(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	ctx := context.Background()
	l.lend("eve", inParis(17, 12, 0))
	_, err := l.books.Renew(ctx, "eve", books.RenewLoan{LoanID: "loan-eve"}, aggregate.Origin{CommandID: "due-date:loan-eve:2026-12-24"})
	require.NoError(t, err)
	closed, err := l.days.Close(ctx, date(24), aggregate.Origin{})
	require.NoError(t, err)
	e := l.last(closed)
	require.NoError(t, l.handle(e))
	require.Len(t, l.moves()["eve"], 1)
	stream, err := l.store.ReadStream(ctx, "book-eve", 0)
	require.NoError(t, err)
	require.Equal(t, fmt.Sprintf("due-date:loan-eve:2026-12-24@%d", e.Position), stream[len(stream)-1].Metadata.CommandID)
}

// What the saga can't read is parked; what a newer release wrote pauses it; other streams and
// events are none of its business.
func TestTheSagaIgnoresOrParksWhatItCantUse(t *testing.T) {
	t.Parallel()
	l := newLibrary(t)
	ctx := context.Background()
	var park *processor.ParkError
	bad := eventstore.Event{StreamID: "calendar-library", Type: "CalendarDayClosed", Data: []byte(`{"date":"the 24th"}`)}
	require.True(t, errors.As(l.saga.Handle(ctx, bad), &park))
	newer := eventstore.Event{StreamID: "book-b1", Type: "BookLent", Data: []byte(`{"loanId":"l1"}`), Metadata: eventstore.Metadata{Schema: 9}}
	require.True(t, errs.Is(l.saga.Handle(ctx, newer), errs.Unavailable))
	for _, e := range []eventstore.Event{
		{StreamID: "shelf-b1", Type: "BookLent", Data: []byte(`{}`)},
		{StreamID: "book-b1", Type: "BookReturned", Data: []byte(`{"loanId":"l1"}`)},
		{StreamID: "calendar-library", Type: "CalendarDayReopened", Data: []byte(`{"date":"2026-12-24"}`)},
	} {
		require.NoError(t, l.saga.Handle(ctx, e))
	}
	require.Equal(t, eventstore.Checkpoint{}, l.head(), "nothing written")
}
