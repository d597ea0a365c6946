package calendar_test

import (
	"encoding/json"
	"testing"
	"time"
	_ "time/tzdata" // the zones below, whatever the machine has

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/calendar"
	"library/internal/errs"
)

func zone(t testing.TB, name string) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation(name)
	require.NoError(t, err)
	return loc
}

func date(t testing.TB, s string) calendar.Date {
	t.Helper()
	d, err := calendar.ParseDate(s)
	require.NoError(t, err)
	return d
}

func TestParseDate(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"2026-12-25", "2024-02-29", "2000-02-29", "0001-01-01", "9999-12-31", "2026-01-01"} {
		d, err := calendar.ParseDate(s)
		require.NoError(t, err, s)
		assert.Equal(t, s, d.String(), "written as read")
		assert.False(t, d.IsZero(), s)
	}
	for _, bad := range []string{"", "2026-02-29", "1900-02-29", "2026-13-01", "2026-00-10", "2026-04-31", "2026-1-01",
		"26-01-01", "2026/01/01", "2026-01-01T00:00:00Z", " 2026-01-01", "0000-01-01", "christmas"} {
		_, err := calendar.ParseDate(bad)
		assert.Error(t, err, bad)
	}
	d := date(t, "2028-02-29")
	assert.Equal(t, 2028, d.Year())
	assert.Equal(t, time.February, d.Month())
	assert.Equal(t, 29, d.Day())
	assert.Equal(t, time.Tuesday, d.Weekday())
	assert.True(t, calendar.Date{}.IsZero())
}

func TestDateJSON(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(map[string]calendar.Date{"date": date(t, "2026-12-25")})
	require.NoError(t, err)
	assert.JSONEq(t, `{"date":"2026-12-25"}`, string(b))
	var back struct{ Date calendar.Date }
	require.NoError(t, json.Unmarshal([]byte(`{"date":"2026-12-25"}`), &back))
	assert.Equal(t, date(t, "2026-12-25"), back.Date)
	assert.Error(t, json.Unmarshal([]byte(`{"date":"2026-12-32"}`), &back))
	assert.Error(t, json.Unmarshal([]byte(`{"date":20261225}`), &back))
}

func TestAddDaysAndCompare(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		from string
		n    int
		want string
	}{
		{"2026-12-25", 0, "2026-12-25"},
		{"2026-12-31", 1, "2027-01-01"},
		{"2027-01-01", -1, "2026-12-31"},
		{"2028-02-28", 1, "2028-02-29"},
		{"2028-02-28", 2, "2028-03-01"},
		{"2027-02-28", 1, "2027-03-01"},
		{"2026-01-31", 30, "2026-03-02"},
		{"2026-03-28", 2, "2026-03-30"},    // over a change of clocks: dates have none
		{"2026-01-01", 3660, "2036-01-09"}, // two leap days on the way
	} {
		from, want := date(t, c.from), date(t, c.want)
		assert.Equal(t, want, from.AddDays(c.n), "%s + %d", c.from, c.n)
		assert.Equal(t, c.n, from.DaysUntil(want), "%s to %s", c.from, c.want)
		assert.Equal(t, -c.n, want.DaysUntil(from))
	}
	a, b := date(t, "2026-12-31"), date(t, "2027-01-01")
	assert.True(t, a.Before(b))
	assert.False(t, b.Before(a))
	assert.True(t, b.After(a))
	assert.False(t, a.After(a))
	assert.Equal(t, 0, a.Compare(a))
	assert.Equal(t, -1, date(t, "2026-11-30").Compare(date(t, "2026-12-01")))
	assert.Equal(t, 1, date(t, "2026-12-02").Compare(date(t, "2026-12-01")))
	assert.Equal(t, date(t, "2027-01-01"), calendar.NewDate(2026, 12, 32), "normalised as time.Date does")
}

// A date is what the zone's clock shows: one instant is two dates in two zones.
func TestDateOf(t *testing.T) {
	t.Parallel()
	instant := time.Date(2027, 1, 1, 3, 0, 0, 0, time.UTC)
	assert.Equal(t, date(t, "2027-01-01"), calendar.DateOf(instant, time.UTC))
	assert.Equal(t, date(t, "2027-01-01"), calendar.DateOf(instant, nil), "nil is UTC")
	assert.Equal(t, date(t, "2026-12-31"), calendar.DateOf(instant, zone(t, "America/New_York")))
	assert.Equal(t, date(t, "2027-01-01"), calendar.DateOf(instant, zone(t, "Europe/London")))
	summer := time.Date(2026, 6, 1, 23, 30, 0, 0, time.UTC)
	assert.Equal(t, date(t, "2026-06-02"), calendar.DateOf(summer, zone(t, "Europe/London")), "00:30 BST")
	assert.Equal(t, date(t, "2026-06-02"), calendar.Calendar{Zone: zone(t, "Europe/London")}.DateOf(summer))
}

func TestWeekdays(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "sunday", calendar.WeekdayName(time.Sunday))
	assert.Equal(t, "saturday", calendar.WeekdayName(time.Saturday))
	for _, name := range []string{"sunday", "Sunday", "SUNDAY"} {
		w, err := calendar.ParseWeekday(name)
		require.NoError(t, err, name)
		assert.Equal(t, time.Sunday, w)
	}
	_, err := calendar.ParseWeekday("sun")
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
	assert.NotContains(t, err.Error(), `sun"`, "never repeats the value")

	days, err := calendar.ParseWeekdays([]string{"saturday", "Sunday", "saturday", "wednesday"})
	require.NoError(t, err)
	assert.Equal(t, []time.Weekday{time.Sunday, time.Wednesday, time.Saturday}, days, "once each, in the week's order")
	assert.Equal(t, []string{"sunday", "wednesday", "saturday"}, calendar.WeekdayNames(days))
	assert.Equal(t, []string{}, calendar.WeekdayNames(nil), "JSON's [], not null")
	_, err = calendar.ParseWeekdays([]string{"monday", "funday"})
	assert.ErrorContains(t, err, "closed[1] must be a day of the week", "names it by its index")
	assert.NotContains(t, err.Error(), "funday", "never repeats the value")
}
