package sip2

import (
	"fmt"
	"strings"
	"time"
)

// DateLength is the length of the specification's date: "YYYYMMDDZZZZHHMMSS".
const DateLength = 18

// BlankDate is a date field with no date in it, as kiosks send for a "nb due date" they don't set.
const BlankDate = "                  "

// FormatDate writes t as the specification's date in local time: its wall clock in its own
// location, with four blanks for the zone ("20260314    093000"). This is what library systems
// send (Koha, Evergreen and FOLIO all do) and what kiosks show, so the caller passes the time in
// the library's zone: FormatDate(t.In(libraryZone)).
func FormatDate(t time.Time) string {
	return t.Format("20060102") + "    " + t.Format("150405")
}

// FormatDateUTC writes t as the specification's date in UTC, with the zone "   Z"
// ("20260314   Z083000").
func FormatDateUTC(t time.Time) string {
	t = t.UTC()
	return t.Format("20060102") + "   Z" + t.Format("150405")
}

// ParseDate reads the specification's date. Its zone is four characters: blanks for local time,
// which is read in loc (UTC when loc is nil); or one letter, with blanks around it, of the military zones: "Z" for UTC,
// "A" to "M" (no "J") for one to twelve hours east, "N" to "Y" for one to twelve hours west. An
// empty or all-blank date is the zero Time and no error.
func ParseDate(s string, loc *time.Location) (time.Time, error) {
	if strings.TrimSpace(s) == "" {
		return time.Time{}, nil
	}
	if len(s) != DateLength {
		return time.Time{}, fmt.Errorf("sip2: date %q is not %d characters", s, DateLength)
	}
	zone, err := dateZone(s[8:12], loc)
	if err != nil {
		return time.Time{}, err
	}
	t, err := time.ParseInLocation("20060102150405", s[:8]+s[12:], zone)
	if err != nil {
		return time.Time{}, fmt.Errorf("sip2: date %q: %w", s, err)
	}
	return t, nil
}

// dateZone reads the four characters of a date's zone.
func dateZone(z string, loc *time.Location) (*time.Location, error) {
	letter := strings.TrimSpace(z)
	switch {
	case letter == "":
		if loc == nil {
			return time.UTC, nil
		}
		return loc, nil
	case letter == "Z":
		return time.UTC, nil
	case len(letter) == 1 && letter[0] >= 'A' && letter[0] <= 'M' && letter[0] != 'J':
		hours := int(letter[0]-'A') + 1
		if letter[0] > 'J' {
			hours--
		}
		return time.FixedZone(letter, hours*3600), nil
	case len(letter) == 1 && letter[0] >= 'N' && letter[0] <= 'Y':
		return time.FixedZone(letter, -int(letter[0]-'N'+1)*3600), nil
	}
	return nil, fmt.Errorf("sip2: date zone %q is neither blanks nor a zone letter", z)
}
