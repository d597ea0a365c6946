package calendar

import (
	"cmp"
	"fmt"
	"time"
)

// Date is a civil date, a day with no zone: what a calendar on the wall shows. Dates are
// comparable with == and may be map keys; the zero Date is no day (IsZero).
type Date struct {
	year  int
	month time.Month
	day   int
}

// dateLayout is how a Date is written: ISO 8601's calendar date, as in JSON and URLs.
const dateLayout = "2006-01-02"

// NewDate returns the date of year, month and day, normalised as time.Date normalises them:
// NewDate(2026, 12, 32) is 2027-01-01.
func NewDate(year int, month time.Month, day int) Date {
	return dateOfWall(time.Date(year, month, day, 12, 0, 0, 0, time.UTC))
}

// ParseDate reads a date written as ParseDate's example, "2026-12-25": four digits of year, two
// of month and two of day, and a day that the month has (2026-02-29 is refused).
func ParseDate(s string) (Date, error) {
	t, err := time.Parse(dateLayout, s)
	if err != nil || t.Year() < 1 {
		return Date{}, fmt.Errorf("%q is not a date written as 2026-12-25", s)
	}
	return dateOfWall(t), nil
}

// DateOf returns the date that the clock of zone shows at t; a nil zone is UTC.
func DateOf(t time.Time, zone *time.Location) Date {
	if zone == nil {
		zone = time.UTC
	}
	return dateOfWall(t.In(zone))
}

// dateOfWall is the date t's own location shows.
func dateOfWall(t time.Time) Date {
	y, m, d := t.Date()
	return Date{year: y, month: m, day: d}
}

// Year returns the date's year.
func (d Date) Year() int { return d.year }

// Month returns the date's month.
func (d Date) Month() time.Month { return d.month }

// Day returns the date's day of the month.
func (d Date) Day() int { return d.day }

// IsZero reports whether d is the zero Date, which is no day.
func (d Date) IsZero() bool { return d == Date{} }

// noon is d at noon in UTC: a time on d in any arithmetic, far from any day's edge.
func (d Date) noon() time.Time { return time.Date(d.year, d.month, d.day, 12, 0, 0, 0, time.UTC) }

// Weekday returns the day of the week d falls on.
func (d Date) Weekday() time.Weekday { return d.noon().Weekday() }

// AddDays returns the date n days after d (before it, for a negative n), across month and
// year ends and leap days.
func (d Date) AddDays(n int) Date { return NewDate(d.year, d.month, d.day+n) }

// DaysUntil returns the number of days from d to e: 1 from a day to the next, negative when e
// is before d.
func (d Date) DaysUntil(e Date) int {
	// In UTC every day has 24 hours, so the difference of two noons is whole days.
	return int(e.noon().Sub(d.noon()) / (24 * time.Hour))
}

// Compare returns -1 when d is before e, 0 when they are the same day, +1 when d is after e.
func (d Date) Compare(e Date) int {
	if c := cmp.Compare(d.year, e.year); c != 0 {
		return c
	}
	if c := cmp.Compare(d.month, e.month); c != 0 {
		return c
	}
	return cmp.Compare(d.day, e.day)
}

// Before reports whether d is a day before e.
func (d Date) Before(e Date) bool { return d.Compare(e) < 0 }

// After reports whether d is a day after e.
func (d Date) After(e Date) bool { return d.Compare(e) > 0 }

// String writes the date as ParseDate reads it.
func (d Date) String() string { return fmt.Sprintf("%04d-%02d-%02d", d.year, int(d.month), d.day) }

// MarshalText writes the date as ParseDate reads it, for JSON: "2026-12-25".
func (d Date) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a date as ParseDate does.
func (d *Date) UnmarshalText(b []byte) error {
	parsed, err := ParseDate(string(b))
	if err != nil {
		return err
	}
	*d = parsed
	return nil
}

// startOf is the first instant whose date on zone's clock is d. That is midnight on every day
// but one whose midnight the clock skips (it begins at the change, 01:00) or shows twice (the
// first). time.Date picks one of the two readings of such a midnight, not necessarily the
// first, so the instant is searched for: the date a clock shows only ever goes forward.
func startOf(d Date, zone *time.Location) time.Time {
	t := time.Date(d.year, d.month, d.day, 0, 0, 0, 0, zone)
	if DateOf(t, zone) == d && DateOf(t.Add(-time.Second), zone).Before(d) {
		return t
	}
	// The day begins between these two: no zone is more than 14 hours from UTC, so the first
	// is on an earlier day and the second on d or later. Bisect to the second.
	lo := d.noon().Add(-27 * time.Hour).Unix()
	hi := d.noon().Add(time.Hour).Unix()
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if DateOf(time.Unix(mid, 0), zone).Before(d) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return time.Unix(hi, 0).In(zone)
}

// endOf is the last second of d on zone's clock: the second before the next day begins,
// 23:59:59, also on a day of 23 or 25 hours.
func endOf(d Date, zone *time.Location) time.Time {
	return startOf(d.AddDays(1), zone).Add(-time.Second)
}
