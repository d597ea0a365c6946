package lostloans_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/calendar"
	"library/internal/circulation"
	"library/internal/eventstore"
	"library/internal/lostloans"
	"library/internal/processor"
	"library/internal/testkit/testclock"
)

// fixture is the saga on books and accounts in memory, on a test clock, lending on a table whose
// DVDs are lost after 3 open days and cost 4000, on a calendar closed on Sundays, in UTC.
type fixture struct {
	t        *testing.T
	ctx      context.Context
	clock    *testclock.Clock
	log      *eventstore.Memory
	books    *books.Service
	accounts *accounts.Service
	cal      calendar.Calendar
	saga     lostloans.Saga
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	f := &fixture{t: t, ctx: context.Background(), log: eventstore.NewMemory(nil),
		clock: testclock.New(time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)), // a Tuesday
		cal:   calendar.Calendar{}.WithWeekly([]time.Weekday{time.Sunday}).In(time.UTC)}
	week := calendar.Period{Days: 7}
	rows := []circulation.Row{{Key: circulation.Key{Group: "*", MaterialType: "dvd"}, LoanPeriod: &week, LostAfter: new(3),
		ReplacementPrice: new(int64(4000))}}
	defaults := circulation.Defaults(circulation.Environment{LoanPeriod: 14 * 24 * time.Hour, RenewalsMax: 2, MaxLoans: 10, FinePerDay: 25})
	desk := func(context.Context) (circulation.Desk, error) {
		return circulation.Desk{Rules: circulation.Rules{Table: circulation.Table{Rows: rows}, Version: 1}, Defaults: defaults, Calendar: f.cal}, nil
	}
	f.accounts = accounts.NewService(f.log, aggregate.Options{})
	f.books = books.NewService(f.log, aggregate.Options{}, f.clock.Now, books.Policy{LoanPeriod: 14 * 24 * time.Hour, MaxRenewals: 2, Desk: desk},
		f.accounts).WithLosses(f.accounts)
	f.saga = lostloans.Saga{Books: f.books}
	_, err := f.books.Add(f.ctx, books.AddBook{ID: "dune", Title: "Dune", Author: "Frank Herbert", MaterialType: "dvd"}, aggregate.Origin{})
	require.NoError(t, err)
	return f
}

// last is the book's last event of a type.
func (f *fixture) last(typ string) eventstore.Event {
	f.t.Helper()
	stream, err := f.log.ReadStream(f.ctx, "book-dune", 0)
	require.NoError(f.t, err)
	for i := len(stream) - 1; i >= 0; i-- {
		if stream[i].Type == typ {
			return stream[i]
		}
	}
	f.t.Fatalf("no %s", typ)
	return eventstore.Event{}
}

// handle hands an event to the saga as the engine does, and returns the timer changes.
func (f *fixture) handle(e eventstore.Event) []processor.TimerChange {
	f.t.Helper()
	ctx, timers := processor.RecordTimers(f.ctx)
	require.NoError(f.t, f.saga.Handle(ctx, e))
	return timers.Changes()
}

// fire fires a scheduled timer, and returns the changes the fire made.
func (f *fixture) fire(c processor.TimerChange) []processor.TimerChange {
	f.t.Helper()
	require.False(f.t, c.Cancel)
	ctx, timers := processor.RecordTimers(f.ctx)
	require.NoError(f.t, f.saga.Fire(ctx, processor.Timer{Key: c.Key, At: c.At, Data: c.Data}))
	return timers.Changes()
}

func (f *fixture) version() int64 {
	f.t.Helper()
	_, v, err := f.books.Get(f.ctx, "dune")
	require.NoError(f.t, err)
	return v
}

// A loan made on the rules has its timer at the end of its third open day overdue; a renewal
// moves it; when it fires the loan is lost, the copy charged at its type's price on the
// member's account, and the loan closed there; a fire repeated, and a replay of the whole
// saga, write nothing.
func TestALoanIsLostAfterItsOpenDays(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.books.Lend(f.ctx, "dune", books.LendBook{LoanID: "l1", MemberID: "m1"}, aggregate.Origin{})
	require.NoError(t, err)
	lent := f.handle(f.last("BookLent"))
	require.Len(t, lent, 1)
	assert.Equal(t, "lost:dune/l1", lent[0].Key)
	// Due the end of Tuesday the 17th; Wednesday, Thursday, Friday.
	assert.Equal(t, time.Date(2026, 3, 20, 23, 59, 59, 0, time.UTC), lent[0].At)

	_, err = f.books.Renew(f.ctx, "dune", books.RenewLoan{LoanID: "l1"}, aggregate.Origin{})
	require.NoError(t, err)
	renewed := f.handle(f.last("LoanRenewed"))
	require.Len(t, renewed, 1)
	// Due the end of Tuesday the 24th; Wednesday, Thursday, Friday.
	assert.Equal(t, time.Date(2026, 3, 27, 23, 59, 59, 0, time.UTC), renewed[0].At)

	before := f.version()
	moved := f.fire(lent[0])
	require.Len(t, moved, 1, "the old timer, fired before the renewal was read, is set for the renewed loan")
	assert.Equal(t, renewed[0].At, moved[0].At)
	assert.Equal(t, before, f.version(), "and records nothing")
	assert.Empty(t, f.fire(renewed[0]))
	lost := f.last("LoanLost")
	assert.JSONEq(t, `{"loanId":"l1","memberId":"m1","lostAt":"2026-03-27T23:59:59Z","charge":4000,"by":"rules"}`, string(lost.Data))
	assert.Equal(t, "lost:l1@1774655999", lost.Metadata.CommandID, "derived from the loan and the timer")
	account, _, err := f.accounts.Get(f.ctx, "m1")
	require.NoError(t, err)
	assert.EqualValues(t, 4000, account.Balance)
	assert.Zero(t, account.OnLoan())

	after := f.version()
	assert.Greater(t, after, before)
	assert.Empty(t, f.fire(renewed[0]), "a fire repeated after a failover")
	for _, typ := range []string{"BookLent", "LoanRenewed"} {
		assert.Equal(t, []processor.TimerChange{{Key: "lost:dune/l1", Cancel: true}}, f.handle(f.last(typ)), "a replay: %s", typ)
	}
	assert.Equal(t, []processor.TimerChange{{Key: "lost:dune/l1", Cancel: true}}, f.handle(lost))
	assert.Equal(t, after, f.version(), "nothing written by the repeat or the replay")
}

// A day closed after the timer was set makes the loan lost a day later: the fire sets the
// timer again for then, and records nothing yet.
func TestADayClosedSinceMovesTheLossLater(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.books.Lend(f.ctx, "dune", books.LendBook{LoanID: "l1", MemberID: "m1"}, aggregate.Origin{})
	require.NoError(t, err)
	timer := f.handle(f.last("BookLent"))[0]
	f.cal = f.cal.WithClosed(calendar.NewDate(2026, time.March, 19))
	before := f.version()
	again := f.fire(timer)
	require.Len(t, again, 1)
	assert.Equal(t, timer.Key, again[0].Key)
	assert.Equal(t, time.Date(2026, 3, 21, 23, 59, 59, 0, time.UTC), again[0].At, "Thursday the 19th closed: Saturday")
	assert.Equal(t, before, f.version())
}

// A loan's end cancels its timer; a loan made before the rules, with no terms, has none.
func TestOnlyALoanOnTheRulesIsLostByThem(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.books.Lend(f.ctx, "dune", books.LendBook{LoanID: "l1", MemberID: "m1"}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = f.books.Return(f.ctx, "dune", books.ReturnBook{LoanID: "l1"}, aggregate.Origin{})
	require.NoError(t, err)
	cancel := []processor.TimerChange{{Key: "lost:dune/l1", Cancel: true}}
	assert.Equal(t, cancel, f.handle(f.last("BookReturned")))
	assert.Equal(t, cancel, f.handle(f.last("BookLent")), "read after the return: no timer")

	plain := books.NewService(f.log, aggregate.Options{}, f.clock.Now, books.Policy{LoanPeriod: time.Hour}, nil)
	_, err = plain.Lend(f.ctx, "dune", books.LendBook{LoanID: "l2", MemberID: "m1"}, aggregate.Origin{})
	require.NoError(t, err)
	assert.Equal(t, []processor.TimerChange{{Key: "lost:dune/l2", Cancel: true}}, f.handle(f.last("BookLent")))
}

// calendarOf reads the fixture's calendar, as calendar.Service does the log's.
type calendarOf struct{ f *fixture }

func (c calendarOf) Get(context.Context) (calendar.Calendar, error) { return c.f.cal, nil }

// A loan moved off a day the library closes (DueDateMoved) has its timer moved with it.
func TestADueDateMovedMovesTheLoss(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.books.Lend(f.ctx, "dune", books.LendBook{LoanID: "l1", MemberID: "m1"}, aggregate.Origin{})
	require.NoError(t, err)
	assert.Equal(t, time.Date(2026, 3, 20, 23, 59, 59, 0, time.UTC), f.handle(f.last("BookLent"))[0].At)
	tuesday := calendar.NewDate(2026, time.March, 17)
	f.cal = f.cal.WithClosed(tuesday) // the day it is due
	moved, err := books.DueDates{Books: f.books, Calendar: calendarOf{f}, Zone: time.UTC}.
		Move(f.ctx, "dune", books.MoveDueDate{LoanID: "l1", Date: tuesday}, aggregate.Origin{})
	require.NoError(t, err)
	require.Len(t, moved.Events, 1)
	again := f.handle(f.last("DueDateMoved"))
	require.Len(t, again, 1)
	// Due the end of Wednesday the 18th; Thursday, Friday, Saturday.
	assert.Equal(t, time.Date(2026, 3, 21, 23, 59, 59, 0, time.UTC), again[0].At)
}
