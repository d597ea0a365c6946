package calendar

import (
	"slices"
	"time"
)

// Due returns when a loan made at lentAt for p is due back.
//
// A period of whole days (p.Days > 0) ends at the end of a day: the day p.Days days after the
// date lentAt is on, on the library's clock, counting every day, open or closed; if the library
// is closed that day, the first open day after it. The end of a day is EndOfDay's, 23:59:59 on
// the library's clock. So a book lent at 23:50 for 1 day is due at 23:59:59 the next day, and
// one lent on a Saturday for 7 days, when Saturdays are closed, is due at the end of Sunday,
// or of the next open day after. A due time is never earlier than the rule without closings
// would make it.
//
// Any other period is exact: the loan is due at lentAt + p.Exact, to the nanosecond, on
// whatever day that is, open or closed (a laptop lent for 4 hours is due back in 4 hours, not
// at closing time); the zero Period makes it due at lentAt.
//
// On a calendar closed on every weekday, weekly closings are ignored (see Calendar), so the
// due day moves off closed dates only.
func (c Calendar) Due(lentAt time.Time, p Period) time.Time {
	if p.Days <= 0 {
		return lentAt.Add(p.Exact)
	}
	c = c.counting()
	day := c.nextOpen(c.DateOf(lentAt).AddDays(p.Days))
	return c.EndOfDay(day)
}

// LateDays returns the number of days a loan due at due and returned at returned was late, for
// a fine by the day: the open days after the date due is on, up to and including the date
// returned is on, both on the library's clock. A loan returned at or before due was not late:
// 0. A closed day never counts, nor does the day the loan was due: a loan due at the end of
// Friday and returned on Monday, with the weekend closed, is 1 day late; returned on Sunday
// instead, 0. A loan of an exact period, due in the middle of a day, is counted the same way,
// by dates: returned later on its due date it is 0 days late, and on the next open day, 1.
func (c Calendar) LateDays(due, returned time.Time) int {
	if !returned.After(due) {
		return 0
	}
	return c.OpenDaysBetween(c.DateOf(due), c.DateOf(returned))
}

// PickupUntil returns how long a hold waits on the shelf from from for p: with whole days
// (p.Days > 0), until the end of the p.Days-th open day after the date from is on, on the
// library's clock (from's own day never counts, open or not); so a hold put on the shelf on a
// Friday for 2 days, with the weekend closed, waits until the end of Tuesday. With any other
// period, until from + p.Exact, exactly.
func (c Calendar) PickupUntil(from time.Time, p Period) time.Time {
	if p.Days <= 0 {
		return from.Add(p.Exact)
	}
	c = c.counting()
	day := c.DateOf(from)
	for range p.Days {
		day = c.nextOpen(day.AddDays(1))
	}
	return c.EndOfDay(day)
}

// OpenDaysBetween returns the number of open days after a, up to and including b: 0 when b is
// not after a. It takes time in the number of closed dates, not of days, so a loan years late
// costs no more to count than one a day late.
func (c Calendar) OpenDaysBetween(a, b Date) int {
	days := a.DaysUntil(b)
	if days <= 0 {
		return 0
	}
	c = c.counting()
	weekly := weekdaySet(c.Weekly)
	// Every run of 7 days holds each weekday once; the days of a shorter run at the start are
	// the rest.
	open := days / 7 * (7 - len(weekly))
	for i := 1; i <= days%7; i++ {
		if !slices.Contains(weekly, a.AddDays(i).Weekday()) {
			open++
		}
	}
	// A closed date takes a day off only when its weekday was counted open.
	for d, closed := range c.Closed {
		if closed && d.After(a) && !d.After(b) && !slices.Contains(weekly, d.Weekday()) {
			open--
		}
	}
	return open
}
