package calendar

import (
	"slices"
	"strings"
	"time"

	"library/internal/errs"
)

// WeekdayName is the name a weekday is written with in events and JSON: English, in small
// letters ("sunday"). Stored data: never change one.
func WeekdayName(w time.Weekday) string { return strings.ToLower(w.String()) }

// weekdayRule is what a weekday's name must be, for refusals.
const weekdayRule = "a day of the week: one of sunday, monday, tuesday, wednesday, thursday, friday, saturday, in any case"

// ParseWeekday reads a weekday's name, in any case ("Sunday", "sunday"). An unknown name is
// refused with errs.InvalidRequest, which says what a name must be without repeating it (a
// client's value never goes back into a problem's detail).
func ParseWeekday(name string) (time.Weekday, error) {
	for w := time.Sunday; w <= time.Saturday; w++ {
		if strings.EqualFold(name, w.String()) {
			return w, nil
		}
	}
	return 0, errs.E(errs.InvalidRequest, "a weekday must be %s", weekdayRule)
}

// ParseWeekdays reads weekdays' names as ParseWeekday does, and returns them once each, in the
// order of the week from Sunday, so that two ways of writing one set read as one. A refusal
// names the unknown name by its index, as closed[2] (SetWeekly's field).
func ParseWeekdays(names []string) ([]time.Weekday, error) {
	days := make([]time.Weekday, 0, len(names))
	for i, name := range names {
		w, err := ParseWeekday(name)
		if err != nil {
			return nil, errs.E(errs.InvalidRequest, "closed[%d] must be %s", i, weekdayRule)
		}
		days = append(days, w)
	}
	return weekdaySet(days), nil
}

// WeekdayNames writes weekdays with their names, in the order given, never nil (JSON's []).
func WeekdayNames(days []time.Weekday) []string {
	names := make([]string, len(days))
	for i, w := range days {
		names[i] = WeekdayName(w)
	}
	return names
}

// weekdaySet returns the weekdays of days that are weekdays, once each, in the week's order
// from Sunday, in a new slice.
func weekdaySet(days []time.Weekday) []time.Weekday {
	set := slices.DeleteFunc(slices.Clone(days), func(w time.Weekday) bool { return w < time.Sunday || w > time.Saturday })
	slices.Sort(set)
	return slices.Compact(set)
}
