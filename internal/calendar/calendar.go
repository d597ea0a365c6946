package calendar

import (
	"maps"
	"slices"
	"time"
)

// Calendar is the library's days: the weekdays it closes every week, the dates it closes, and
// the zone whose clock says which day a time is on. It is the state of the calendar's
// aggregate (Apply folds its events into it, with no zone) and, given a zone (In), what
// turns loan and hold periods into times.
//
// Its methods never change the calendar they are called on: those that make another return
// one with a map and slice of its own. Apply alone changes the calendar it is given, as every
// aggregate's Apply may (aggregate.Type; Clone makes the copy it changes).
//
// A calendar whose Weekly holds all seven weekdays has no open day at all. SetWeekly never
// records one, and the service refuses one; should one be built all the same, Due,
// PickupUntil, LateDays and OpenDaysBetween ignore its weekly closings (its closed dates
// still count), so that each ends and a loan is still due some day. Open tells the truth.
type Calendar struct {
	// Zone is the library's time zone, whose clock dates times; nil is UTC.
	Zone *time.Location
	// Weekly are the weekdays the library is closed every week.
	Weekly []time.Weekday
	// Closed are the dates the library is closed: a date is closed when it maps to true.
	Closed map[Date]bool
}

// In returns the calendar with times dated on zone's clock. The zone is configuration, not an
// event: the folded state has none until it is given one here.
func (c Calendar) In(zone *time.Location) Calendar {
	c.Zone = zone
	return c
}

// WithClosed returns the calendar with the date d closed too.
func (c Calendar) WithClosed(d Date) Calendar {
	c.Closed = maps.Clone(c.Closed)
	if c.Closed == nil {
		c.Closed = map[Date]bool{}
	}
	c.Closed[d] = true
	return c
}

// WithReopened returns the calendar with the date d no longer closed as a date; it is open
// unless its weekday is closed every week.
func (c Calendar) WithReopened(d Date) Calendar {
	c.Closed = maps.Clone(c.Closed)
	delete(c.Closed, d)
	return c
}

// WithWeekly returns the calendar closed every week on days, and on no other weekday.
func (c Calendar) WithWeekly(days []time.Weekday) Calendar {
	c.Weekly = weekdaySet(days)
	return c
}

// zone is the calendar's zone, UTC when it has none.
func (c Calendar) zone() *time.Location {
	if c.Zone == nil {
		return time.UTC
	}
	return c.Zone
}

// Open reports whether the library is open on d: its weekday is not closed every week, and d
// is not a closed date.
func (c Calendar) Open(d Date) bool {
	return !c.Closed[d] && !slices.Contains(c.Weekly, d.Weekday())
}

// ClosedDates lists the closed dates, in order.
func (c Calendar) ClosedDates() []Date {
	dates := make([]Date, 0, len(c.Closed))
	for d, closed := range c.Closed {
		if closed {
			dates = append(dates, d)
		}
	}
	slices.SortFunc(dates, Date.Compare)
	return dates
}

// WeeklyNames lists the weekdays closed every week by their names, in the week's order from
// Sunday, for JSON.
func (c Calendar) WeeklyNames() []string { return WeekdayNames(weekdaySet(c.Weekly)) }

// DateOf returns the date the library's clock shows at t.
func (c Calendar) DateOf(t time.Time) Date { return DateOf(t, c.zone()) }

// EndOfDay returns the last second of d on the library's clock: 23:59:59 there, also when the
// clocks change that day. Where a change makes the clock show 23:59:59 twice (it goes back at
// midnight), it is the second time, the day's last.
func (c Calendar) EndOfDay(d Date) time.Time { return endOf(d, c.zone()) }

// counting is the calendar that Due, PickupUntil, LateDays and OpenDaysBetween count days on:
// c itself, or, when c closes every weekday, c without its weekly closings (see Calendar).
func (c Calendar) counting() Calendar {
	if len(weekdaySet(c.Weekly)) == 7 {
		c.Weekly = nil
	}
	return c
}

// nextOpen returns the first open day from d on, d itself when it is open. On a counting
// calendar it ends: some weekday is open, and only the finitely many closed dates can close
// it, so an open day comes within 7 × (len(Closed) + 1) days.
func (c Calendar) nextOpen(d Date) Date {
	for !c.Open(d) {
		d = d.AddDays(1)
	}
	return d
}
