package web_test

// Loans on a member's page, and Renew, sent the way the service was built for: one
// Idempotency-Key per intended renewal, whatever the person or the network does to it.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// loanView is a loan as GET /accounts/{memberId}/loans and GET /loans show it.
type loanView struct {
	BookID       string `json:"bookId"`
	Title        string `json:"title"`
	MemberID     string `json:"memberId"`
	LoanID       string `json:"loanId"`
	DueAt        string `json:"dueAt"`
	RenewalsLeft int    `json:"renewalsLeft"`
	DaysOverdue  int    `json:"daysOverdue"`
}

// waitForLoans polls url (a list of loans, read with bearer when it is not "") until ok holds
// for its loans, and returns them.
func waitForLoans(t *testing.T, url, bearer string, ok func([]loanView) bool) []loanView {
	t.Helper()
	var headers []string
	if bearer != "" {
		headers = []string{"Authorization", bearer}
	}
	var list struct{ Loans []loanView }
	deadline := time.Now().Add(waitTimeout)
	for {
		status, b := callAPI(t, http.MethodGet, url, nil, headers...)
		if status == http.StatusOK && json.Unmarshal(b, &list) == nil && ok(list.Loans) {
			return list.Loans
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for the loans at %s; the last answer was %d %s", waitTimeout, url, status, b)
		}
		time.Sleep(pollInterval) // polling the loans view, bounded by the deadline
	}
}

// loanOf is the loan of book in loans, and whether there is one.
func loanOf(loans []loanView, book string) (loanView, bool) {
	for _, l := range loans {
		if l.BookID == book {
			return l, true
		}
	}
	return loanView{}, false
}

// renewalsLeft waits until the loans view says book's loan in loans at url has left renewals left.
func renewalsLeft(t *testing.T, url, bearer, book string, left int) loanView {
	t.Helper()
	loans := waitForLoans(t, url, bearer, func(loans []loanView) bool {
		l, found := loanOf(loans, book)
		return found && l.RenewalsLeft == left
	})
	l, _ := loanOf(loans, book)
	return l
}

// A member renews a loan from My account with a double click. The first answer is held back
// while the second click lands, so the renewal is surely in flight then: the button is
// disabled, and a submit that reaches the form anyway joins the renewal in flight. Every
// request carries one key, the log has exactly one LoanRenewed, the outcome is said once, and
// the row shows the new due date and one renewal fewer.
func TestMemberRenewsOnceOnADoubleClick(t *testing.T) {
	t.Parallel()
	p := apitest.StartProvider(t)
	databaseURL := pgtest.NewDatabase(t)
	db := pgtest.Connect(t, databaseURL)
	base := startService(t, apitest.WithSignIn(app.Config{WebUI: true, DatabaseURL: databaseURL}, p))
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPost, base+"/books", map[string]string{"id": "dune", "title": "Dune", "author": "Frank Herbert"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-dune", "memberId": "alice"}, http.StatusCreated)
	aliceLoans := base + "/accounts/alice/loans"
	lent := renewalsLeft(t, aliceLoans, libby, "dune", 2)

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "alice")
	tb.get("navigation", "Main").get("link", "My account").click()
	tb.get("heading", "My account")
	tb.row("My loans", "Dune", "Due back", dayText(tb, lent.DueAt))
	release := make(chan struct{})
	renewals := intercept(tb, "*/books/dune/loans/loan-dune/renewals", func(n int, _ intercepted) verdict {
		if n == 0 {
			return verdict{hold: release}
		}
		return verdict{}
	})
	loans := tb.get("region", "My loans")
	button := loans.get("button", "Renew Dune")
	button.doubleClick()
	renewals.waitRequests(1) // the service has answered; the page has not seen it yet
	if !button.disabled() {
		t.Fatal("the Renew button is enabled while the renewal is in flight")
	}
	if _, err := button.call(`function() { this.form.requestSubmit(); return ""; }`); err != nil {
		t.Fatal(err)
	}
	close(release)

	renewed := renewalsLeft(t, aliceLoans, libby, "dune", 1)
	due := dayText(tb, renewed.DueAt)
	text := loans.get("status", "").waitText("Renewed “Dune”: it is due back " + due + ".")
	if n := strings.Count(loans.text(), "Renewed"); n != 1 || strings.Contains(text, "already") {
		t.Fatalf("the outcome is shown %d times, or as a replay: %q", n, text)
	}
	row := tb.row("My loans", "Dune", "Due back", due)
	if row["Renewals left"] != "1" || strings.Contains(row["Due back"], "Overdue") {
		t.Fatalf("the renewed loan's row says %v, want 1 renewal left, not overdue", row)
	}
	requireOneKey(t, renewals.requests())
	if n := countEvents(t, db, "book-dune", "LoanRenewed"); n != 1 {
		t.Fatalf("%d LoanRenewed events after a double click, want 1", n)
	}
	requireAccessible(tb, "My account, a loan renewed")
	screenshot(tb, "my-loans")
}

// A renewal is recorded, and its answer is lost on the way back, at every attempt the page
// makes (the test fails each request after the service answered): the page says it may or may
// not be recorded. Renew pressed again sends the same intent under the same key; the service
// answers with the first answer, replayed, and the page says the loan was renewed. The log has
// one LoanRenewed.
func TestRenewLostAnswerIsRetriedWithTheSameKey(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	db := pgtest.Connect(t, databaseURL)
	base := startService(t, app.Config{WebUI: true, DatabaseURL: databaseURL})
	addBooks(t, base, "dune|Dune|Frank Herbert")
	mustCall(t, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-dune", "memberId": "bob"}, http.StatusCreated)
	bobLoans := base + "/accounts/bob/loans"
	renewalsLeft(t, bobLoans, "", "dune", 2)

	tb := newTab(t)
	const attempts = 4 // RENEW_ATTEMPTS in loans.js
	renewals := intercept(tb, "*/books/dune/loans/loan-dune/renewals", func(n int, _ intercepted) verdict {
		return verdict{fail: n < attempts}
	})
	tb.open(base + "/#/members/bob")
	loans := tb.get("region", "Loans")
	loans.get("button", "Renew Dune").click()
	loans.get("alert", "").waitText("The renewal may or may not have been recorded. Press Renew again")
	if n := len(renewals.requests()); n != attempts {
		t.Fatalf("the page sent %d attempts before it stopped, want %d", n, attempts)
	}
	loans.get("button", "Renew Dune").click()
	renewed := renewalsLeft(t, bobLoans, "", "dune", 1)
	loans.get("status", "").waitText("Renewed “Dune”: it is due back " + dayText(tb, renewed.DueAt) + ".")
	requests := renewals.waitRequests(attempts + 1)
	requireOneKey(t, requests)
	if last := requests[len(requests)-1]; last.Status != http.StatusCreated || last.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the renewal pressed again was answered %d with Idempotent-Replayed %q, want the first answer replayed", last.Status, last.Header.Get("Idempotent-Replayed"))
	}
	if n := countEvents(t, db, "book-dune", "LoanRenewed"); n != 1 {
		t.Fatalf("%d LoanRenewed events after lost answers and Renew pressed again, want 1", n)
	}
	tb.row("Loans", "Dune", "Renewals left", "1")
}

// The librarian's page of a member shows the member's loans, and Renew works there too, as the
// service lets a librarian renew any loan.
func TestLibrarianSeesAndRenewsAMembersLoans(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/bob", map[string]any{"name": "Bob Member"}, http.StatusCreated)
	for _, b := range []string{"dune|Dune|Frank Herbert", "emma|Emma|Jane Austen"} {
		f := strings.Split(b, "|")
		mustCallAs(t, libby, http.MethodPost, base+"/books", map[string]string{"id": f[0], "title": f[1], "author": f[2]}, http.StatusCreated)
		mustCallAs(t, libby, http.MethodPost, base+"/books/"+f[0]+"/loans", map[string]string{"loanId": "loan-" + f[0], "memberId": "bob"}, http.StatusCreated)
	}
	bobLoans := base + "/accounts/bob/loans"
	waitForLoans(t, bobLoans, libby, func(loans []loanView) bool { return len(loans) == 2 })

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "libby")
	tb.get("textbox", "Find a member").fill("bob")
	tb.press(kb.Enter)
	tb.get("heading", "Bob Member")
	tb.row("Loans", "Dune", "Renewals left", "2")
	tb.row("Loans", "Emma", "Renewals left", "2")
	requireAccessible(tb, "a member's page with loans")
	tb.get("region", "Loans").get("button", "Renew Emma").click()
	renewed := renewalsLeft(t, bobLoans, libby, "emma", 1)
	tb.get("region", "Loans").get("status", "").waitText("Renewed “Emma”: it is due back " + dayText(tb, renewed.DueAt) + ".")
	tb.row("Loans", "Emma", "Renewals left", "1")
	tb.row("Loans", "Dune", "Renewals left", "2")
	requireAccessible(tb, "a member's page, a loan renewed")
}

// A renewal the service refuses is said in one sentence of the page's own: a loan that ended
// (the book was brought back after the page was drawn), and a loan renewed as often as it may
// be (here, elsewhere, after the page was drawn). The list is read again after each.
func TestRenewalRefusalsAreSaid(t *testing.T) {
	t.Parallel()
	base := startService(t, app.Config{WebUI: true, RenewalsMax: 1})
	addBooks(t, base, "dune|Dune|Frank Herbert", "emma|Emma|Jane Austen")
	for _, book := range []string{"dune", "emma"} {
		mustCall(t, http.MethodPost, base+"/books/"+book+"/loans", map[string]string{"loanId": "loan-" + book, "memberId": "bob"}, http.StatusCreated)
	}
	bobLoans := base + "/accounts/bob/loans"
	waitForLoans(t, bobLoans, "", func(loans []loanView) bool { return len(loans) == 2 })

	tb := newTab(t)
	tb.open(base + "/#/members/bob")
	tb.row("Loans", "Emma", "Renewals left", "1")
	tb.row("Loans", "Dune", "Renewals left", "1")
	loans := tb.get("region", "Loans")

	mustCall(t, http.MethodPost, base+"/books/dune/returns", map[string]string{"loanId": "loan-dune"}, http.StatusCreated)
	loans.get("button", "Renew Dune").click()
	requireRefusal(t, loans, "“Dune” can't be renewed: it has been brought back, so this loan has ended.")
	tb.waitFor("Dune to leave the list of loans", func() bool {
		found, err := tb.queryAX(0, "button", "Renew Dune")
		return err == nil && len(found) == 0
	})

	if status, b := callAPI(t, http.MethodPost, base+"/books/emma/loans/loan-emma/renewals", nil, "Idempotency-Key", "elsewhere"); status != http.StatusCreated {
		t.Fatalf("renew elsewhere: %d %s", status, b)
	}
	renewalsLeft(t, bobLoans, "", "emma", 0)
	loans.get("button", "Renew Emma").click()
	requireRefusal(t, loans, "“Emma” can't be renewed again: it has been renewed as many times as a loan may be. Please bring it back when it is due.")
	tb.row("Loans", "Emma", "Renew", "No renewals left")
	requireRefusal(t, loans, "“Emma” can't be renewed again")
	requireAccessible(tb, "a member's page, a renewal refused")
}

// requireRefusal waits until the one alert in e says want, in the page's own sentence: the
// service's words (its loan ids, "renewed 1 times") are not repeated.
func requireRefusal(t *testing.T, e *element, want string) {
	t.Helper()
	refusal := e.get("alert", "").waitText(want)
	if strings.Contains(refusal, "loan-") || strings.Contains(refusal, "times already") {
		t.Fatalf("the refusal repeats the service's words: %q", refusal)
	}
}

// A loan due on a day the library then closes is moved, and the member's loans say why: the due
// date it had, and the day that closed.
func TestAMovedDueDateSaysWhy(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/bob", map[string]any{"name": "Bob Member"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books", map[string]string{"id": "dune", "title": "Dune", "author": "Frank Herbert"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-dune", "memberId": "bob"}, http.StatusCreated)
	bobLoans := base + "/accounts/bob/loans"
	lent := waitForLoans(t, bobLoans, libby, func(loans []loanView) bool { return len(loans) == 1 })[0]
	day := lent.DueAt[:len("2006-01-02")]
	mustCallAs(t, libby, http.MethodPut, base+"/calendar/closed/"+day, nil, http.StatusCreated)
	moved := waitForLoans(t, bobLoans, libby, func(loans []loanView) bool { return len(loans) == 1 && loans[0].DueAt != lent.DueAt })[0]

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "libby")
	tb.get("textbox", "Find a member").fill("bob")
	tb.press(kb.Enter)
	tb.get("heading", "Bob Member")
	tb.row("Loans", "Dune", "Due back", dayText(tb, moved.DueAt))
	tb.row("Loans", "Dune", "Due back", "Moved from "+dayText(tb, lent.DueAt)+": the library is closed on "+dayText(tb, day+"T12:00:00"))
	requireAccessible(tb, "a member's page with a moved loan")
}
