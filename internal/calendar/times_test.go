package calendar_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/calendar"
)

// london is a library in London closed on Sundays, on Christmas Day, Boxing Day and New
// Year's Day 2027, and on 29 February 2028.
func london(t testing.TB) calendar.Calendar {
	t.Helper()
	c := calendar.Calendar{Zone: zone(t, "Europe/London")}.WithWeekly([]time.Weekday{time.Sunday})
	for _, d := range []string{"2026-12-25", "2026-12-26", "2027-01-01", "2028-02-29"} {
		c = c.WithClosed(date(t, d))
	}
	return c
}

// at is a time on the London library's clock, written as 2026-12-25T10:00.
func at(t testing.TB, local string) time.Time {
	t.Helper()
	v, err := time.ParseInLocation("2006-01-02T15:04", local, zone(t, "Europe/London"))
	require.NoError(t, err)
	return v
}

// endOf is the end of the day d on the London library's clock, where no day below has its
// clocks changed: 23:59:59.
func endOf(t testing.TB, d string) time.Time { return at(t, d+"T23:59").Add(59 * time.Second) }

func TestOpen(t *testing.T) {
	t.Parallel()
	c := london(t)
	for d, open := range map[string]bool{
		"2026-12-24": true, "2026-12-25": false, "2026-12-26": false, "2026-12-27": false, "2026-12-28": true,
		"2027-01-01": false, "2027-01-02": true, "2028-02-29": false, "2028-03-01": true,
	} {
		assert.Equal(t, open, c.Open(date(t, d)), d)
	}
	assert.Equal(t, []calendar.Date{date(t, "2026-12-25"), date(t, "2026-12-26"), date(t, "2027-01-01"), date(t, "2028-02-29")}, c.ClosedDates())
	assert.Equal(t, []string{"sunday"}, c.WeeklyNames())
}

// The methods that make a calendar leave the one they are called on as it was.
func TestCalendarsAreValues(t *testing.T) {
	t.Parallel()
	c := london(t)
	reopened := c.WithReopened(date(t, "2026-12-25"))
	closed := c.WithClosed(date(t, "2026-12-24"))
	weekly := c.WithWeekly([]time.Weekday{time.Saturday, time.Sunday, time.Saturday})
	assert.False(t, c.Open(date(t, "2026-12-25")))
	assert.True(t, c.Open(date(t, "2026-12-24")))
	assert.True(t, c.Open(date(t, "2026-12-19")), "a Saturday")
	assert.True(t, reopened.Open(date(t, "2026-12-25")))
	assert.False(t, closed.Open(date(t, "2026-12-24")))
	assert.False(t, weekly.Open(date(t, "2026-12-19")))
	assert.Equal(t, []time.Weekday{time.Sunday, time.Saturday}, weekly.Weekly, "once each, in the week's order")
	assert.False(t, calendar.Calendar{}.WithClosed(date(t, "2026-12-24")).Open(date(t, "2026-12-24")), "a zero calendar takes a closing")
	assert.True(t, calendar.Calendar{}.Open(date(t, "2026-12-25")), "a zero calendar is open every day")
}

func TestDue(t *testing.T) {
	t.Parallel()
	c := london(t)
	days := func(n int) calendar.Period { return calendar.Period{Days: n} }
	for _, tc := range []struct {
		name   string
		lentAt time.Time
		p      calendar.Period
		want   time.Time
	}{
		{"three weeks to a Monday", at(t, "2026-03-02T10:00"), days(21), endOf(t, "2026-03-23")},
		{"to a Sunday: the Monday", at(t, "2026-03-01T10:00"), days(7), endOf(t, "2026-03-09")},
		{"lent late in the evening: the day counts from its date", at(t, "2026-03-02T23:50"), days(1), endOf(t, "2026-03-03")},
		{"lent just after midnight", at(t, "2026-03-03T00:05"), days(1), endOf(t, "2026-03-04")},
		{"to Christmas: past Boxing Day and a Sunday", at(t, "2026-12-11T15:00"), days(14), endOf(t, "2026-12-28")},
		{"over the year's end to New Year's Day: the 2nd", at(t, "2026-12-18T09:00"), days(14), endOf(t, "2027-01-02")},
		{"to a leap day, closed", at(t, "2028-02-15T09:00"), days(14), endOf(t, "2028-03-01")},
		{"to the 1st of March in a common year", at(t, "2027-02-15T09:00"), days(14), endOf(t, "2027-03-01")},
		{"lent on a closed day", at(t, "2026-12-27T12:00"), days(2), endOf(t, "2026-12-29")},
		{"exact: unmoved, on a closed day", at(t, "2026-12-26T20:00"), calendar.Period{Exact: 4 * time.Hour}, at(t, "2026-12-27T00:00")},
		{"exact: to the nanosecond", at(t, "2026-03-02T10:00"), calendar.Period{Exact: 90*time.Second + 7}, at(t, "2026-03-02T10:01").Add(30*time.Second + 7)},
		{"the zero period: at once", at(t, "2026-03-02T10:00"), calendar.Period{}, at(t, "2026-03-02T10:00")},
	} {
		got := c.Due(tc.lentAt, tc.p)
		assert.True(t, tc.want.Equal(got), "%s: want %s, got %s", tc.name, tc.want, got)
	}
}

// Due on a calendar shut for a month (works on the building) moves past the whole of it.
func TestDuePastALongClosing(t *testing.T) {
	t.Parallel()
	c := london(t)
	for d := date(t, "2026-07-01"); d.Before(date(t, "2026-08-01")); d = d.AddDays(1) {
		c = c.WithClosed(d)
	}
	assert.Equal(t, endOf(t, "2026-08-01"), c.Due(at(t, "2026-06-20T10:00"), calendar.Period{Days: 14}))
}

// A calendar closed every weekday can't be a library's; given one all the same, the times it
// makes still end: its weekly closings are ignored and its closed dates still count.
func TestNoOpenWeekday(t *testing.T) {
	t.Parallel()
	all := []time.Weekday{time.Sunday, time.Monday, time.Tuesday, time.Wednesday, time.Thursday, time.Friday, time.Saturday}
	c := london(t).WithWeekly(all)
	assert.False(t, c.Open(date(t, "2026-12-24")), "Open tells the truth")
	assert.Equal(t, endOf(t, "2026-12-27"), c.Due(at(t, "2026-12-11T15:00"), calendar.Period{Days: 14}), "past the closed dates only")
	assert.Equal(t, endOf(t, "2026-12-28"), c.PickupUntil(at(t, "2026-12-24T10:00"), calendar.Period{Days: 2}))
	assert.Equal(t, 2, c.LateDays(endOf(t, "2026-12-24"), at(t, "2026-12-28T10:00")))
	assert.Equal(t, 2, c.OpenDaysBetween(date(t, "2026-12-24"), date(t, "2026-12-28")))
}

func TestLateDays(t *testing.T) {
	t.Parallel()
	c := london(t)
	for _, tc := range []struct {
		name          string
		due, returned time.Time
		want          int
	}{
		{"early", endOf(t, "2026-03-09"), at(t, "2026-03-05T10:00"), 0},
		{"at the last second", endOf(t, "2026-03-09"), endOf(t, "2026-03-09"), 0},
		{"a second late: the next day", endOf(t, "2026-03-09"), endOf(t, "2026-03-09").Add(time.Second), 1},
		{"a Saturday's loan back on the Monday: the Sunday is closed", endOf(t, "2026-03-07"), at(t, "2026-03-09T10:00"), 1},
		{"back on the closed Sunday", endOf(t, "2026-03-07"), at(t, "2026-03-08T10:00"), 0},
		{"over Christmas", endOf(t, "2026-12-23"), at(t, "2026-12-29T10:00"), 3},         // the 24th, 28th, 29th
		{"over the year's end", endOf(t, "2026-12-30"), at(t, "2027-01-04T10:00"), 3},    // the 31st, 2nd, 4th
		{"over a closed leap day", endOf(t, "2028-02-26"), at(t, "2028-03-01T10:00"), 2}, // the 28th, 1st
		{"over an open leap day", endOf(t, "2024-02-26"), at(t, "2024-03-01T10:00"), 4},
		{"exact period, later on its due date", at(t, "2026-03-09T14:00"), at(t, "2026-03-09T18:00"), 0},
		{"exact period, the next day", at(t, "2026-03-09T14:00"), at(t, "2026-03-10T09:00"), 1},
		{"returned just after midnight in summer time (23:30 UTC)", endOf(t, "2026-06-01"), time.Date(2026, 6, 1, 23, 30, 0, 0, time.UTC), 1},
		{"a year late: 52 Sundays and 3 dates off", endOf(t, "2026-03-09"), at(t, "2027-03-09T10:00"), 365 - 52 - 3},
	} {
		assert.Equal(t, tc.want, c.LateDays(tc.due, tc.returned), tc.name)
	}
}

func TestPickupUntil(t *testing.T) {
	t.Parallel()
	c := london(t)
	days := func(n int) calendar.Period { return calendar.Period{Days: n} }
	for _, tc := range []struct {
		name string
		from time.Time
		p    calendar.Period
		want time.Time
	}{
		{"from a Saturday for 2 open days: the Sunday doesn't count", at(t, "2026-12-19T10:00"), days(2), endOf(t, "2026-12-22")},
		{"over Christmas", at(t, "2026-12-23T10:00"), days(3), endOf(t, "2026-12-29")}, // the 24th, 28th, 29th
		{"from a closed day", at(t, "2026-12-25T10:00"), days(1), endOf(t, "2026-12-28")},
		{"over the year's end", at(t, "2026-12-30T18:00"), days(2), endOf(t, "2027-01-02")},    // the 31st, 2nd
		{"over a closed leap day", at(t, "2028-02-27T10:00"), days(2), endOf(t, "2028-03-01")}, // the 28th, 1st
		{"exact", at(t, "2026-12-24T10:00"), calendar.Period{Exact: 72 * time.Hour}, at(t, "2026-12-27T10:00")},
	} {
		got := c.PickupUntil(tc.from, tc.p)
		assert.True(t, tc.want.Equal(got), "%s: want %s, got %s", tc.name, tc.want, got)
	}
}

func TestOpenDaysBetween(t *testing.T) {
	t.Parallel()
	c := london(t)
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"2026-03-09", "2026-03-09", 0},
		{"2026-03-10", "2026-03-09", 0},
		{"2026-03-09", "2026-03-10", 1},
		{"2026-03-07", "2026-03-08", 0},   // a Sunday
		{"2026-03-01", "2026-03-08", 6},   // a week, from a Sunday to a Sunday
		{"2026-12-24", "2026-12-28", 1},   // the 28th
		{"2026-01-01", "2027-01-01", 310}, // 365, less 52 Sundays, Christmas, Boxing Day, New Year's Day
	} {
		assert.Equal(t, tc.want, c.OpenDaysBetween(date(t, tc.a), date(t, tc.b)), "%s to %s", tc.a, tc.b)
	}
}
