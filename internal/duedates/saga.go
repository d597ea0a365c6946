package duedates

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/calendar"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
)

// Name is the saga's name: its lease, its checkpoint. Never rename it.
const Name = "due-dates"

// Moves moves a loan's due time off a closed day (books.DueDates is one): it reads the calendar
// and the book first, and runs no command when there is nothing to move.
type Moves interface {
	Move(ctx context.Context, bookID string, c books.MoveDueDate, o aggregate.Origin) (aggregate.Result, error)
}

// Calendar reads the library's calendar as the log holds it (calendar.Service is one).
type Calendar interface {
	Get(ctx context.Context) (calendar.Calendar, error)
}

// Loan is a current loan as the loans view has it: its book, its id and its due time.
type Loan struct {
	BookID, LoanID string
	DueAt          time.Time
}

// Loans is the loans view as the saga reads it (internal/app fills it from loans.View).
type Loans interface {
	// Due hands each the current loans due at or after from and before to (a zero time
	// bounds nothing), a page at a time, and returns the view's position as of the first page.
	Due(ctx context.Context, from, to time.Time, each func([]Loan) error) (processor.Position, error)
}

// Log counts the events of some types after a checkpoint (eventstore.Store is one).
type Log interface {
	CountAfter(ctx context.Context, after eventstore.Checkpoint, types ...string) (int64, error)
}

// Saga moves the loans due on the days the library closes.
type Saga struct {
	Moves    Moves
	Calendar Calendar
	// Zone is the library's time zone (LIBRARY_TIMEZONE), whose clock says which day a due
	// time is on; nil is UTC.
	Zone  *time.Location
	Loans Loans
	// LoanTypes are the event types the loans view reads (loans.Processor's Types): the view
	// has reached a closing when none of them is left after its checkpoint.
	LoanTypes []string
	Log       Log
	// WaitFor is how long a closing waits for the loans view before it looks again; default
	// 250ms.
	WaitFor time.Duration
	// Logger says how many loans each closing moved. Nil: nobody.
	Logger *slog.Logger
}

// Processor is the saga as a processor to run.
func (s Saga) Processor() processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindSaga, Handler: s, Types: []string{
		calendar.DayClosed{}.EventType(), calendar.WeeklyClosingSet{}.EventType(),
		books.BookLent{}.EventType(), books.LoanRenewed{}.EventType(), books.DueDateMoved{}.EventType()}}
}

// actor is who the log says recorded what the saga did.
var actor = eventstore.Actor{Subject: Name, Role: "system"}

var calendarType = calendar.Type()

// Handle implements processor.Handler.
func (s Saga) Handle(ctx context.Context, e eventstore.Event) error {
	if calendarType.Owns(e) {
		decoded, err := calendarType.Decode(e)
		if err != nil {
			return processor.Unreadable(e, err)
		}
		return s.closing(ctx, e, decoded)
	}
	bookID, ok := books.BookID(e)
	if !ok {
		return nil
	}
	decoded, err := books.Decode(e)
	if err != nil {
		return processor.Unreadable(e, err)
	}
	switch ev := decoded.(type) {
	case books.BookLent:
		return s.decided(ctx, e, bookID, ev.LoanID, ev.DueAt)
	case books.LoanRenewed:
		return s.decided(ctx, e, bookID, ev.LoanID, ev.DueAt)
	case books.DueDateMoved:
		return s.decided(ctx, e, bookID, ev.LoanID, ev.DueAt)
	}
	return nil
}

// decided moves a loan whose due time, as a command just decided it, is on a day the calendar
// closes now: one decided on a calendar read before a closing that the log holds before it.
func (s Saga) decided(ctx context.Context, e eventstore.Event, bookID, loanID string, due time.Time) error {
	cal, err := s.calendar(ctx)
	if err != nil {
		return err
	}
	day := cal.DateOf(due)
	if cal.Open(day) {
		return nil
	}
	_, err = s.move(ctx, e, bookID, books.MoveDueDate{LoanID: loanID, Date: day})
	return err
}

// closing moves the loans due on the days a closing closed, once the loans view has reached it.
func (s Saga) closing(ctx context.Context, e eventstore.Event, decoded calendar.Event) error {
	cal, err := s.calendar(ctx)
	if err != nil {
		return err
	}
	from, to, ok := reach(cal, decoded)
	if !ok {
		return nil
	}
	var due []Loan
	pos, err := s.Loans.Due(ctx, from, to, func(page []Loan) error {
		for _, l := range page {
			if !cal.Open(cal.DateOf(l.DueAt)) {
				due = append(due, l)
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if there, err := s.reached(ctx, pos, e.Checkpoint()); err != nil || !there {
		if err != nil {
			return err
		}
		return processor.Wait(s.waitFor(), errs.E(errs.NotCaughtUp, "the loans view has not reached the closing at position %d yet", e.Position))
	}
	return s.moveAll(ctx, e, cal, due)
}

// reach is the time the loans a closing may reach are due within, on the calendar as it is
// now: the day closed (nothing when it is open again), or, for weekly closings, all time
// (nothing when every weekday opens). A zero time bounds nothing.
func reach(cal calendar.Calendar, decoded calendar.Event) (from, to time.Time, ok bool) {
	switch ev := decoded.(type) {
	case calendar.DayClosed:
		if cal.Open(ev.Date) {
			return from, to, false // reopened since
		}
		return startOf(cal, ev.Date), startOf(cal, ev.Date.AddDays(1)), true
	case calendar.WeeklyClosingSet:
		return from, to, len(ev.Closed) > 0
	}
	return from, to, false
}

// moveAll moves each loan off the closed day it is due on, one after another.
func (s Saga) moveAll(ctx context.Context, e eventstore.Event, cal calendar.Calendar, due []Loan) error {
	moved := 0
	for _, l := range due {
		recorded, err := s.move(ctx, e, l.BookID, books.MoveDueDate{LoanID: l.LoanID, Date: cal.DateOf(l.DueAt)})
		if err != nil {
			return err
		}
		if recorded {
			moved++
		}
	}
	if s.Logger != nil && len(due) > 0 {
		s.Logger.LogAttrs(ctx, slog.LevelInfo, "due dates moved off closed days", slog.String("processor", Name),
			slog.String("closing", e.Type), slog.Int64("position", e.Position), slog.Int("due", len(due)), slog.Int("moved", moved))
	}
	return nil
}

// reached reports whether the loans view, read at pos, has reached the event at target: its
// checkpoint is there, or no event it reads is left after its checkpoint.
func (s Saga) reached(ctx context.Context, pos processor.Position, target eventstore.Checkpoint) (bool, error) {
	if !pos.Checkpoint.Before(target) {
		return true, nil
	}
	left, err := s.Log.CountAfter(ctx, pos.Checkpoint, s.LoanTypes...)
	return err == nil && left == 0, err
}

// move runs MoveDueDate on a book, for the event e, and reports whether it recorded the move.
// A book or loan that is gone has nothing to move; a command id a client took as its own
// Idempotency-Key on the book gives way to one made from e.
func (s Saga) move(ctx context.Context, e eventstore.Event, bookID string, c books.MoveDueDate) (bool, error) {
	origin := aggregate.Origin{CorrelationID: e.Metadata.CorrelationID, Actor: actor}
	result, err := s.Moves.Move(ctx, bookID, c, origin)
	if errs.Is(err, errs.IdempotencyKeyReused) {
		origin.CommandID = books.MoveCommandID(c.LoanID, c.Date) + "@" + strconv.FormatInt(e.Position, 10)
		result, err = s.Moves.Move(ctx, bookID, c, origin)
	}
	switch {
	case err == nil:
		return result.Recorded() && !result.Replayed, nil
	case errs.Is(err, errs.NotFound):
		return false, nil
	case errs.Is(err, errs.InvalidRequest):
		return false, processor.Park(err.Error())
	default:
		return false, err
	}
}

// calendar is the library's calendar as the log holds it now, on the library's clock.
func (s Saga) calendar(ctx context.Context) (calendar.Calendar, error) {
	cal, err := s.Calendar.Get(ctx)
	if err != nil {
		return calendar.Calendar{}, err
	}
	return cal.In(s.Zone), nil
}

// startOf is the first second of d on the calendar's clock: the second after the day before
// ends.
func startOf(cal calendar.Calendar, d calendar.Date) time.Time {
	return cal.EndOfDay(d.AddDays(-1)).Add(time.Second)
}

func (s Saga) waitFor() time.Duration {
	if s.WaitFor <= 0 {
		return 250 * time.Millisecond
	}
	return s.WaitFor
}
