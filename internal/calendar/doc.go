// Package calendar is the library's days: which are open, in the library's time zone, and what
// that makes of a loan's due time, its late days and a hold's pickup time. Plain Go, with no
// I/O: the days the library closes are events in one stream, calendar-library, folded here
// into a Calendar; the zone is not in the log but in the service's configuration
// (LIBRARY_TIMEZONE), and is given to the folded state when it is used (Calendar.In).
//
// A day is a Date, a civil date with no zone: 2026-12-25 is Christmas Day wherever the
// library is, and a time is on it when the library's clock shows that date. A day is open
// unless its weekday is closed every week (Calendar.Weekly) or the date itself is closed
// (Calendar.Closed).
//
// What it promises, for every calendar that opens on some weekday (the only kind SetWeekly
// records):
//
//   - A loan of whole days is due at the end of a day the library is open (Calendar.Due), no
//     earlier than its length in days after the day it was lent: a closing moves a due time
//     later, never earlier. A loan of an exact duration is due exactly then, open or not.
//   - The end of a day is the last second before the next day begins on the library's clock:
//     23:59:59, also on the days of 23 or 25 hours when the clocks change.
//   - A closed day is never a late day (Calendar.LateDays): a member is not charged for a day
//     they could not have come.
//   - A hold waits on the shelf for a number of open days (Calendar.PickupUntil), however many
//     closed days fall between.
//   - Nothing here loops forever: a calendar closed on every weekday, which the commands never
//     record, has its weekly closings ignored by what it makes of times (see Calendar).
//
// The aggregate (Type) is the one stream of closings: DayClosed, DayReopened and
// WeeklyClosingSet, decided by the commands CloseDay, ReopenDay and SetWeekly, each of which
// records nothing when the calendar is already as it asks.
package calendar
