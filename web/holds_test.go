package web_test

// Holds in the web app: a member places one from the catalog on a title none of whose copies
// is on the shelf, once however they click, sees their place in its line there and cancels it
// from My account; and the pickup, from the return that puts the copy on the hold shelf to the
// librarian lending it to the member it waits for, through the Hold shelf page.

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"library/internal/app"
	"library/internal/books"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// holdView is a hold as GET /accounts/{memberId}/holds and GET /holds show it.
type holdView struct {
	BookID   string `json:"bookId"` // "" (null) for a hold waiting for any copy of TitleID
	TitleID  string `json:"titleId"`
	Title    string `json:"title"`
	MemberID string `json:"memberId"`
	Status   string `json:"status"`
	Place    int    `json:"place"`
	Until    string `json:"until"`
}

// waitForHolds polls url (a list of holds, read with bearer when it is not "") until ok holds for its holds, and
// returns them.
func waitForHolds(t *testing.T, url, bearer string, ok func([]holdView) bool) []holdView {
	t.Helper()
	var list struct{ Holds []holdView }
	deadline := time.Now().Add(waitTimeout)
	var headers []string
	if bearer != "" {
		headers = []string{"Authorization", bearer}
	}
	for {
		status, b := callAPI(t, http.MethodGet, url, nil, headers...)
		if status == http.StatusOK && json.Unmarshal(b, &list) == nil && ok(list.Holds) {
			return list.Holds
		}
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for the holds at %s; the last answer was %d %s", waitTimeout, url, status, b)
		}
		time.Sleep(pollInterval) // polling the holds view, bounded by the deadline
	}
}

// placeHoldAs places memberID's hold on book through the API, as bearer, under key.
func placeHoldAs(t *testing.T, base, bearer, book, memberID, key string) {
	t.Helper()
	status, b := callAPI(t, http.MethodPost, base+"/books/"+book+"/holds", map[string]string{"memberId": memberID},
		"Authorization", bearer, "Idempotency-Key", key)
	if status != http.StatusCreated {
		t.Fatalf("place %s's hold on %s: %d %s", memberID, book, status, b)
	}
}

// A member places a hold from the catalog, with a double click, on a title whose one copy is
// lent. The first answer is held back while the second click lands, so the hold is surely in
// flight then: the button is disabled, and a submit that reaches the form anyway joins the hold
// in flight. Every request carries one key, the title's stream has one TitleHoldPlaced, no
// refusal is shown (a second hold under a new key would be refused as AlreadyHeld), and the
// catalog's row says the member's place in the line, and counts them. My account lists the
// hold with its place; Cancel there ends it.
func TestMemberPlacesAHoldOnceAndCancelsIt(t *testing.T) {
	t.Parallel()
	p := apitest.StartProvider(t)
	databaseURL := pgtest.NewDatabase(t)
	db := pgtest.Connect(t, databaseURL)
	base := startService(t, apitest.WithSignIn(app.Config{WebUI: true, DatabaseURL: databaseURL}, p))
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/alice", map[string]any{"name": "Alice Liddell"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books", map[string]string{"id": "dune", "title": "Dune", "author": "Frank Herbert"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-dune", "memberId": "bob"}, http.StatusCreated)
	aliceHolds := base + "/accounts/alice/holds"
	dune := books.TitleIDOf("Dune", "Frank Herbert") // the title a book added on its own is a copy of

	tb := newTab(t)
	tb.open(base + "/#/books/dune")
	signIn(tb, "alice")
	tb.get("region", "Wait for this book").get("button", "Place hold on Dune")
	requireAccessible(tb, "a lent book's page, to a member")
	tb.goTo("#/books")
	tb.row("Titles", "Dune", "Copies", "None on the shelf")
	tb.get("table", "Titles").get("button", "Place hold on Dune")
	requireAccessible(tb, "the catalog with Place hold, to a member")
	release := make(chan struct{})
	holds := intercept(tb, "*/titles/"+dune+"/holds", func(n int, _ intercepted) verdict {
		if n == 0 {
			return verdict{hold: release}
		}
		return verdict{}
	})
	button := tb.get("button", "Place hold on Dune")
	button.doubleClick()
	holds.waitRequests(1) // the service has answered; the page has not seen it yet
	if !button.disabled() {
		t.Fatal("the Place hold button is enabled while the hold is in flight")
	}
	if _, err := button.call(`function() { this.form.requestSubmit(); return ""; }`); err != nil {
		t.Fatal(err)
	}
	close(release)

	tb.waitText("status", "Holds", "Hold placed on “Dune”: the first copy that comes back is kept for you on the hold shelf.")
	row := tb.row("Titles", "Dune", "Your hold", "You are first in line")
	if row["Holds"] != "1 waiting" {
		t.Fatalf("the catalog counts %q waiting for Dune once alice waits, want 1", row["Holds"])
	}
	requireAbsent(tb, "alert", "", "button", "Place hold on Dune")
	if requests := holds.requests(); len(requests) != 1 {
		t.Fatalf("%d holds were sent for a double click, want 1", len(requests))
	}
	requireOneKey(t, holds.requests())
	if n := countEvents(t, db, "title-"+dune, "TitleHoldPlaced"); n != 1 {
		t.Fatalf("%d TitleHoldPlaced events after a double click, want 1", n)
	}
	list := waitForHolds(t, aliceHolds, libby, func(h []holdView) bool { return len(h) > 0 })
	if len(list) != 1 || list[0].Status != "waiting" || list[0].Place != 1 || list[0].TitleID != dune {
		t.Fatalf("alice's holds are %+v, want one on Dune's title, waiting, first in line", list)
	}
	requireAccessible(tb, "the catalog, a hold placed")
	screenshot(tb, "catalog-hold")

	tb.get("navigation", "Main").get("link", "My account").click()
	tb.row("My holds", "Dune", "Status", "First in line")
	requireAccessible(tb, "My account with a hold")
	screenshot(tb, "my-holds")
	myHolds := tb.get("region", "My holds")
	myHolds.get("button", "Cancel the hold on Dune").click()
	myHolds.get("status", "").waitText("Cancelled the hold on “Dune”.")
	tb.row("My holds", "You are waiting for no book. Place a hold on a book that is out in the catalog.", "Title", "")
	waitForHolds(t, aliceHolds, libby, func(h []holdView) bool { return len(h) == 0 })
	if n := countEvents(t, db, "title-"+dune, "TitleHoldCancelled"); n != 1 {
		t.Fatalf("%d TitleHoldCancelled events after Cancel, want 1", n)
	}
	requireAbsent(tb, "alert", "")
	requireAccessible(tb, "My account, a hold cancelled")
}

// The pickup: Dune is lent to alice, and bob waits for it. The librarian takes it back on the
// book's page, which says it is now held for bob; bob's My account shows it ready, until the
// day the service set, and the catalog's row of its title says so, to him; the librarian's
// list of copies shows it on the hold shelf. The librarian's page of bob
// and her Hold shelf page list it; Lend there lends it to bob, which fulfils the hold: bob's
// holds are empty, the book is lent to him, and the shelf is empty.
func TestHoldShelfPickup(t *testing.T) {
	t.Parallel()
	p := apitest.StartProvider(t)
	databaseURL := pgtest.NewDatabase(t)
	db := pgtest.Connect(t, databaseURL)
	base := startService(t, apitest.WithSignIn(app.Config{WebUI: true, DatabaseURL: databaseURL}, p))
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/bob", map[string]any{"name": "Bob Member"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books", map[string]string{"id": "dune", "title": "Dune", "author": "Frank Herbert"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-dune", "memberId": "alice"}, http.StatusCreated)
	placeHoldAs(t, base, p.Bearer(t, "bob"), "dune", "bob", "bob-waits-for-dune")
	bobHolds := base + "/accounts/bob/holds"
	waitForHolds(t, bobHolds, libby, func(h []holdView) bool { return len(h) == 1 })

	desk := newTab(t)
	desk.open(base + "/#/books/dune")
	signIn(desk, "libby")
	desk.get("region", "Take it back").get("button", "Take back").click()
	ready := waitForHolds(t, bobHolds, libby, func(h []holdView) bool { return len(h) == 1 && h[0].Status == "ready" })[0]
	until := dayText(desk, ready.Until)
	desk.waitText("status", "", "“Dune” is back, and held for bob on the hold shelf until "+until+".")
	desk.waitText("region", "This book", "On the hold shelf")

	member := newTab(t)
	member.open(base + "/#/account")
	signIn(member, "bob")
	member.row("My holds", "Dune", "Status", "Ready for you until "+until)
	member.goTo("#/books")
	member.row("Titles", "Dune", "Your hold", "A copy waits for you until "+until)
	member.row("Titles", "Dune", "Copies", "None on the shelf")
	requireAbsent(member, "button", "Place hold on Dune")

	desk.goTo("#/copies?status=held")
	desk.row("Copies found", "Dune", "Status", "Held on the hold shelf")
	desk.goTo("#/members/bob")
	desk.row("Holds", "Dune", "Status", "Ready for pickup until "+until)
	desk.get("region", "Holds").get("button", "Lend Dune to bob")
	requireAccessible(desk, "a member's page with a book on the hold shelf for them")
	desk.get("navigation", "Main").get("link", "Hold shelf").click()
	desk.get("heading", "Hold shelf")
	row := desk.row("Books on the hold shelf", "Dune", "Member", "bob")
	if row["Waits until"] != until {
		t.Fatalf("the hold shelf says Dune waits until %q, want %q", row["Waits until"], until)
	}
	requireAccessible(desk, "the hold shelf")
	screenshot(desk, "hold-shelf")

	desk.get("button", "Lend Dune to bob").click()
	desk.waitText("status", "Lending", "Lent “Dune” to bob, due back ")
	desk.row("Books on the hold shelf", "No book is on the hold shelf.", "Title", "")
	requireAbsent(desk, "alert", "")
	waitForHolds(t, bobHolds, libby, func(h []holdView) bool { return len(h) == 0 })
	var book struct {
		Status string
		Loan   struct{ MemberID string }
	}
	if err := json.Unmarshal(mustCallAs(t, libby, http.MethodGet, base+"/books/dune", nil, http.StatusOK), &book); err != nil {
		t.Fatal(err)
	}
	if book.Status != "lent" || book.Loan.MemberID != "bob" {
		t.Fatalf("Dune is %s to %q after the lend from the hold shelf, want lent to bob", book.Status, book.Loan.MemberID)
	}
	if n := countEvents(t, db, "book-dune", "HoldFulfilled"); n != 1 {
		t.Fatalf("%d HoldFulfilled events after the lend from the hold shelf, want 1", n)
	}
	requireAccessible(desk, "the hold shelf, a book lent")

	member.goTo("#/account")
	member.row("My loans", "Dune", "Renewals left", "2")
	member.row("My holds", "You are waiting for no book. Place a hold on a book that is out in the catalog.", "Title", "")
	if text := member.pageText(); strings.Contains(text, "Ready for you") {
		t.Fatalf("bob's page still shows a hold ready:\n%s", text)
	}
}

// A hold the service refuses is said in one sentence of the page's own, and none is placed: on
// a title whose copy was brought back after the catalog was drawn (on the shelf now: no need
// to wait), and by a member who owes more than BLOCK_AT (what they owe, and where to pay).
func TestHoldRefusalsAreSaid(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/alice", map[string]any{"name": "Alice Liddell"}, http.StatusCreated)
	for _, b := range []string{"dune|Dune|Frank Herbert", "emma|Emma|Jane Austen"} {
		f := strings.Split(b, "|")
		mustCallAs(t, libby, http.MethodPost, base+"/books", map[string]string{"id": f[0], "title": f[1], "author": f[2]}, http.StatusCreated)
		mustCallAs(t, libby, http.MethodPost, base+"/books/"+f[0]+"/loans", map[string]string{"loanId": "loan-" + f[0], "memberId": "bob"}, http.StatusCreated)
	}

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "alice")
	tb.get("button", "Place hold on Emma")
	mustCallAs(t, libby, http.MethodPost, base+"/books/emma/returns", map[string]string{"loanId": "loan-emma"}, http.StatusCreated)
	tb.get("button", "Place hold on Emma").click()
	requireHoldRefusal(t, tb, "A copy of “Emma” is on the shelf now, so there is no need to wait for it: ask at the desk to borrow it.")

	mustCallAs(t, libby, http.MethodPost, base+"/accounts/alice/fines", map[string]any{"amount": 1500, "reason": "Lost book"}, http.StatusCreated)
	tb.get("button", "Place hold on Dune").click()
	requireHoldRefusal(t, tb, "You can't place holds while you owe 15.00: please pay under My account first.")
	requireAccessible(tb, "the catalog, a hold refused")
	if holds := waitForHolds(t, base+"/accounts/alice/holds", libby, func([]holdView) bool { return true }); len(holds) != 0 {
		t.Fatalf("alice has holds %+v after two refusals, want none", holds)
	}
}

// requireHoldRefusal waits until the one alert in the page says want, in the page's own words:
// the service's (its book ids, "cents", "lend it instead") are not repeated.
func requireHoldRefusal(t *testing.T, tb *tab, want string) {
	t.Helper()
	refusal := tb.waitText("alert", "", want)
	for _, theirs := range []string{"book emma", "cents", "lend it instead", "BLOCK_AT"} {
		if strings.Contains(refusal, theirs) {
			t.Fatalf("the refusal repeats the service's words (%q): %q", theirs, refusal)
		}
	}
}
