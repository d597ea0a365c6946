package web_test

// Signing in as people do: the page's Sign in button, the provider's own sign-in page (a real
// OpenID Connect provider on loopback, internal/devidp), and back, with the authorization code
// flow and PKCE. Each person then sees what they may do, and nothing else; and a service that
// runs without sign-in says so on every page.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"library/internal/app"
	"library/internal/books"
	"library/internal/testkit/apitest"
)

// openNote is the banner of every page of a service that runs without sign-in.
const openNote = "This library runs without sign-in: anyone who can reach it can do anything."

// signedInService starts an OpenID provider and the service, in memory, with sign-in through
// it; it returns the service's base URL and the provider.
func signedInService(t *testing.T) (string, *apitest.Provider) {
	t.Helper()
	p := apitest.StartProvider(t)
	return startService(t, apitest.WithSignIn(app.Config{WebUI: true}, p)), p
}

// mustCallAs is mustCall with Authorization: bearer.
func mustCallAs(t *testing.T, bearer, method, url string, body any, want int) []byte {
	t.Helper()
	status, b := callAPI(t, method, url, body, "Authorization", bearer)
	if status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, url, status, b, want)
	}
	return b
}

// paymentsRecorded counts the payments in the member's history, read as the librarian.
func paymentsRecorded(t *testing.T, base, librarian, memberID string) int {
	t.Helper()
	var history struct {
		Entries []struct{ Type string } `json:"entries"`
	}
	b := mustCallAs(t, librarian, http.MethodGet, base+"/accounts/"+memberID+"/history?limit=1000", nil, http.StatusOK)
	if err := json.Unmarshal(b, &history); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range history.Entries {
		if e.Type == "PaymentReceived" {
			n++
		}
	}
	return n
}

// signIn presses the masthead's Sign in and signs in on the provider's page as username.
func signIn(tb *tab, username string) {
	tb.t.Helper()
	tb.get("banner", "").get("button", "Sign in").click()
	signInAtProvider(tb, username)
}

// signInAtProvider fills the provider's sign-in page (password: the username + "-password"),
// and waits until the library's page is back with the person signed in.
func signInAtProvider(tb *tab, username string) {
	tb.t.Helper()
	tb.get("heading", "Sign in to the library")
	tb.get("textbox", "Username").fill(username)
	tb.get("textbox", "Password").fill(username + "-password")
	tb.get("button", "Sign in").click()
	tb.waitText("banner", "", "Signed in as")
}

// goTo shows the page at hash without loading the page again, which would sign the person out:
// the token lives in the page's memory only.
func (tb *tab) goTo(hash string) {
	tb.t.Helper()
	if _, err := tb.eval(fmt.Sprintf("(location.hash = %q, '')", hash)); err != nil {
		tb.t.Fatalf("go to %s: %v", hash, err)
	}
}

// requireAbsent fails unless the page has no element of each role and name (pairs of them).
func requireAbsent(tb *tab, roleNames ...string) {
	tb.t.Helper()
	for i := 0; i+1 < len(roleNames); i += 2 {
		found, err := tb.queryAX(0, roleNames[i], roleNames[i+1])
		if err != nil || len(found) != 0 {
			tb.t.Fatalf("the page shows %s %q (%v); it should not:\n%s", roleNames[i], roleNames[i+1], err, tb.pageText())
		}
	}
}

// staffControls are the librarian's controls and the operator's link, which a member never sees.
var staffControls = []string{
	"button", "Charge fine", "button", "Lend", "button", "Take back", "button", "Add book",
	"region", "Charge a fine", "region", "Add a book", "region", "Add a title", "textbox", "Find a member", "link", "Operations", "link", "Overdue", "link", "Hold shelf",
	"region", "Add a copy", "link", "Every copy, and who has it", "link", "Circulation rules",
}

// A member signs in on the provider's page and sees their own account: the loan a librarian
// made them, the fine a librarian charged, and its history, where loans name their books by
// title, as people know them, not by id. This library takes no payments
// online, so the Pay panel says where fines are paid, with no form to pay in. No page shows the
// member a fine, lend, return or add-book control. Before signing in, the title's page shows
// the loan of its copy without its borrower.
func TestMemberSignsInAndSeesTheirAccount(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/alice", map[string]any{"name": "Alice Liddell"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/accounts/alice/fines", map[string]any{"amount": 500, "reason": "Dune, 20 days late"}, http.StatusCreated)
	for _, b := range []string{"dune|Dune|Frank Herbert", "emma|Emma|Jane Austen"} {
		f := strings.Split(b, "|")
		mustCallAs(t, libby, http.MethodPost, base+"/books", map[string]string{"id": f[0], "title": f[1], "author": f[2]}, http.StatusCreated)
	}
	mustCallAs(t, libby, http.MethodPost, base+"/books/emma/loans", map[string]string{"loanId": "loan-emma", "memberId": "alice"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books/emma/returns", map[string]string{"loanId": "loan-emma"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-dune", "memberId": "alice"}, http.StatusCreated)

	tb := newTab(t)
	tb.open(base + "/#/titles/" + books.TitleIDOf("Dune", "Frank Herbert"))
	if row := tb.row("Copies", "dune", "Status", "Lent until"); strings.Contains(row["Status"], "alice") {
		t.Fatalf("the title's page names the borrower to someone signed out: %q", row["Status"])
	}
	requireAbsent(tb, slices.Concat(staffControls, []string{"note", "", "link", "My account"})...)

	signIn(tb, "alice")
	tb.row("Copies", "dune", "Status", "Lent to you")
	tb.get("navigation", "Main").get("link", "My account").click()
	tb.get("heading", "My account")
	tb.row("My loans", "Dune", "Renewals left", "2")
	tb.waitText("region", "Account", "Balance: 5.00 owed")
	tb.row("History", "Fine of 5.00: Dune, 20 days late", "By", "a librarian")
	tb.row("History", "Borrowed Dune", "By", "a librarian")
	tb.row("History", "Brought back Emma", "By", "a librarian")
	tb.row("History", "Borrowed Emma", "By", "a librarian")
	tb.waitText("region", "Pay", "Fines are paid at the library's desk.")
	requireAbsent(tb, "textbox", "Amount to pay", "button", "Pay")
	requireAbsent(tb, staffControls...)
	requireAccessible(tb, "My account, paying at the desk")

	tb.goTo("#/books/dune")
	tb.waitText("region", "This book", "Lent to\nyou")
	requireAbsent(tb, staffControls...)
	tb.goTo("#/books/emma")
	tb.waitText("region", "This book", "On the shelf")
	requireAbsent(tb, staffControls...)
	tb.goTo("#/books")
	tb.row("Titles", "Emma", "Copies", "1 of 1 on the shelf")
	requireAbsent(tb, staffControls...)
	tb.goTo("#/members/bob")
	tb.get("heading", "Members")
	requireAbsent(tb, "region", "Pay", "region", "Account")
	tb.goTo("#/overdue")
	tb.waitText("main", "", "The list of overdue loans is for librarians.")
	requireAbsent(tb, "table", "Overdue loans")
}

// A librarian signs in, finds a member from the masthead, and charges a fine on the member's
// page: the fine is in the account, as the API says, and in its history under the librarian's
// name. The librarian is no operator: no Operations link. Sign out ends the session at the
// provider and comes back signed out.
func TestLibrarianChargesAFine(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPut, base+"/accounts/bob", map[string]any{"name": "Bob Member"}, http.StatusCreated)

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "libby")
	tb.get("region", "Add a book")
	requireAbsent(tb, "link", "Operations", "note", "")
	tb.get("textbox", "Find a member").fill("bob")
	tb.press(kb.Enter)
	tb.get("heading", "Bob Member")
	fine := tb.get("region", "Charge a fine")
	fine.get("textbox", "Fine amount").fill("2.50")
	fine.get("textbox", "Reason").fill("Lost bookmark")
	fine.get("button", "Charge fine").click()
	fine.get("status", "").waitText("Fine of 2.50 charged (Lost bookmark).")
	tb.waitText("region", "Account", "Balance: 2.50 owed")
	tb.row("History", "Fine of 2.50: Lost bookmark", "By", "libby (librarian)")

	var account struct{ Balance int }
	if err := json.Unmarshal(mustCallAs(t, libby, http.MethodGet, base+"/accounts/bob", nil, http.StatusOK), &account); err != nil {
		t.Fatal(err)
	}
	if account.Balance != 250 {
		t.Fatalf("bob's balance is %d after a fine of 2.50, want 250", account.Balance)
	}

	logout := interceptRequests(tb, "*/end_session*", func(int, intercepted) verdict { return verdict{} })
	tb.get("banner", "").get("button", "Sign out").click()
	tb.waitText("table", "Titles", "No titles yet.") // the page, loaded again from the provider's way back
	tb.get("banner", "").get("button", "Sign in")
	requireAbsent(tb, "textbox", "Find a member", "region", "Add a book")
	requireLogout(t, logout.waitRequests(1)[0].URL, false)
}

// requireLogout checks the provider's end_session URL the page went to: the web app's client id
// and where to come back, and the ID token only when the provider requires it
// (AUTH_LOGOUT_ID_TOKEN_HINT), since the URL ends up in the browser's history and the
// provider's logs.
func requireLogout(t *testing.T, endSession string, withHint bool) {
	t.Helper()
	u, err := url.Parse(endSession)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("client_id") != apitest.WebClientID || q.Get("post_logout_redirect_uri") == "" {
		t.Errorf("signing out went to %s, without the client id and where to come back", endSession)
	}
	if hint := q.Get("id_token_hint"); (hint != "") != withHint {
		t.Errorf("signing out sent id_token_hint: %v, want %v", hint != "", withHint)
	}
}

// A provider that requires an ID token to sign out (AUTH_LOGOUT_ID_TOKEN_HINT) gets it.
func TestSignOutSendsTheIDTokenWhereRequired(t *testing.T) {
	t.Parallel()
	p := apitest.StartProvider(t)
	cfg := apitest.WithSignIn(app.Config{WebUI: true}, p)
	cfg.AuthLogoutIDTokenHint = true
	base := startService(t, cfg)

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "alice")
	logout := interceptRequests(tb, "*/end_session*", func(int, intercepted) verdict { return verdict{} })
	tb.get("banner", "").get("button", "Sign out").click()
	tb.get("banner", "").get("button", "Sign in")
	requireLogout(t, logout.waitRequests(1)[0].URL, true)
}

// A service without sign-in says so on every page, and shows everything as it allows: the
// member finder, Operations, adding books; there is nothing to sign in to.
func TestOpenServiceSaysSoOnEveryPage(t *testing.T) {
	t.Parallel()
	base := startService(t, app.Config{WebUI: true})

	tb := newTab(t)
	tb.open(base + "/#/books")
	tb.waitText("note", "", openNote)
	tb.get("region", "Add a book")
	tb.get("textbox", "Find a member")
	requireAbsent(tb, "button", "Sign in", "link", "My account")
	tb.get("navigation", "Main").get("link", "Operations").click()
	tb.get("heading", "Operations")
	tb.waitText("note", "", openNote)
	tb.get("textbox", "Find a member").fill("carol")
	tb.press(kb.Enter)
	tb.get("heading", "Member carol")
	tb.waitText("note", "", openNote)
}

// An operator signs in and watches the background work: the page asks /status with the
// operator's own token, and sends Retry parked with it, so there is no admin token to type.
func TestOperatorSeesOperations(t *testing.T) {
	t.Parallel()
	p := apitest.StartProvider(t)
	// The loan's email waits a millisecond for its member's address, then is parked.
	base := startService(t, apitest.WithSignIn(app.Config{WebUI: true, EmailAddressWait: time.Millisecond}, p))
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPost, base+"/books", map[string]string{"id": "dune", "title": "Dune", "author": "Frank Herbert"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-1", "memberId": "nobody"}, http.StatusCreated)

	tb := newTab(t)
	tb.open(base + "/#/operations")
	tb.get("heading", "Operations")
	requireAbsent(tb, "table", "Background work")
	signIn(tb, "oscar")
	tb.row("Replicas", base, "State", "up")
	tb.row("Background work", "notifications", "Parked", "1")
	tb.row("Background work", "notifications", "Last error", parkedForAnAddress)
	requireAccessible(tb, "Operations, an event parked")
	requireAbsent(tb, "textbox", "Admin token", "textbox", "Find a member")
	tb.get("button", "Retry parked notifications").click()
	tb.get("status", "Admin action").waitText("1 parked event of notifications sent back to be handled")
}
