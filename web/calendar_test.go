package web_test

// The library's calendar in the web app, a month at a time, on a service whose clock says
// today is Tuesday 1 December 2026 (apitest.T0): anyone reads it, with the days closed every
// week and the closed dates marked; a librarian closes a day from the keyboard, opens it again,
// and sets the weekdays closed every week, each seen through the API.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp/kb"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// calendarView is GET /calendar as these tests read it.
type calendarView struct {
	Weekly []string `json:"weekly"`
	Closed []string `json:"closed"`
	Days   []struct {
		Date string `json:"date"`
		Open bool   `json:"open"`
	} `json:"days"`
}

// readCalendar reads the calendar from from to to, as anyone may.
func readCalendar(t *testing.T, base, from, to string) calendarView {
	t.Helper()
	var view calendarView
	if err := json.Unmarshal(mustCall(t, http.MethodGet, base+"/calendar?from="+from+"&to="+to, nil, http.StatusOK), &view); err != nil {
		t.Fatal(err)
	}
	return view
}

// waitForCalendar waits until the calendar from from to to satisfies ok.
func waitForCalendar(t *testing.T, base, from, to string, ok func(calendarView) bool) calendarView {
	t.Helper()
	var view calendarView
	apitest.Eventually(t, waitTimeout, func() bool {
		view = readCalendar(t, base, from, to)
		return ok(view)
	}, "the calendar from "+from+" to "+to)
	return view
}

// dayCell waits until the month named month has the day numbered day, saying want, and returns
// what its cell says, in one line: "24 Closed Reopen".
func dayCell(tb *tab, month string, day int, want string) string {
	tb.t.Helper()
	var text string
	tb.waitFor(fmt.Sprintf("day %d of %s to say %q", day, month, want), func() bool {
		tables, err := tb.queryAX(0, "table", month)
		if err != nil || len(tables) != 1 {
			return false
		}
		_, rows, err := tables[0].table()
		if err != nil {
			return false
		}
		for _, row := range rows {
			for _, cell := range row {
				if f := strings.Fields(cell); len(f) > 0 && f[0] == fmt.Sprint(day) {
					text = cell
					return strings.Contains(cell, want)
				}
			}
		}
		return false
	})
	return text
}

// Someone signed out reads December, its Sundays closed every week and Christmas closed, with
// nothing to change. The librarian, from the masthead's Calendar, starts on today's day, moves
// to the 24th with the arrow keys and closes it with Enter: the API says it is closed, and the
// day says so, keeping the focus. She adds Mondays to the weekly closings, then opens the 24th
// again with a click; the API agrees each time, and the next month is a link away.
func TestLibrarianClosesADayInTheMonthView(t *testing.T) {
	t.Parallel()
	clock := apitest.NewClock()
	p := apitest.StartProvider(t)
	base := startService(t, apitest.WithSignIn(app.Config{WebUI: true, Tuning: app.Tuning{Now: clock.Now}}, p))
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/calendar/weekly", map[string]any{"closed": []string{"sunday"}}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPut, base+"/calendar/closed/2026-12-25", nil, http.StatusCreated)

	anyone := newTab(t)
	anyone.open(base + "/#/calendar")
	anyone.get("table", "December 2026")
	dayCell(anyone, "December 2026", 6, "Closed every week")
	dayCell(anyone, "December 2026", 25, "Closed")
	dayCell(anyone, "December 2026", 1, "Today")
	anyone.waitText("region", "Closed every week", "The library is closed on Sundays.")
	requireAbsent(anyone, "button", "Close Thursday, December 24, 2026", "button", "Save weekly closings")
	requireAccessible(anyone, "the calendar, read by someone signed out")

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "libby")
	tb.get("navigation", "Main").get("link", "Calendar").click()
	tb.get("table", "December 2026")
	today := tb.get("button", "Close Tuesday, December 1, 2026")
	today.focus()
	tb.press(kb.ArrowDown + kb.ArrowDown + kb.ArrowDown + kb.ArrowRight + kb.ArrowRight)
	if f := tb.focused(); f != "Close Thursday, December 24, 2026" {
		t.Fatalf("after three weeks down and two days right from the 1st, focus is on %q", f)
	}
	tb.press(kb.Enter)
	tb.waitText("status", "Closings", "The library is closed on Thursday, December 24, 2026.")
	dayCell(tb, "December 2026", 24, "Closed")
	waitForCalendar(t, base, "2026-12-24", "2026-12-24", func(v calendarView) bool {
		return slices.Equal(v.Closed, []string{"2026-12-24"}) && len(v.Days) == 1 && !v.Days[0].Open
	})
	tb.get("button", "Reopen Thursday, December 24, 2026")
	if f := tb.focused(); f != "Reopen Thursday, December 24, 2026" {
		t.Fatalf("after closing the 24th, focus is on %q, want its button", f)
	}
	requireAccessible(tb, "the calendar, a day closed by the librarian")

	weekly := tb.get("region", "Closed every week")
	weekly.get("checkbox", "Monday").click()
	weekly.get("button", "Save weekly closings").click()
	weekly.get("status", "").waitText("The library now closes on Sundays and Mondays.")
	dayCell(tb, "December 2026", 7, "Closed every week")
	waitForCalendar(t, base, "2026-12-01", "2026-12-31", func(v calendarView) bool {
		return slices.Equal(v.Weekly, []string{"sunday", "monday"})
	})

	tb.get("button", "Reopen Thursday, December 24, 2026").click()
	tb.waitText("status", "Closings", "The library opens on Thursday, December 24, 2026 again.")
	dayCell(tb, "December 2026", 24, "Open")
	waitForCalendar(t, base, "2026-12-01", "2026-12-31", func(v calendarView) bool {
		return slices.Equal(v.Closed, []string{"2026-12-25"})
	})
	screenshot(tb, "calendar")

	tb.get("navigation", "Months").get("link", "January 2027").click()
	tb.get("table", "January 2027")
	dayCell(tb, "January 2027", 4, "Closed every week") // a Monday
}
