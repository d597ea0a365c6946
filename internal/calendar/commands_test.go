package calendar_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/calendar"
	"library/internal/errs"
)

func fold(given ...calendar.Event) calendar.Calendar {
	c := calendar.NewCalendar()
	for _, e := range given {
		c = calendar.Apply(c, e)
	}
	return c
}

// command is what the service will run: Validate, then Decide on the state.
type command interface {
	Validate() error
	Decide(calendar.Calendar) ([]calendar.Event, error)
}

func run(c command, state calendar.Calendar) ([]calendar.Event, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c.Decide(state)
}

// Given events, when a command, then events or an error code.
func TestDecide(t *testing.T) {
	t.Parallel()
	christmas := date(t, "2026-12-25")
	closed := calendar.DayClosed{Date: christmas}
	reopened := calendar.DayReopened{Date: christmas}
	sundays := calendar.WeeklyClosingSet{Closed: []string{"sunday"}}
	weekends := calendar.WeeklyClosingSet{Closed: []string{"sunday", "saturday"}}
	for _, c := range []struct {
		name  string
		given []calendar.Event
		when  command
		then  []calendar.Event
		err   string // a word the refusal's detail must hold
	}{
		{name: "close a day", when: calendar.CloseDay{Date: christmas}, then: []calendar.Event{closed}},
		{name: "close a closed day: nothing", given: []calendar.Event{closed}, when: calendar.CloseDay{Date: christmas}},
		{name: "close a day reopened", given: []calendar.Event{closed, reopened}, when: calendar.CloseDay{Date: christmas},
			then: []calendar.Event{closed}},
		{name: "close a day closed every week: as a date too", given: []calendar.Event{calendar.WeeklyClosingSet{Closed: []string{"friday"}}},
			when: calendar.CloseDay{Date: christmas}, then: []calendar.Event{closed}},
		{name: "close no date", when: calendar.CloseDay{}, err: "2026-12-25"},
		{name: "reopen a closed day", given: []calendar.Event{closed}, when: calendar.ReopenDay{Date: christmas}, then: []calendar.Event{reopened}},
		{name: "reopen an open day: nothing", when: calendar.ReopenDay{Date: christmas}},
		{name: "reopen a day reopened: nothing", given: []calendar.Event{closed, reopened}, when: calendar.ReopenDay{Date: christmas}},
		{name: "reopen another day: nothing", given: []calendar.Event{closed}, when: calendar.ReopenDay{Date: christmas.AddDays(1)}},
		{name: "reopen no date", when: calendar.ReopenDay{}, err: "2026-12-25"},
		{name: "close Sundays", when: calendar.SetWeekly{Closed: []string{"sunday"}}, then: []calendar.Event{sundays}},
		{name: "close weekends, written any way: in the week's order", given: []calendar.Event{sundays},
			when: calendar.SetWeekly{Closed: []string{"Saturday", "SUNDAY", "saturday"}}, then: []calendar.Event{weekends}},
		{name: "the same set again: nothing", given: []calendar.Event{weekends}, when: calendar.SetWeekly{Closed: []string{"saturday", "sunday"}}},
		{name: "no weekday closed on a calendar that has none: nothing", when: calendar.SetWeekly{}},
		{name: "open every weekday again", given: []calendar.Event{weekends}, when: calendar.SetWeekly{Closed: []string{}},
			then: []calendar.Event{calendar.WeeklyClosingSet{Closed: []string{}}}},
		{name: "six days closed", when: calendar.SetWeekly{Closed: []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday"}},
			then: []calendar.Event{calendar.WeeklyClosingSet{Closed: []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday"}}}},
		{name: "all seven closed", when: calendar.SetWeekly{Closed: []string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}},
			err: "must open on some day"},
		{name: "an unknown weekday, named by its index", given: []calendar.Event{sundays}, when: calendar.SetWeekly{Closed: []string{"sunday", "caturday"}},
			err: `closed[1]`},
		{name: "an abbreviation", when: calendar.SetWeekly{Closed: []string{"sun"}}, err: `closed[0]`},
	} {
		got, err := run(c.when, fold(c.given...))
		if c.err != "" {
			require.True(t, errs.Is(err, errs.InvalidRequest), "%s: %v", c.name, err)
			require.ErrorContains(t, err, c.err, c.name)
			_, decideErr := c.when.Decide(fold(c.given...))
			require.Equal(t, err, decideErr, "%s: Decide alone refuses it too", c.name)
			continue
		}
		require.NoError(t, err, c.name)
		require.Equal(t, c.then, got, c.name)
	}
}

func TestApply(t *testing.T) {
	t.Parallel()
	christmas, boxing := date(t, "2026-12-25"), date(t, "2026-12-26")
	c := fold(calendar.DayClosed{Date: christmas}, calendar.DayClosed{Date: boxing}, calendar.DayReopened{Date: boxing},
		calendar.WeeklyClosingSet{Closed: []string{"saturday", "sunday"}}, calendar.WeeklyClosingSet{Closed: []string{"sunday"}})
	assert.Equal(t, []calendar.Date{christmas}, c.ClosedDates())
	assert.Equal(t, []time.Weekday{time.Sunday}, c.Weekly)
	assert.Nil(t, c.Zone, "the zone is configuration, not an event")
	assert.Equal(t, time.UTC, c.EndOfDay(christmas).Location(), "no zone: UTC")

	// A name that can't be read, in a log edited by hand, is left out rather than stopping
	// every load.
	assert.Equal(t, []time.Weekday{time.Monday}, fold(calendar.WeeklyClosingSet{Closed: []string{"monday", "caturday"}}).Weekly)
	// Apply on a zero calendar, whose map is nil.
	assert.False(t, calendar.Apply(calendar.Calendar{}, calendar.DayClosed{Date: christmas}).Open(christmas))

	kept := calendar.Clone(c)
	calendar.Apply(kept, calendar.DayClosed{Date: boxing})
	assert.True(t, c.Open(boxing), "Apply on a clone leaves the original")
}

// Any sequence of commands folds into the calendar the value methods make, and each command
// decided again on what it made records nothing.
func TestCommandsFoldLikeTheirModel(t *testing.T) {
	t.Parallel()
	days := rapid.Custom(func(rt *rapid.T) calendar.Date { return window.AddDays(rapid.IntRange(0, 20).Draw(rt, "day")) })
	weekdays := rapid.SliceOfN(rapid.SampledFrom([]string{"sunday", "Monday", "TUESDAY", "wednesday", "thursday", "friday", "saturday"}), 0, 6)
	rapid.Check(t, func(rt *rapid.T) {
		state, model := calendar.NewCalendar(), calendar.NewCalendar()
		for range rapid.IntRange(0, 40).Draw(rt, "commands") {
			var c command
			switch rapid.IntRange(0, 2).Draw(rt, "kind") {
			case 0:
				d := days.Draw(rt, "close")
				c, model = calendar.CloseDay{Date: d}, model.WithClosed(d)
			case 1:
				d := days.Draw(rt, "reopen")
				c, model = calendar.ReopenDay{Date: d}, model.WithReopened(d)
			default:
				names := weekdays.Draw(rt, "weekly")
				parsed, err := calendar.ParseWeekdays(names)
				if err != nil || len(parsed) == 7 {
					rt.Fatalf("drew %v", names)
				}
				c, model = calendar.SetWeekly{Closed: names}, model.WithWeekly(parsed)
			}
			events, err := run(c, state)
			if err != nil {
				rt.Fatalf("%#v: %v", c, err)
			}
			for _, e := range events {
				state = calendar.Apply(state, e)
			}
			if again, _ := run(c, state); len(again) > 0 {
				rt.Fatalf("%#v decided again records %v", c, again)
			}
		}
		if !equalCalendars(state, model) {
			rt.Fatalf("folded %v %v, the model is %v %v", state.ClosedDates(), state.Weekly, model.ClosedDates(), model.Weekly)
		}
	})
}

func equalCalendars(a, b calendar.Calendar) bool {
	return assert.ObjectsAreEqual(a.ClosedDates(), b.ClosedDates()) && assert.ObjectsAreEqual(a.WeeklyNames(), b.WeeklyNames())
}
