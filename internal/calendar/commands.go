package calendar

import (
	"slices"

	"library/internal/errs"
)

// The commands check what they are given (Validate, before anything is read) and decide on
// the calendar as the log holds it (Decide, which checks again, so that it is safe alone). Each
// records nothing when the calendar is already as it asks, so a command sent twice, or by two
// librarians at once, is recorded once.

// CloseDay asks that the library be closed on Date.
type CloseDay struct {
	Date Date `json:"date"`
}

// Validate refuses a command with no date.
func (c CloseDay) Validate() error { return checkDate(c.Date) }

// Decide closes the day; a day closed already records nothing. A day closed every week by its
// weekday is closed as a date too, so that it stays closed if the weekly closings change.
func (c CloseDay) Decide(cal Calendar) ([]Event, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if cal.Closed[c.Date] {
		return nil, nil
	}
	return []Event{DayClosed(c)}, nil
}

// ReopenDay asks that Date be no longer closed as a date.
type ReopenDay struct {
	Date Date `json:"date"`
}

// Validate refuses a command with no date.
func (c ReopenDay) Validate() error { return checkDate(c.Date) }

// Decide reopens the day; a day that is not a closed date records nothing. A date whose
// weekday is closed every week stays closed: ReopenDay undoes CloseDay, not the weekly
// closings.
func (c ReopenDay) Decide(cal Calendar) ([]Event, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	if !cal.Closed[c.Date] {
		return nil, nil
	}
	return []Event{DayReopened(c)}, nil
}

// SetWeekly asks that the library be closed every week on the weekdays Closed names
// (WeekdayName, in any case, in any order, repeats allowed), and on no other.
type SetWeekly struct {
	Closed []string `json:"closed"`
}

// Validate refuses an unknown weekday's name, naming it, and all seven weekdays: a library
// must open on some day, and a calendar that never opens would leave no day for a loan to be
// due.
func (c SetWeekly) Validate() error {
	days, err := ParseWeekdays(c.Closed)
	if err != nil {
		return err
	}
	if len(days) == 7 {
		return errs.E(errs.InvalidRequest, "a library must open on some day of the week: closing all seven is refused")
	}
	return nil
}

// Decide sets the weekly closings, recorded by their names in the week's order from Sunday;
// the set the calendar has already, however written, records nothing.
func (c SetWeekly) Decide(cal Calendar) ([]Event, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	days, _ := ParseWeekdays(c.Closed) // checked by Validate
	if slices.Equal(days, weekdaySet(cal.Weekly)) {
		return nil, nil
	}
	return []Event{WeeklyClosingSet{Closed: WeekdayNames(days)}}, nil
}

// checkDate refuses the zero Date, which a command sent without a date holds, and a date that
// can't be written as ParseDate reads it.
func checkDate(d Date) error {
	if d.IsZero() || d.Year() < 1 || d.Year() > 9999 {
		return errs.E(errs.InvalidRequest, "a date is written as 2026-12-25")
	}
	return nil
}
