package web_test

// A member's holds on titles in the web app: each waits in its title's line, for any copy,
// and My holds lists each one on its own row, with the member's place in the line, until a
// copy comes back and waits for them on the hold shelf; Cancel ends one there, and the
// librarian's page of the member lends the copy that waits.

import (
	"encoding/json"
	"net/http"
	"testing"
)

// addTitleWithCopyOut adds a title through the API, and one copy of it, lent to borrower: no
// copy of it is on the shelf.
func addTitleWithCopyOut(t *testing.T, base, bearer, titleID, title, author, copyID, borrower string) {
	t.Helper()
	mustCallAs(t, bearer, http.MethodPost, base+"/titles", map[string]any{"id": titleID, "title": title, "authors": []string{author}}, http.StatusCreated)
	mustCallAs(t, bearer, http.MethodPost, base+"/titles/"+titleID+"/copies", map[string]string{"id": copyID, "barcode": "B-" + copyID}, http.StatusCreated)
	mustCallAs(t, bearer, http.MethodPost, base+"/books/"+copyID+"/loans", map[string]string{"loanId": "loan-" + copyID, "memberId": borrower}, http.StatusCreated)
}

// href is where the link named name in region goes.
func href(tb *tab, region, name string) string {
	tb.t.Helper()
	link := tb.get("region", region).get("link", name)
	s, err := link.call(`function() { return this.getAttribute("href") ?? ""; }`)
	if err != nil {
		tb.t.Fatalf("read the address of %s: %v", link, err)
	}
	return s
}

// Alice places holds on two titles, Dune and Emma, from their pages, while their only copies
// are out; bob waits for Dune before her. My holds lists both, each its own row, waiting for
// any copy, with her place in each line (2nd for Dune, first for Emma), linked to the title's
// page. Emma's copy comes back and is kept for her: My holds shows it ready, with the copy and
// the day it waits until, linked to the copy. She cancels Dune: it leaves the list, and the
// title's line (bob waits alone). The copy's page links to its title. The librarian's page of alice lends her Emma's copy from
// its Lend, which fulfils the hold: her holds are empty.
func TestMyHoldsListsTitleHolds(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	for _, m := range []string{"alice", "bob"} {
		mustCallAs(t, libby, http.MethodPut, base+"/accounts/"+m, map[string]any{"name": m}, http.StatusCreated)
	}
	addTitleWithCopyOut(t, base, libby, "dune", "Dune", "Frank Herbert", "dune-1", "dan")
	addTitleWithCopyOut(t, base, libby, "emma", "Emma", "Jane Austen", "emma-1", "dan")
	status, b := callAPI(t, http.MethodPost, base+"/titles/dune/holds", map[string]string{"memberId": "bob"},
		"Authorization", p.Bearer(t, "bob"), "Idempotency-Key", "bob-waits-for-dune")
	if status != http.StatusCreated {
		t.Fatalf("bob's hold on Dune: %d %s", status, b)
	}

	member := newTab(t)
	member.open(base + "/#/titles/dune")
	signIn(member, "alice")
	for _, title := range []string{"Dune", "Emma"} {
		member.get("region", "Wait for this title").get("button", "Place hold on "+title).click()
		member.waitText("status", "", "Hold placed on “"+title+"”")
		member.goTo("#/titles/emma")
	}
	aliceHolds := base + "/accounts/alice/holds"
	waitForHolds(t, aliceHolds, libby, func(h []holdView) bool { return len(h) == 2 })

	member.goTo("#/account")
	member.row("My holds", "Dune", "Status", "2nd in line")
	member.row("My holds", "Dune", "Copy", "Any copy")
	member.row("My holds", "Emma", "Status", "First in line")
	if got := href(member, "My holds", "Dune"); got != "#/titles/dune" {
		t.Fatalf("Dune's hold links to %q, want the title's page", got)
	}
	requireAccessible(member, "My account with holds on titles")

	mustCallAs(t, libby, http.MethodPost, base+"/books/emma-1/returns", map[string]string{"loanId": "loan-emma-1"}, http.StatusCreated)
	list := waitForHolds(t, aliceHolds, libby, func(h []holdView) bool {
		for _, x := range h {
			if x.Status == "ready" {
				return true
			}
		}
		return false
	})
	var ready holdView
	for _, x := range list {
		if x.Status == "ready" {
			ready = x
		}
	}
	if ready.BookID != "emma-1" || ready.Until == "" {
		t.Fatalf("alice's holds after Emma's copy came back are %+v, want emma-1 ready for her", list)
	}
	until := dayText(member, ready.Until)
	member.goTo("#/books")
	member.get("heading", "Catalog")
	member.goTo("#/account")
	member.row("My holds", "Emma", "Status", "Ready for you until "+until)
	member.row("My holds", "Emma", "Copy", "emma-1")
	member.row("My holds", "Dune", "Status", "2nd in line")
	if got := href(member, "My holds", "Emma"); got != "#/books/emma-1" {
		t.Fatalf("Emma's ready hold links to %q, want the copy's page", got)
	}
	requireAccessible(member, "My account with a hold waiting and one ready")
	screenshot(member, "my-title-holds")

	myHolds := member.get("region", "My holds")
	myHolds.get("button", "Cancel the hold on Dune").click()
	myHolds.get("status", "").waitText("Cancelled the hold on “Dune”.")
	member.waitFor("Dune to leave My holds", func() bool {
		found, err := member.queryAX(myHolds.id, "link", "Dune")
		return err == nil && len(found) == 0
	})
	member.row("My holds", "Emma", "Status", "Ready for you until "+until)
	requireAbsent(member, "alert", "")
	requireAccessible(member, "My account, a hold on a title cancelled")
	waitForHolds(t, aliceHolds, libby, func(h []holdView) bool { return len(h) == 1 && h[0].BookID == "emma-1" })
	var queue titleQueue
	if err := json.Unmarshal(mustCallAs(t, libby, http.MethodGet, base+"/titles/dune/holds", nil, http.StatusOK), &queue); err != nil {
		t.Fatal(err)
	}
	if len(queue.Waiting) != 1 || queue.Waiting[0].MemberID != "bob" {
		t.Fatalf("Dune's line after alice cancelled is %+v, want bob alone", queue.Waiting)
	}
	myHolds.get("link", "Emma").click()
	member.waitText("region", "This book", "Copy of\nEmma")
	if got := href(member, "This book", "Emma"); got != "#/titles/emma" {
		t.Fatalf("the copy's page links its title at %q, want the title's page", got)
	}

	desk := newTab(t)
	desk.open(base + "/#/members/alice")
	signIn(desk, "libby")
	desk.row("Holds", "Emma", "Status", "Ready for pickup until "+until)
	desk.get("region", "Holds").get("button", "Lend Emma to alice").click()
	desk.get("region", "Holds").get("status", "").waitText("Lent “Emma” to alice, due back ")
	desk.row("Holds", "This member waits for no book.", "Title", "")
	requireAbsent(desk, "alert", "")
	waitForHolds(t, aliceHolds, libby, func(h []holdView) bool { return len(h) == 0 })
	var book struct {
		Status string
		Loan   struct{ MemberID string }
	}
	if err := json.Unmarshal(mustCallAs(t, libby, http.MethodGet, base+"/books/emma-1", nil, http.StatusOK), &book); err != nil {
		t.Fatal(err)
	}
	if book.Status != "lent" || book.Loan.MemberID != "alice" {
		t.Fatalf("emma-1 is %s to %q after the Lend on alice's page, want lent to alice", book.Status, book.Loan.MemberID)
	}
}
