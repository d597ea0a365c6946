package calendar_test

import (
	"testing"
	"time"

	"pgregory.net/rapid"

	"library/internal/calendar"
)

// The zones the properties are tried in: with and without changes of clocks, at night or at
// midnight, of an hour or half of one, and the zones furthest from UTC both ways.
var propertyZones = []string{"UTC", "Europe/London", "America/New_York", "America/Santiago", "America/Havana",
	"Australia/Lord_Howe", "Asia/Kolkata", "Pacific/Kiritimati", "Pacific/Pago_Pago", "Pacific/Chatham"}

// window is the first day of the stretch the properties' times and closings fall in: closings
// are in the 500 days from it, times in the first 400, so that loans run into closings often.
var window = calendar.NewDate(2026, time.January, 1)

// generators draws the calendars, times and periods the properties are tried on.
type generators struct {
	calendars *rapid.Generator[calendar.Calendar]
	times     *rapid.Generator[time.Time]
	days      *rapid.Generator[int]
}

func newGenerators(t *testing.T) generators {
	zones := make([]*time.Location, len(propertyZones))
	for i, name := range propertyZones {
		zones[i] = zone(t, name)
	}
	start := time.Date(2025, time.December, 31, 0, 0, 0, 0, time.UTC)
	return generators{
		calendars: rapid.Custom(func(rt *rapid.T) calendar.Calendar {
			c := calendar.Calendar{Zone: rapid.SampledFrom(zones).Draw(rt, "zone")}
			weekly := rapid.SliceOfNDistinct(rapid.IntRange(0, 6), 0, 6, rapid.ID).Draw(rt, "weekly")
			for _, w := range weekly {
				c = c.WithWeekly(append(c.Weekly, time.Weekday(w)))
			}
			// Closings come in runs, as holidays and works do: a day, a long weekend, a month.
			for range rapid.IntRange(0, 15).Draw(rt, "runs") {
				first := window.AddDays(rapid.IntRange(0, 500).Draw(rt, "run"))
				for i := range rapid.IntRange(1, 12).Draw(rt, "length") {
					c = c.WithClosed(first.AddDays(i))
				}
			}
			return c
		}),
		times: rapid.Custom(func(rt *rapid.T) time.Time {
			return start.Add(time.Duration(rapid.Int64Range(0, 400*24*3600).Draw(rt, "seconds")) * time.Second)
		}),
		days: rapid.IntRange(1, 60),
	}
}

// naiveOpenDays counts the open days after a, up to and including b, one day at a time.
func naiveOpenDays(c calendar.Calendar, a, b calendar.Date) int {
	n := 0
	for d := a.AddDays(1); !d.After(b); d = d.AddDays(1) {
		if c.Open(d) {
			n++
		}
	}
	return n
}

// isEndOfDay reports whether t is the last second of a day on c's clock, 23:59:59 there.
func isEndOfDay(c calendar.Calendar, t time.Time) bool {
	h, m, s := t.In(c.Zone).Clock()
	return h == 23 && m == 59 && s == 59 && t.Nanosecond() == 0 && c.DateOf(t.Add(time.Second)) == c.DateOf(t).AddDays(1)
}

// A loan of whole days is due at the end of an open day, at least its days after the day it
// was lent, and at the first open day from then on; an exact one is due exactly that long after.
func TestDueProperties(t *testing.T) {
	t.Parallel()
	g := newGenerators(t)
	rapid.Check(t, func(rt *rapid.T) {
		c, lentAt, days := g.calendars.Draw(rt, "calendar"), g.times.Draw(rt, "lentAt"), g.days.Draw(rt, "days")
		due := c.Due(lentAt, calendar.Period{Days: days})
		day := c.DateOf(due)
		earliest := c.DateOf(lentAt).AddDays(days)
		if !c.Open(day) {
			rt.Fatalf("due on %s, a closed day", day)
		}
		if day.Before(earliest) {
			rt.Fatalf("due on %s, before %s, %d days after it was lent", day, earliest, days)
		}
		for d := earliest; d.Before(day); d = d.AddDays(1) {
			if c.Open(d) {
				rt.Fatalf("due on %s, past %s, which is open", day, d)
			}
		}
		if !isEndOfDay(c, due) || !due.Equal(c.EndOfDay(day)) {
			rt.Fatalf("due at %s, not the end of a day", due)
		}
		exact := time.Duration(rapid.Int64Range(1, 30*24*3600).Draw(rt, "exact")) * time.Second
		if got := c.Due(lentAt, calendar.Period{Exact: exact}); !got.Equal(lentAt.Add(exact)) {
			rt.Fatalf("due at %s for %s, not %s", got, exact, lentAt.Add(exact))
		}
	})
}

// Late days are the open days after the due date up to the day of return, counted a day at a
// time; closing a day of that stretch takes one off when it was open, and never adds one.
func TestLateDaysProperties(t *testing.T) {
	t.Parallel()
	g := newGenerators(t)
	rapid.Check(t, func(rt *rapid.T) {
		c, lentAt := g.calendars.Draw(rt, "calendar"), g.times.Draw(rt, "lentAt")
		p := calendar.Period{Days: g.days.Draw(rt, "days")}
		if rapid.Bool().Draw(rt, "exact") {
			p = calendar.Period{Exact: time.Duration(rapid.Int64Range(1, 10*24*3600).Draw(rt, "exactSeconds")) * time.Second}
		}
		due := c.Due(lentAt, p)
		returned := due.Add(time.Duration(rapid.Int64Range(-3*24*3600, 120*24*3600).Draw(rt, "lateBy")) * time.Second)
		late := c.LateDays(due, returned)
		want := 0
		if returned.After(due) {
			want = naiveOpenDays(c, c.DateOf(due), c.DateOf(returned))
		}
		if late != want {
			rt.Fatalf("returned at %s, due at %s: %d late days, counted %d", returned, due, late, want)
		}
		span := c.DateOf(due).DaysUntil(c.DateOf(returned))
		if span < 1 {
			return
		}
		closing := c.DateOf(due).AddDays(rapid.IntRange(1, span).Draw(rt, "closing"))
		after := c.WithClosed(closing).LateDays(due, returned)
		if c.Open(closing) && returned.After(due) {
			want--
		}
		if after != want || after > late {
			rt.Fatalf("closing %s made %d late days %d", closing, late, after)
		}
	})
}

// OpenDaysBetween, which counts weeks at a time, agrees with counting a day at a time.
func TestOpenDaysBetweenCountsEachDay(t *testing.T) {
	t.Parallel()
	g := newGenerators(t)
	rapid.Check(t, func(rt *rapid.T) {
		c := g.calendars.Draw(rt, "calendar")
		a := window.AddDays(rapid.IntRange(-10, 510).Draw(rt, "a"))
		b := window.AddDays(rapid.IntRange(-10, 510).Draw(rt, "b"))
		if got, want := c.OpenDaysBetween(a, b), naiveOpenDays(c, a, b); got != want {
			rt.Fatalf("%s to %s: %d open days, counted %d", a, b, got, want)
		}
	})
}

// A hold waits until the end of an open day, with exactly its days of open days after the day
// it was put on the shelf.
func TestPickupUntilProperties(t *testing.T) {
	t.Parallel()
	g := newGenerators(t)
	rapid.Check(t, func(rt *rapid.T) {
		c, from, days := g.calendars.Draw(rt, "calendar"), g.times.Draw(rt, "from"), g.days.Draw(rt, "days")
		until := c.PickupUntil(from, calendar.Period{Days: days})
		day := c.DateOf(until)
		if !c.Open(day) {
			rt.Fatalf("until %s, a closed day", day)
		}
		if !isEndOfDay(c, until) {
			rt.Fatalf("until %s, not the end of a day", until)
		}
		if n := naiveOpenDays(c, c.DateOf(from), day); n != days {
			rt.Fatalf("until %s: %d open days, not %d", day, n, days)
		}
	})
}

// A calendar closed every weekday still makes times, past its closed dates only.
func TestNoOpenWeekdayEnds(t *testing.T) {
	t.Parallel()
	g := newGenerators(t)
	all := []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
	rapid.Check(t, func(rt *rapid.T) {
		c := g.calendars.Draw(rt, "calendar").WithWeekly(all)
		lentAt, days := g.times.Draw(rt, "lentAt"), g.days.Draw(rt, "days")
		for _, at := range []time.Time{c.Due(lentAt, calendar.Period{Days: days}), c.PickupUntil(lentAt, calendar.Period{Days: days})} {
			if c.Closed[c.DateOf(at)] || !isEndOfDay(c, at) {
				rt.Fatalf("%s: on a closed date, or not the end of a day", at)
			}
		}
	})
}
