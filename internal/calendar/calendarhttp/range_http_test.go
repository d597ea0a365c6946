package calendarhttp_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// GET /calendar shows from to to, both included: today to 90 days on when left out, at most
// 366 days apart; anything else is 400, never a 5xx nor a body the contract does not allow.
func TestHTTPCalendarRange(t *testing.T) {
	t.Parallel()
	apitest.ForEachStore(t, app.Config{}, func(t *testing.T, a *apitest.API) {
		for _, c := range []struct {
			query, from, to string
			days            int
		}{
			{"", "2026-12-01", "2027-03-01", 91},
			{"?from=2027-01-10", "2027-01-10", "2027-04-10", 91},
			{"?to=2026-12-10", "2026-12-01", "2026-12-10", 10},
			{"?from=2026-11-01&to=2026-11-01", "2026-11-01", "2026-11-01", 1},
			{"?from=2027-01-01&to=2028-01-02", "2027-01-01", "2028-01-02", 367},
			{"?from=2028-02-28&to=2028-03-01", "2028-02-28", "2028-03-01", 3},
			{"?from=0001-01-01&to=0001-01-02", "0001-01-01", "0001-01-02", 2},
			{"?from=9999-12-01", "9999-12-01", "9999-12-31", 31},
			{"?from=9999-12-31&to=9999-12-31", "9999-12-31", "9999-12-31", 1},
		} {
			t.Run("200"+c.query, func(t *testing.T) {
				cal := getCalendar(t, a, c.query)
				assert.Equal(t, "2026-12-01", cal.Today)
				assert.Equal(t, c.from, cal.From)
				assert.Equal(t, c.to, cal.To)
				require.Len(t, cal.Days, c.days)
				assert.Equal(t, c.from, cal.Days[0].Date)
				assert.Equal(t, c.to, cal.Days[len(cal.Days)-1].Date)
			})
		}
		for name, query := range map[string]string{
			"to before from":           "?from=2026-12-10&to=2026-12-09",
			"to before today":          "?to=2026-11-30",
			"367 days apart":           "?from=2027-01-01&to=2028-01-03",
			"a bad from":               "?from=2026-02-29",
			"a bad to":                 "?from=2026-12-01&to=2026-12-1",
			"from written otherwise":   "?from=01/12/2026",
			"an empty from":            "?from=",
			"an empty to":              "?to=",
			"from past the year 9999":  "?from=10000-01-01",
			"to past the year 9999":    "?from=9999-12-31&to=10000-01-01",
			"from twice":               "?from=2026-12-01&from=2026-12-02",
			"another parameter":        "?from=2026-12-01&days=3",
			"a malformed query string": "?from=%zz",
		} {
			t.Run("400/"+name, func(t *testing.T) {
				apitest.RequireProblem(t, a.Get(t, "/calendar"+query), http.StatusBadRequest, "InvalidRequest")
			})
		}
	})
}

// LIBRARY_TIMEZONE's clock says which day is today, and names the calendar's zone; the days
// closed are civil dates, the same in any zone.
func TestHTTPCalendarTimezone(t *testing.T) {
	t.Parallel()
	zone := func(name string) *time.Location {
		loc, err := time.LoadLocation(name)
		require.NoError(t, err)
		return loc
	}
	for _, c := range []struct {
		zone    *time.Location
		advance time.Duration // from apitest.T0, 2026-12-01 09:00 UTC
		today   string
	}{
		{nil, 0, "2026-12-01"},
		{zone("UTC"), 14*time.Hour + 30*time.Minute, "2026-12-01"},
		{zone("Europe/Paris"), 14*time.Hour + 30*time.Minute, "2026-12-02"}, // 00:30 there
		{zone("Pacific/Honolulu"), 0, "2026-11-30"},                         // 23:00 there
	} {
		name := "UTC by default"
		if c.zone != nil {
			name = c.zone.String()
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			apitest.ForEachStore(t, app.Config{Timezone: c.zone}, func(t *testing.T, a *apitest.API) {
				a.Clock.Advance(c.advance)
				apitest.RequireResult(t, a.Send(t, http.MethodPut, "/calendar/closed/2026-12-02", nil), http.StatusCreated, "calendar-library")
				cal := getCalendar(t, a, "")
				want := "UTC"
				if c.zone != nil {
					want = c.zone.String()
				}
				assert.Equal(t, want, cal.Zone)
				assert.Equal(t, c.today, cal.Today)
				assert.Equal(t, c.today, cal.From, "from is today when left out")
				cal = getCalendar(t, a, "?from=2026-12-01&to=2026-12-03")
				assert.Equal(t, []string{"2026-12-02"}, cal.Closed, "a date is a date in any zone")
				assert.Equal(t, []string{"2026-12-02"}, closedDays(cal))
			})
		})
	}
}
