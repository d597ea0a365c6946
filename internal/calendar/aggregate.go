package calendar

import (
	"library/internal/aggregate"
)

// ID is the aggregate id of the library's one calendar: its stream is calendar-library.
const ID = "library"

// Type is the calendar's aggregate type. Its name prefixes the stream id ("calendar-library"),
// and its events' names are stored data: never rename them. It has a Clone, so the calendar is
// kept in memory and a due time reads only what came after it; no Snapshot: a library closes
// a few dozen days a year, a stream read whole in one round trip for many years.
func Type() aggregate.Type[Calendar] {
	return aggregate.Type[Calendar]{
		Name:  "calendar",
		New:   NewCalendar,
		Apply: Apply,
		Clone: Clone,
		Weigh: weigh,
		Events: []aggregate.Codec{
			aggregate.EventCodec[DayClosed](),
			aggregate.EventCodec[DayReopened](),
			aggregate.EventCodec[WeeklyClosingSet](),
		},
	}
}

// StreamID is the id of the calendar's stream.
func StreamID() string { return Type().StreamID(ID) }

// weigh estimates the bytes a calendar takes in memory, for the cache's bound: a map entry of
// a date is some 40 bytes with its share of the buckets.
func weigh(c Calendar) int { return 128 + 8*len(c.Weekly) + 40*len(c.Closed) }
