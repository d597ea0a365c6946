package books

import (
	"context"
	"time"

	"library/internal/aggregate"
	"library/internal/calendar"
	"library/internal/errs"
	"library/internal/validate"
)

// A loan is never due on a day the library is closed: a closing recorded after the loan was
// decided moves its due time to the end of the next day the library opens, with DueDateMoved.
// The due-dates saga (package duedates) finds the loans a closing reaches and runs MoveDueDate
// on each, through DueDates, which reads the calendar first.

// MovedClosed is the reason of a due time moved because the library closes on the day it fell
// on. Stored data: never change it.
const MovedClosed = "closed"

// DueDateMoved records that a current loan's due time moved from From to DueAt, for Reason:
// MovedClosed, the library being closed on Date (written as 2026-12-24), the day From is on in
// the library's zone. A due time only ever moves later. MemberID is the borrower's.
type DueDateMoved struct {
	LoanID   string    `json:"loanId"`
	MemberID string    `json:"memberId"`
	From     time.Time `json:"from"`
	DueAt    time.Time `json:"dueAt"`
	Reason   string    `json:"reason"`
	Date     string    `json:"date"`
}

// EventType names the event in the log; never rename it.
func (DueDateMoved) EventType() string { return "DueDateMoved" }

// MoveDueDate asks that loan LoanID, due on Date in the library's zone, be due instead at the
// end of the first day after Date that the library opens, because it is closed on Date.
type MoveDueDate struct {
	LoanID string        `json:"loanId"`
	Date   calendar.Date `json:"date"`
}

// Validate checks the fields.
func (c MoveDueDate) Validate() error {
	if err := validate.ID("loanId", c.LoanID); err != nil {
		return err
	}
	if c.Date.IsZero() || c.Date.Year() > 9999 {
		return errs.E(errs.InvalidRequest, "date must be a day written as 2026-12-24")
	}
	return nil
}

// Decide moves the loan on the calendar cal, whose zone dates due times. It records nothing
// when there is nothing to move: the loan is not the book's current one (returned), it is due
// on another day than Date (moved or renewed since), or the library opens on Date (never closed,
// or reopened since). So a command run twice, or after the loan moved otherwise, records
// nothing. The new due time is the one Calendar.Due gives a loan of one day lent on Date: the
// end of the first open day after it. A calendar that opens on no weekday, which the calendar's
// commands never record, moves nothing, so that no due time moves for ever.
func (c MoveDueDate) Decide(b Book, cal calendar.Calendar) ([]Event, error) {
	switch {
	case !b.Added:
		return nil, errs.E(errs.NotFound, "there is no such book")
	case b.Loan == nil || b.Loan.LoanID != c.LoanID:
		return nil, nil
	case cal.DateOf(b.Loan.DueAt) != c.Date, cal.Open(c.Date), len(cal.WeeklyNames()) == 7:
		return nil, nil
	}
	to := cal.Due(b.Loan.DueAt, calendar.Period{Days: 1}).UTC()
	return []Event{DueDateMoved{LoanID: c.LoanID, MemberID: b.Loan.MemberID, From: b.Loan.DueAt, DueAt: to,
		Reason: MovedClosed, Date: c.Date.String()}}, nil
}

// MoveCommandID is the command id of moving loanID off date: a retry, or the same move asked
// for again by the next holder of the saga's lease, is answered from the log. A loan's due
// time only moves later, so it is never due on date again, and the id names one move.
func MoveCommandID(loanID string, date calendar.Date) string {
	return "due-date:" + loanID + ":" + date.String()
}

// CalendarReader reads the library's calendar as the log holds it (calendar.Service is one).
type CalendarReader interface {
	Get(ctx context.Context) (calendar.Calendar, error)
}

// DueDates moves loans' due times off the days the library closes: the books' service with the
// library's calendar, whose days are those of Zone's clock (LIBRARY_TIMEZONE; nil is UTC).
type DueDates struct {
	Books    *Service
	Calendar CalendarReader
	Zone     *time.Location
}

// Move runs MoveDueDate on bookID, decided on the calendar as the log holds it now, under the
// command id MoveCommandID unless o names one. It looks at the book first and runs no command
// when there is nothing to move, so that a second run, or a replay of the saga, writes nothing
// at all, not even the record of a repeated command; then the Result has no events.
func (d DueDates) Move(ctx context.Context, bookID string, c MoveDueDate, o aggregate.Origin) (aggregate.Result, error) {
	if err := c.Validate(); err != nil {
		return aggregate.Result{}, err
	}
	cal, err := d.Calendar.Get(ctx)
	if err != nil {
		return aggregate.Result{}, err
	}
	cal = cal.In(d.Zone)
	book, version, err := d.Books.Get(ctx, bookID)
	if err != nil {
		return aggregate.Result{}, err
	}
	if decided, err := c.Decide(book, cal); err != nil || len(decided) == 0 {
		return aggregate.Result{StreamID: Type().StreamID(bookID), Version: version}, err
	}
	if o.CommandID == "" {
		o.CommandID = MoveCommandID(c.LoanID, c.Date)
	}
	return d.Books.repo.Execute(ctx, bookID, aggregate.Command[Book]{
		Name: "moveDueDate", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) { return c.Decide(b, cal) },
	})
}
