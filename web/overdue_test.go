package web_test

// The librarian's list of overdue loans, a page at a time, on a service whose clock the test
// moves on (app.Tuning.Now): loans made at one time are overdue days later.

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// overduePageSize is the web app's page of overdue loans (pages/overdue.js).
const overduePageSize = 20

// tableRows waits until the table named name has want rows, and returns them.
func tableRows(tb *tab, name string, want int) []map[string]string {
	tb.t.Helper()
	var rows []map[string]string
	tb.waitFor(fmt.Sprintf("table %q to have %d rows", name, want), func() bool {
		tables, err := tb.queryAX(0, "table", name)
		if err != nil || len(tables) != 1 {
			return false
		}
		_, rows, err = tables[0].table()
		return err == nil && len(rows) == want
	})
	return rows
}

// Two more loans than a page holds are 6 days overdue, and one more is not due yet. The
// Overdue page, from the masthead, lists the first page of them, each with its title, member,
// due date and days overdue; Next page shows the other two, and First page the first again. The
// loan not yet due is on neither.
func TestLibrarianSeesOverdueLoans(t *testing.T) {
	t.Parallel()
	clock := apitest.NewClock()
	// Each member has 11 books out: more than MAX_LOANS lets one borrow by default.
	base := startService(t, app.Config{WebUI: true, MaxLoans: 100, Tuning: app.Tuning{Now: clock.Now}})
	members := []string{"ann", "bob"}
	for i := 1; i <= overduePageSize+2; i++ {
		id := fmt.Sprintf("b%02d", i)
		addBooks(t, base, fmt.Sprintf("%s|Book %02d|Some Author", id, i))
		mustCall(t, http.MethodPost, base+"/books/"+id+"/loans", map[string]string{"loanId": "loan-" + id, "memberId": members[i%2]}, http.StatusCreated)
	}
	due := clock.Now().Add(14 * 24 * time.Hour).Format(time.RFC3339) // LOAN_PERIOD's default
	clock.Advance(20 * 24 * time.Hour)
	addBooks(t, base, "later|Not Due Yet|Some Author")
	mustCall(t, http.MethodPost, base+"/books/later/loans", map[string]string{"loanId": "loan-later", "memberId": "ann"}, http.StatusCreated)
	waitForLoans(t, base+"/loans?limit=100", "", func(loans []loanView) bool { return len(loans) == overduePageSize+3 })

	tb := newTab(t)
	tb.open(base + "/#/books")
	tb.get("navigation", "Main").get("link", "Overdue").click()
	tb.get("heading", "Overdue loans")
	rows := tableRows(tb, "Overdue loans", overduePageSize)
	want := map[string]string{"Title": "Book 01", "Member": "bob", "Due back": dayText(tb, due), "Days overdue": "6 days"}
	if fmt.Sprint(rows[0]) != fmt.Sprint(want) || rows[overduePageSize-1]["Title"] != "Book 20" {
		t.Fatalf("the first page's first row is %v, want %v, and its last %v, want Book 20", rows[0], want, rows[overduePageSize-1])
	}
	pages := tb.get("navigation", "Pages of overdue loans")
	pages.waitText(fmt.Sprintf("%d overdue loans on this page.", overduePageSize))
	requireAccessible(tb, "the overdue loans, first page")
	screenshot(tb, "overdue")

	pages.get("link", "Next page").click()
	rows = tableRows(tb, "Overdue loans", 2)
	if rows[0]["Title"] != "Book 21" || rows[1]["Title"] != "Book 22" || rows[1]["Member"] != "ann" || rows[1]["Days overdue"] != "6 days" {
		t.Fatalf("the second page is %v, want Book 21 and Book 22 (ann's), 6 days overdue", rows)
	}
	requireAbsent(tb, "link", "Next page", "rowheader", "Not Due Yet")
	requireAccessible(tb, "the overdue loans, last page")

	tb.get("navigation", "Pages of overdue loans").get("link", "First page").click()
	tableRows(tb, "Overdue loans", overduePageSize)
	tb.row("Overdue loans", "Book 01", "Days overdue", "6 days")
	links, err := tb.queryAX(0, "link", "bob")
	if err != nil || len(links) == 0 {
		t.Fatalf("no link to bob's page (%v)", err)
	}
	links[0].click() // Book 01's member: the first row's
	tb.get("heading", "Member bob")
	tb.row("Loans", "Book 01", "Due back", "Overdue by 6 days")
}
