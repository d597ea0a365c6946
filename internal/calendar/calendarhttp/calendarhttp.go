// Package calendarhttp is the HTTP face of package calendar: GET /calendar, the library's
// days over a range, open or closed, in the library's zone (LIBRARY_TIMEZONE); PUT and DELETE
// /calendar/closed/{date}, a date closed and opened again; PUT /calendar/weekly, the weekdays
// closed every week. Who may call each route is the rules table's to say (package auth).
//
// It promises that a date is read as written, 2026-12-25, a civil date in the library's zone,
// and anything else refused with 400 InvalidRequest; that a range is at most MaxRangeDays
// days, today to DefaultRangeDays days on when not given, today on the library's clock; and
// that each command, sent twice, records once (the domain's), answered as the other commands
// are, a retry under the same Idempotency-Key byte for byte.
package calendarhttp

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"library/internal/aggregate"
	"library/internal/calendar"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
)

// Routes are the calendar's endpoints.
type Routes struct {
	Service *calendar.Service
	// Zone is the library's time zone (LIBRARY_TIMEZONE); nil is UTC.
	Zone *time.Location
	// Now is the clock that says which day is today.
	Now func() time.Time
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Get("/calendar", httpapi.Handle(h.read))
	r.Put("/calendar/closed/{date}", dayCommand(h.Service.Close))
	r.Delete("/calendar/closed/{date}", dayCommand(h.Service.Reopen))
	r.Put("/calendar/weekly", commandhttp.Command("", commandhttp.KeyOptional, h.setWeekly))
}

// dayCommand is the handler of a command on the date in the path, which takes no body (an
// empty one, or none).
func dayCommand(run func(ctx context.Context, d calendar.Date, o aggregate.Origin) (aggregate.Result, error)) http.HandlerFunc {
	return httpapi.Handle(func(w http.ResponseWriter, r *http.Request) error {
		d, err := parseDate("date", chi.URLParam(r, "date"))
		if err != nil {
			return err
		}
		origin, err := commandhttp.CommandOrigin(r)
		if err != nil {
			return err
		}
		result, err := run(r.Context(), d, origin)
		if err != nil {
			return err
		}
		commandhttp.WriteResult(w, r, result)
		return nil
	})
}

// weeklyBody is the body of PUT /calendar/weekly: the weekdays closed every week, by name.
type weeklyBody struct {
	Closed []string `json:"closed"`
}

func (h Routes) setWeekly(ctx context.Context, _ string, body weeklyBody, o aggregate.Origin) (aggregate.Result, error) {
	if body.Closed == nil {
		return aggregate.Result{}, errs.E(errs.InvalidRequest, "closed is required: the weekdays closed every week, [] for none")
	}
	return h.Service.SetWeekly(ctx, calendar.SetWeekly{Closed: body.Closed}, o)
}

// parseDate reads a date written as 2026-12-25, refusing anything else naming where it was.
func parseDate(name, s string) (calendar.Date, error) {
	d, err := calendar.ParseDate(s)
	if err != nil || d.Year() > 9999 {
		return calendar.Date{}, errs.E(errs.InvalidRequest, "%s must be a date written as 2026-12-25", name)
	}
	return d, nil
}
