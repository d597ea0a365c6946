package calendarhttp

import (
	"net/http"
	"net/url"

	"library/internal/calendar"
	"library/internal/errs"
	"library/internal/httpapi"
)

const (
	// MaxRangeDays bounds the days GET /calendar shows at once: from and to at most this many
	// days apart, a year and a day.
	MaxRangeDays = 366
	// DefaultRangeDays is how many days after from GET /calendar shows when to is not given.
	DefaultRangeDays = 90
)

// calendarView is GET /calendar's answer: the zone whose days these are, the weekdays closed
// every week, the dates closed in the range, and each day of the range, open or not.
type calendarView struct {
	Zone   string          `json:"zone"`
	Today  calendar.Date   `json:"today"`
	From   calendar.Date   `json:"from"`
	To     calendar.Date   `json:"to"`
	Weekly []string        `json:"weekly"`
	Closed []calendar.Date `json:"closed"`
	Days   []dayView       `json:"days"`
}

// dayView is one day: its date, its weekday, and whether the library opens on it.
type dayView struct {
	Date    calendar.Date `json:"date"`
	Weekday string        `json:"weekday"`
	Open    bool          `json:"open"`
}

var readParameters = []string{"from", "to"}

func (h Routes) read(w http.ResponseWriter, r *http.Request) error {
	query, err := httpapi.QueryParams(r, readParameters, "GET /calendar takes from and to")
	if err != nil {
		return err
	}
	cal, err := h.Service.Get(r.Context())
	if err != nil {
		return err
	}
	cal = cal.In(h.Zone)
	today := cal.DateOf(h.Now())
	from, to, err := dateRange(query, today)
	if err != nil {
		return err
	}
	view := calendarView{Zone: zoneName(cal), Today: today, From: from, To: to,
		Weekly: cal.WeeklyNames(), Closed: []calendar.Date{}, Days: make([]dayView, 0, from.DaysUntil(to)+1)}
	for _, d := range cal.ClosedDates() {
		if !d.Before(from) && !d.After(to) {
			view.Closed = append(view.Closed, d)
		}
	}
	for d := from; !d.After(to); d = d.AddDays(1) {
		view.Days = append(view.Days, dayView{Date: d, Weekday: calendar.WeekdayName(d.Weekday()), Open: cal.Open(d)})
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}

// zoneName is the name of the calendar's zone, UTC when it has none.
func zoneName(c calendar.Calendar) string {
	if c.Zone == nil {
		return "UTC"
	}
	return c.Zone.String()
}

// lastDate is the last day a date is written for (four digits of year): a range that would
// run past it when to is left out ends on it.
var lastDate = calendar.NewDate(9999, 12, 31)

// dateRange reads the query's from and to, each a date: from is today when left out, to
// DefaultRangeDays days after from (or lastDate, if sooner). One given empty, to before from,
// or to more than MaxRangeDays days after from, is refused.
func dateRange(query url.Values, today calendar.Date) (from, to calendar.Date, err error) {
	from = today
	if query.Has("from") {
		if from, err = parseDate("from", query.Get("from")); err != nil {
			return from, to, err
		}
	}
	to = from.AddDays(DefaultRangeDays)
	if to.After(lastDate) {
		to = lastDate
	}
	if query.Has("to") {
		if to, err = parseDate("to", query.Get("to")); err != nil {
			return from, to, err
		}
	}
	if to.Before(from) || from.DaysUntil(to) > MaxRangeDays {
		return from, to, errs.E(errs.InvalidRequest, "to must be from or a day after it, at most %d days after", MaxRangeDays)
	}
	return from, to, nil
}
