package web_test

// What a new user tripped over, each seen as they saw it: a member finder left marked invalid
// once emptied, "Lent , due" in a copy's status, a field of "Add a book" out of line with the
// others, and a librarian's My account that read her own account as a member's.

import (
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp/kb"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// requireNotMarkedInvalid fails unless the field e is neither :user-invalid nor drawn with the
// red border of one; what says when.
func requireNotMarkedInvalid(t *testing.T, e *element, what string) {
	t.Helper()
	if state := invalidState(t, e); state != `[false,false]` {
		t.Fatalf("%s is marked invalid %s ([:user-invalid, red border] %s)", e, what, state)
	}
}

// invalidState is [:user-invalid, red border] of the field e, as JSON.
func invalidState(t *testing.T, e *element) string {
	t.Helper()
	state, err := e.call(`function() {
		const red = getComputedStyle(document.documentElement).getPropertyValue("--red").trim();
		const probe = document.createElement("span");
		probe.style.color = red;
		document.body.append(probe);
		const redColour = getComputedStyle(probe).color;
		probe.remove();
		return JSON.stringify([this.matches(":user-invalid"), getComputedStyle(this).borderTopColor === redColour]);
	}`)
	if err != nil {
		t.Fatalf("read %s: %v", e, err)
	}
	return state
}

// The member finder marks an id that breaks the rule as it is typed, and nothing else: not the
// field emptied by hand, nor the field the finder empties once it has opened a member.
func TestMemberFinderEmptiedIsNotMarkedInvalid(t *testing.T) {
	t.Parallel()
	base := startService(t, app.Config{WebUI: true})

	tb := newTab(t)
	tb.open(base + "/#/books")
	finder := tb.get("textbox", "Find a member")
	finder.fill("bob")
	tb.press(kb.Enter)
	tb.get("heading", "Member bob")
	if value, err := finder.call(`function() { return this.value; }`); err != nil || value != "" {
		t.Fatalf("the finder holds %q (%v) after opening a member, want it empty", value, err)
	}
	requireNotMarkedInvalid(t, finder, "after opening a member")

	finder.fill("not an id!")
	tb.press(kb.Tab)
	if state := invalidState(t, finder); state != `[true,true]` {
		t.Fatalf("an id that breaks the rule is not marked invalid: [:user-invalid, red border] %s", state)
	}
	finder.fill("")
	tb.press(kb.Tab)
	requireNotMarkedInvalid(t, finder, "once emptied by hand")
	finder.fill("")
	tb.press(kb.Enter) // an empty finder opens nothing, and is not an error either
	tb.get("heading", "Member bob")
	requireNotMarkedInvalid(t, finder, "after Enter in the empty finder")
}

// The status of a lent copy reads as one phrase, to the eye and to a screen reader: "Lent
// until …", with no comma standing apart after the tag ("Lent , due"), on the title's page for
// someone signed out (no borrower shown), a member (their own loan) and a librarian (the
// borrower), and on the librarian's list of every copy.
func TestCopyStatusSaysLentInOnePhrase(t *testing.T) {
	t.Parallel()
	base, p := signedInService(t)
	libby := p.Bearer(t, "libby")
	mustCallAs(t, libby, http.MethodPost, base+"/books", map[string]string{"id": "dune", "title": "Dune", "author": "Frank Herbert"}, http.StatusCreated)
	mustCallAs(t, libby, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-dune", "memberId": "alice"}, http.StatusCreated)
	var book struct {
		TitleID string
		Loan    struct{ DueAt string }
	}
	if err := json.Unmarshal(mustCallAs(t, libby, http.MethodGet, base+"/books/dune", nil, http.StatusOK), &book); err != nil || book.TitleID == "" {
		t.Fatalf("the book dune: %+v (%v), want a copy of a title", book, err)
	}

	tb := newTab(t)
	tb.open(base + "/#/titles/" + book.TitleID)
	due := dayText(tb, book.Loan.DueAt)
	requireStatusCell(tb, "dune", "Lent until "+due)
	signIn(tb, "alice")
	requireStatusCell(tb, "dune", "Lent to you until "+due)
	desk := newTab(t)
	desk.open(base + "/#/titles/" + book.TitleID)
	signIn(desk, "libby")
	requireStatusCell(desk, "dune", "Lent to alice until "+due)
	desk.goTo("#/books")
	desk.get("link", "Every copy, and who has it").click()
	desk.get("heading", "Copies")
	requireStatusCell(desk, "Dune", "Lent to alice until "+due)
}

// requireStatusCell waits until the Status of the lent copy in the table of copies (its row
// named key) says want, both on the screen (its text) and to a screen reader (its accessible
// name, where Chrome puts a space between the tag and what follows it: "Lent , due" was read so).
func requireStatusCell(tb *tab, key, want string) {
	tb.t.Helper()
	tb.row("Copies", key, "Status", "Lent")
	var name, text string
	for deadline := time.Now().Add(waitTimeout); ; time.Sleep(pollInterval) { // polling the page, bounded by the deadline
		name, text = lentCell(tb)
		if name == want && text == want {
			return
		}
		if time.Now().After(deadline) {
			tb.t.Fatalf("the Status of the lent copy reads %q to a screen reader and %q on the screen, want %q for both", name, text, want)
		}
	}
}

// lentCell is the accessible name and the text of the cell that says a copy is lent.
func lentCell(tb *tab) (name, text string) {
	cells, err := tb.queryAX(0, "cell", "")
	if err != nil {
		return "", ""
	}
	for _, c := range cells {
		if strings.HasPrefix(c.name, "Lent") {
			text, _ = c.call(`function() { return this.innerText; }`)
			return c.name, text
		}
	}
	return "", ""
}

// dayText is an RFC 3339 time as the page shows a day.
func dayText(tb *tab, iso string) string {
	tb.t.Helper()
	text, err := tb.eval(`new Intl.DateTimeFormat(undefined, { dateStyle: "medium" }).format(new Date(` + jsString(iso) + `))`)
	if err != nil {
		tb.t.Fatalf("format %s: %v", iso, err)
	}
	return text
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// The fields of "Add a book" sit in one line: the Id field's hint under it does not lift it
// above Title and Author, and the Add book button is level with them.
func TestAddBookFieldsLineUp(t *testing.T) {
	t.Parallel()
	base := startService(t, app.Config{WebUI: true})

	tb := newTab(t)
	tb.open(base + "/#/books")
	add := tb.get("region", "Add a book")
	tops := map[string]float64{}
	for _, e := range []*element{add.get("textbox", "Id"), add.get("textbox", "Title"), add.get("textbox", "Author"), add.get("button", "Add book")} {
		top, err := e.call(`function() { const r = this.getBoundingClientRect(); return String(r.top + r.height / 2); }`)
		if err != nil {
			t.Fatal(err)
		}
		var y float64
		if err := json.Unmarshal([]byte(top), &y); err != nil {
			t.Fatalf("the middle of %s: %q", e, top)
		}
		tops[e.String()] = y
	}
	for name, y := range tops {
		if math.Abs(y-tops[`textbox "Title"`]) > 2 {
			t.Fatalf("the middles of the fields of Add a book are not level: %v (%s is off)", tops, name)
		}
	}
}

// A librarian is offered no My account: her work is other members' accounts. The page at
// #/account tells her so, and reads, opens and shows no account of hers.
func TestLibrarianHasNoMyAccount(t *testing.T) {
	t.Parallel()
	p := apitest.StartProvider(t)
	databaseURL := pgtest.NewDatabase(t)
	db := pgtest.Connect(t, databaseURL)
	base := startService(t, apitest.WithSignIn(app.Config{WebUI: true, DatabaseURL: databaseURL}, p))

	tb := newTab(t)
	tb.open(base + "/#/books")
	signIn(tb, "libby")
	tb.get("navigation", "Main").get("link", "Overdue")
	requireAbsent(tb, "link", "My account")
	opened := countEvents(t, db, "account-libby", "AccountOpened")
	reads := interceptRequests(tb, "*/accounts/libby*", func(int, intercepted) verdict { return verdict{} })
	tb.goTo("#/account")
	tb.get("heading", "My account")
	tb.waitText("main", "", "You are signed in as a librarian, and My account is for members")
	requireAbsent(tb, "region", "Account", "region", "Pay", "region", "My loans", "table", "History")
	requireAccessible(tb, "My account, for a librarian")
	tb.goTo("#/books") // a page read after #/account: its requests, had #/account sent any, came first
	tb.get("heading", "Catalog")
	if n := len(reads.requests()); n != 0 {
		t.Fatalf("My account sent %d requests for the librarian's own account: %+v", n, reads.requests())
	}
	if n := countEvents(t, db, "account-libby", "AccountOpened"); n != opened {
		t.Fatalf("the librarian's account was opened by My account: %d AccountOpened, %d before", n, opened)
	}
	t.Logf("AccountOpened events of the librarian after her sign-in: %d", opened)
}
