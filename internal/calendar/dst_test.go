package calendar_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"library/internal/calendar"
)

// The end of a day is 23:59:59 on the library's clock also on the days the clocks change:
// days of 23 and 25 hours in London and New York, where the change is at night, and in
// Santiago and Havana, where it is at midnight, so that time.Date's reading of 00:00 or
// 23:59:59 on those days is an hour off (a midnight that does not exist, or one 23:59:59 of
// two).
func TestEndOfDayWhenTheClocksChange(t *testing.T) {
	t.Parallel()
	utc := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	for _, tc := range []struct {
		zone, day string
		want      time.Time
	}{
		{"Europe/London", "2026-03-28", utc("2026-03-28T23:59:59Z")},       // GMT, before the night of the change
		{"Europe/London", "2026-03-29", utc("2026-03-29T22:59:59Z")},       // 23 hours, ends in BST
		{"Europe/London", "2026-10-25", utc("2026-10-25T23:59:59Z")},       // 25 hours, ends in GMT
		{"America/New_York", "2026-03-08", utc("2026-03-09T03:59:59Z")},    // 23 hours, ends in EDT
		{"America/New_York", "2026-11-01", utc("2026-11-02T04:59:59Z")},    // 25 hours, ends in EST
		{"America/Santiago", "2026-04-04", utc("2026-04-05T03:59:59Z")},    // 23:00-24:00 twice: the second
		{"America/Santiago", "2026-09-05", utc("2026-09-06T03:59:59Z")},    // the next day begins at 01:00
		{"America/Santiago", "2026-09-06", utc("2026-09-07T02:59:59Z")},    // begins at 01:00: 23 hours
		{"America/Havana", "2026-03-07", utc("2026-03-08T04:59:59Z")},      // the next midnight does not exist
		{"America/Havana", "2026-10-31", utc("2026-11-01T03:59:59Z")},      // the next day's first hour is twice
		{"Australia/Lord_Howe", "2026-10-04", utc("2026-10-04T12:59:59Z")}, // a change of half an hour
	} {
		c := calendar.Calendar{Zone: zone(t, tc.zone)}
		d := date(t, tc.day)
		got := c.EndOfDay(d)
		assert.True(t, tc.want.Equal(got), "%s %s: want %s, got %s", tc.zone, tc.day, tc.want, got.UTC())
		h, m, s := got.In(c.Zone).Clock()
		assert.Equal(t, [3]int{23, 59, 59}, [3]int{h, m, s}, "%s %s: on the library's clock", tc.zone, tc.day)
		assert.Equal(t, d, c.DateOf(got), "%s %s", tc.zone, tc.day)
		assert.Equal(t, d.AddDays(1), c.DateOf(got.Add(time.Second)), "%s %s: the day's last second", tc.zone, tc.day)
	}
}

// A loan of whole days ends at the end of a day on the library's clock however long its days
// were; an exact one is that long on any clock.
func TestDueWhenTheClocksChange(t *testing.T) {
	t.Parallel()
	ny := calendar.Calendar{Zone: zone(t, "America/New_York")}
	lent := time.Date(2026, 3, 7, 12, 0, 0, 0, ny.Zone)
	due := ny.Due(lent, calendar.Period{Days: 1})
	assert.Equal(t, time.Date(2026, 3, 8, 23, 59, 59, 0, ny.Zone), due)
	assert.Equal(t, 35*time.Hour+59*time.Minute+59*time.Second-time.Hour, due.Sub(lent), "the 8th has 23 hours")
	assert.Equal(t, lent.Add(24*time.Hour), ny.Due(lent, calendar.Period{Exact: 24 * time.Hour}))
	assert.Equal(t, 13, ny.Due(lent, calendar.Period{Exact: 24 * time.Hour}).In(ny.Zone).Hour(), "24 hours, 13:00 on the clock")

	london := calendar.Calendar{Zone: zone(t, "Europe/London")}
	lent = time.Date(2026, 10, 24, 18, 0, 0, 0, london.Zone)
	due = london.Due(lent, calendar.Period{Days: 1})
	assert.Equal(t, time.Date(2026, 10, 25, 23, 59, 59, 0, london.Zone), due)
	assert.Equal(t, 30*time.Hour+59*time.Minute+59*time.Second, due.Sub(lent), "the 25th has 25 hours")
	assert.Equal(t, time.Date(2026, 10, 26, 23, 59, 59, 0, london.Zone), london.PickupUntil(lent, calendar.Period{Days: 2}))

	santiago := calendar.Calendar{Zone: zone(t, "America/Santiago")}
	due = santiago.Due(time.Date(2026, 9, 4, 10, 0, 0, 0, santiago.Zone), calendar.Period{Days: 1})
	assert.Equal(t, time.Date(2026, 9, 5, 23, 59, 59, 0, santiago.Zone), due, "the day before the midnight that does not exist")
	assert.Equal(t, 1, santiago.LateDays(due, due.Add(time.Second)), "the next second is the next day, at 01:00")
	assert.Equal(t, 0, santiago.LateDays(due, due), "on time")
}

// Every day of two years, in every zone the properties are tried in, ends at its last second,
// 23:59:59 on its clock: the days the clocks change are a few among many, which random times
// seldom land on.
func TestEveryDayEndsAtItsLastSecond(t *testing.T) {
	t.Parallel()
	for _, name := range propertyZones {
		c := calendar.Calendar{Zone: zone(t, name)}
		for d := window; d.Before(window.AddDays(731)); d = d.AddDays(1) {
			end := c.EndOfDay(d)
			if c.DateOf(end) != d || !isEndOfDay(c, end) {
				t.Errorf("%s %s: ends at %s", name, d, end)
			}
		}
	}
}
