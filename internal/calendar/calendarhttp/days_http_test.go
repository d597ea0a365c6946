package calendarhttp_test

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// day is one of a calendar's days.
type day struct {
	Date    string `json:"date"`
	Weekday string `json:"weekday"`
	Open    bool   `json:"open"`
}

// libraryCalendar is GET /calendar.
type libraryCalendar struct {
	Zone   string   `json:"zone"`
	Today  string   `json:"today"`
	From   string   `json:"from"`
	To     string   `json:"to"`
	Weekly []string `json:"weekly"`
	Closed []string `json:"closed"`
	Days   []day    `json:"days"`
}

// getCalendar is GET /calendar with query, checked to be 200 with every member.
func getCalendar(t *testing.T, a *apitest.API, query string) libraryCalendar {
	t.Helper()
	r := a.Get(t, "/calendar"+query)
	apitest.RequireKeys(t, r.Body, "zone", "today", "from", "to", "weekly", "closed", "days")
	var c libraryCalendar
	apitest.RequireJSON(t, r, &c)
	require.NotNil(t, c.Weekly, "weekly is an array, never null")
	require.NotNil(t, c.Closed, "closed is an array, never null")
	return c
}

// closedDays are the dates of days that are not open.
func closedDays(c libraryCalendar) []string {
	out := []string{}
	for _, d := range c.Days {
		if !d.Open {
			out = append(out, d.Date)
		}
	}
	return out
}

// December 2026: the 1st is a Tuesday, the 25th a Friday; Sundays are the 6th, 13th, 20th, 27th.
const december = "?from=2026-12-01&to=2026-12-31"

// A date is closed and opened again; a second close, or a second reopen, records nothing; a
// retry under its Idempotency-Key is the first answer.
func TestHTTPCloseAndReopen(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		c := getCalendar(t, a, december)
		assert.Empty(t, c.Closed)
		assert.Empty(t, closedDays(c), "a library that never closed is open every day")
		require.Len(t, c.Days, 31)
		assert.Equal(t, day{"2026-12-01", "tuesday", true}, c.Days[0])

		r := a.Send(t, http.MethodPut, "/calendar/closed/2026-12-25", nil)
		apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "calendar-library"),
			"CalendarDayClosed", `{"date":"2026-12-25"}`)
		apitest.RequireResult(t, a.Send(t, http.MethodPut, "/calendar/closed/2026-12-25", nil), http.StatusOK, "calendar-library")
		c = getCalendar(t, a, december)
		assert.Equal(t, []string{"2026-12-25"}, c.Closed)
		assert.Equal(t, day{"2026-12-25", "friday", false}, c.Days[24])
		assert.Equal(t, []string{"2026-12-25"}, closedDays(c))
		assert.Empty(t, getCalendar(t, a, "?from=2026-12-26&to=2027-01-05").Closed, "closed lists the range's dates only")

		r = a.Send(t, http.MethodDelete, "/calendar/closed/2026-12-25", nil)
		apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "calendar-library"),
			"CalendarDayReopened", `{"date":"2026-12-25"}`)
		apitest.RequireResult(t, a.Send(t, http.MethodDelete, "/calendar/closed/2026-12-25", nil), http.StatusOK, "calendar-library")
		apitest.RequireResult(t, a.Send(t, http.MethodDelete, "/calendar/closed/2027-01-01", nil), http.StatusOK, "calendar-library")
		assert.Empty(t, closedDays(getCalendar(t, a, december)))

		t.Run("a retry under its Idempotency-Key is the first answer", func(t *testing.T) {
			first := a.Send(t, http.MethodPut, "/calendar/closed/2026-12-31", nil, "Idempotency-Key", "close-nye")
			apitest.RequireResult(t, first, http.StatusCreated, "calendar-library")
			apitest.RequireReplay(t, first, a.Send(t, http.MethodPut, "/calendar/closed/2026-12-31", nil, "Idempotency-Key", "close-nye"))
			apitest.RequireProblem(t, a.Send(t, http.MethodPut, "/calendar/closed/2026-12-30", nil, "Idempotency-Key", "close-nye"),
				http.StatusUnprocessableEntity, "IdempotencyKeyReused")
			apitest.RequireProblem(t, a.Send(t, http.MethodDelete, "/calendar/closed/2026-12-31", nil, "Idempotency-Key", "close-nye"),
				http.StatusUnprocessableEntity, "IdempotencyKeyReused")
		})
		t.Run("400 for a date not written as 2026-12-25", func(t *testing.T) {
			for _, bad := range []string{"2026-02-29", "2026-12-32", "2026-13-01", "2026-1-5", "20261225", "25-12-2026",
				"0000-01-01", "10000-01-01", "2026-12-25T00:00:00Z", "today", "2026-12-25%20", "%20"} {
				for _, method := range []string{http.MethodPut, http.MethodDelete} {
					r := a.Send(t, method, "/calendar/closed/"+bad, nil)
					apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
				}
			}
		})
	})
}

// The weekdays closed every week close each of their dates; a closed date on one of them stays
// closed when reopened; [] opens every weekday again.
func TestHTTPWeeklyClosings(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		r := a.Call(t, http.MethodPut, "/calendar/weekly", apitest.Obj{"closed": []string{"Sunday", "MONDAY", "sunday"}})
		apitest.RequireEvent(t, apitest.RequireResult(t, r, http.StatusCreated, "calendar-library"),
			"CalendarWeeklyClosingSet", `{"closed":["sunday","monday"]}`)
		r = a.Call(t, http.MethodPut, "/calendar/weekly", apitest.Obj{"closed": []string{"monday", "sunday"}})
		apitest.RequireResult(t, r, http.StatusOK, "calendar-library")

		c := getCalendar(t, a, december)
		assert.Equal(t, []string{"sunday", "monday"}, c.Weekly)
		assert.Empty(t, c.Closed, "closed lists dates closed as dates")
		assert.Equal(t, []string{"2026-12-06", "2026-12-07", "2026-12-13", "2026-12-14", "2026-12-20", "2026-12-21",
			"2026-12-27", "2026-12-28"}, closedDays(c))

		apitest.RequireResult(t, a.Send(t, http.MethodPut, "/calendar/closed/2026-12-06", nil), http.StatusCreated, "calendar-library")
		apitest.RequireResult(t, a.Send(t, http.MethodDelete, "/calendar/closed/2026-12-06", nil), http.StatusCreated, "calendar-library")
		assert.False(t, getCalendar(t, a, "?from=2026-12-06&to=2026-12-06").Days[0].Open, "a Sunday stays closed")

		first := a.Call(t, http.MethodPut, "/calendar/weekly", apitest.Obj{"closed": []string{}}, "Idempotency-Key", "open-all-week")
		apitest.RequireEvent(t, apitest.RequireResult(t, first, http.StatusCreated, "calendar-library"),
			"CalendarWeeklyClosingSet", `{"closed":[]}`)
		apitest.RequireReplay(t, first,
			a.Call(t, http.MethodPut, "/calendar/weekly", apitest.Obj{"closed": []string{}}, "Idempotency-Key", "open-all-week"))
		c = getCalendar(t, a, december)
		assert.Equal(t, []string{}, c.Weekly)
		assert.Empty(t, closedDays(c))

		t.Run("400 for what is not a set of weekdays the library may close", func(t *testing.T) {
			for name, body := range map[string]string{
				"an unknown day":      `{"closed":["funday"]}`,
				"an abbreviation":     `{"closed":["sun"]}`,
				"all seven":           `{"closed":["sunday","monday","tuesday","wednesday","thursday","friday","saturday"]}`,
				"closed null":         `{"closed":null}`,
				"no closed":           `{}`,
				"a number":            `{"closed":[0]}`,
				"a day null":          `{"closed":[null]}`,
				"closed not an array": `{"closed":"sunday"}`,
			} {
				t.Run(name, func(t *testing.T) {
					r := a.Send(t, http.MethodPut, "/calendar/weekly", []byte(body))
					p := apitest.RequireProblem(t, r, http.StatusBadRequest, "InvalidRequest")
					assert.NotContains(t, p.Detail, "funday", "never the value sent")
				})
			}
		})
		apitest.RequireBodyErrors(t, a, http.MethodPut, "/calendar/weekly", `{"closed":["sunday"]}`)
		assert.Equal(t, []string{}, getCalendar(t, a, december).Weekly, "nothing refused was recorded")
	})
}
