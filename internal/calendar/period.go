package calendar

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Period is how long something lasts: whole days, which end at the end of a day in the library's
// zone and move off closed days (a book lent for 21 days), or an exact duration (a laptop lent
// for 4 hours, a loan of seconds in a test). One of the two is set.
type Period struct {
	Days  int
	Exact time.Duration
}

// maxPeriodDays bounds a period: ten years, more than any library lends or holds for.
const maxPeriodDays = 3660

// ParsePeriod reads a period as written in rules and settings: "21d" (whole days), or a Go
// duration of hours, minutes or seconds ("4h", "90s", "336h"), exact. It must be more than zero.
func ParsePeriod(s string) (Period, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil || n <= 0 || n > maxPeriodDays || days != strconv.Itoa(n) {
			return Period{}, fmt.Errorf("a period of days is a whole number of days from 1 to %d, such as 21d", maxPeriodDays)
		}
		return Period{Days: n}, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > maxPeriodDays*24*time.Hour {
		return Period{}, fmt.Errorf("a period is whole days, such as 21d, or a duration such as 4h or 90s, more than zero")
	}
	return Period{Exact: d}, nil
}

// String writes the period as ParsePeriod reads it.
func (p Period) String() string {
	if p.Days > 0 {
		return strconv.Itoa(p.Days) + "d"
	}
	return p.Exact.String()
}

// IsZero reports whether no period is set.
func (p Period) IsZero() bool { return p.Days == 0 && p.Exact == 0 }

// MarshalText writes the period as a string, for JSON.
func (p Period) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a period written by MarshalText or a person.
func (p *Period) UnmarshalText(b []byte) error {
	parsed, err := ParsePeriod(string(b))
	if err != nil {
		return err
	}
	*p = parsed
	return nil
}
