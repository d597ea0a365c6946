package calendar

import (
	"maps"
	"slices"
	"time"
)

// Event is a calendar event; the same type as aggregate.Event.
type Event = interface{ EventType() string }

// DayClosed records that the library is closed on Date (a holiday, a stocktaking day).
type DayClosed struct {
	Date Date `json:"date"`
}

// DayReopened records that Date is no longer closed as a date: the library opens that day
// unless its weekday is closed every week.
type DayReopened struct {
	Date Date `json:"date"`
}

// WeeklyClosingSet records the weekdays the library is closed every week from now on, by
// their names (WeekdayName), in the week's order from Sunday: all of them, not a change, so
// that the event reads alone. An empty list opens every weekday.
type WeeklyClosingSet struct {
	Closed []string `json:"closed"`
}

// The event types' names are stored data: never rename them. Processors read the log by type
// name across every aggregate, so each says it is the calendar's.

// EventType names the event in the log; never rename it.
func (DayClosed) EventType() string { return "CalendarDayClosed" }

// EventType names the event in the log; never rename it.
func (DayReopened) EventType() string { return "CalendarDayReopened" }

// EventType names the event in the log; never rename it.
func (WeeklyClosingSet) EventType() string { return "CalendarWeeklyClosingSet" }

// NewCalendar returns the calendar of a stream with no events: open every day, with no zone.
func NewCalendar() Calendar { return Calendar{Closed: map[Date]bool{}} }

// Clone returns a copy of c that Apply can change without changing c.
func Clone(c Calendar) Calendar {
	c.Closed = maps.Clone(c.Closed)
	c.Weekly = slices.Clone(c.Weekly)
	return c
}

// Apply returns the calendar after e. It changes c's map of closed dates in place (Clone first
// to keep c), since a fold from the stream's start would otherwise copy it once per event.
func Apply(c Calendar, e Event) Calendar {
	switch e := e.(type) {
	case DayClosed:
		if c.Closed == nil {
			c.Closed = map[Date]bool{}
		}
		c.Closed[e.Date] = true
	case DayReopened:
		delete(c.Closed, e.Date)
	case WeeklyClosingSet:
		c.Weekly = weeklyOf(e.Closed)
	}
	return c
}

// weeklyOf reads the weekdays of a recorded WeeklyClosingSet. Its names were checked when it
// was decided; one that can't be read (the log edited by hand) is left out rather than failing
// every load of the calendar, which would stop every loan.
func weeklyOf(names []string) []time.Weekday {
	days := make([]time.Weekday, 0, len(names))
	for _, name := range names {
		if w, err := ParseWeekday(name); err == nil {
			days = append(days, w)
		}
	}
	return weekdaySet(days)
}
