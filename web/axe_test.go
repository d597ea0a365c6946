package web_test

// Pages are checked with axe-core, the accessibility checker that browsers' developer tools and
// most test suites run: it is an npm package, pinned in testdata/npm (package.json and
// package-lock.json), installed with npm ci into the user's cache directory, one folder per
// lockfile, and reused from there. A test runs it in its tab's page, as the page is then, with
// axe's default rules (WCAG 2.x A and AA, and its best practices).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"library/internal/app"
	"library/internal/testkit/apitest"
)

// axeSource is axe-core's axe.min.js, installed once per test binary.
var axeSource = sync.OnceValues(installAxe)

func installAxe() (string, error) {
	if _, err := exec.LookPath("npm"); err != nil {
		return "", fmt.Errorf("npm is not installed: the browser tests check pages with axe-core, an npm package; apt-get install nodejs npm")
	}
	var files [][]byte
	sum := sha256.New()
	for _, name := range []string{"package.json", "package-lock.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "npm", name))
		if err != nil {
			return "", err
		}
		files = append(files, b)
		sum.Write(b)
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory to install axe-core in: %w", err)
	}
	parent := filepath.Join(cache, "library-web-npm")
	dir := filepath.Join(parent, hex.EncodeToString(sum.Sum(nil))[:16])
	script := filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
	if b, err := os.ReadFile(script); err == nil {
		return string(b), nil
	}
	// Installed into a folder of its own and moved into place when complete, so that a test
	// binary running alongside never reads a half-made one.
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, "install-")
	if err != nil {
		return "", err
	}
	defer func() { _ = os.RemoveAll(tmp) }() // gone once moved into place
	for i, name := range []string{"package.json", "package-lock.json"} {
		if err := os.WriteFile(filepath.Join(tmp, name), files[i], 0o644); err != nil {
			return "", err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("npm ci of web/testdata/npm: %w\n%s", err, out)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(script); statErr != nil {
			return "", err
		}
		// another test binary was first
	}
	b, err := os.ReadFile(script)
	return string(b), err
}

// axeRun runs axe on the page and answers its violations, each in a line people can act on.
const axeRun = `axe.run(document).then((r) => JSON.stringify(r.violations.map((v) =>
  v.id + " (" + v.impact + "): " + v.help + "\n    " +
  v.nodes.map((n) => n.target.join(" ") + ": " + String(n.failureSummary).replace(/\s+/g, " ")).join("\n    "))))`

// requireAccessible fails the test with every violation axe-core finds in the tab's page, as it
// is now; what names the page's state in the failure.
func requireAccessible(tb *tab, what string) {
	tb.t.Helper()
	src, err := axeSource()
	if err != nil {
		tb.t.Fatalf("axe-core: %v", err)
	}
	loaded, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](`typeof axe === "object"`))
	if err != nil {
		tb.t.Fatalf("axe-core on %s: %v", what, err)
	}
	if !loaded {
		if _, err := chromedp.Run(tb.ctx, chromedp.Evaluate[bool](src+"\n;true")); err != nil {
			tb.t.Fatalf("load axe-core into %s: %v", what, err)
		}
	}
	out, err := chromedp.Run(tb.ctx, chromedp.Evaluate[string](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		tb.t.Fatalf("run axe-core on %s: %v", what, err)
	}
	var violations []string
	if err := json.Unmarshal([]byte(out), &violations); err != nil {
		tb.t.Fatalf("axe-core's answer on %s: %v: %s", what, err, out)
	}
	if len(violations) > 0 {
		tb.t.Fatalf("axe-core finds %d violations on %s:\n  %s\nThe page shows:\n%s", len(violations), what,
			strings.Join(violations, "\n  "), tb.pageText())
	}
}

// accessiblePages are the app's pages as a librarian works with them, each with what shows it
// is drawn: its hash, and a role and name to wait for. Pages that need a person signed in (My
// account, for a member and for a librarian) are checked by the tests that sign in.
var accessiblePages = []struct{ hash, role, name string }{
	{"#/books", "table", "Titles"},
	{"#/books?q=kim&available=true", "table", "Titles found"},
	{"#/copies", "table", "Copies"},
	{"#/books/dune", "region", "Take it back"},
	{"#/books/emma", "region", "Lend this book"},
	{"#/books/kim", "region", "Lend this book"},
	{"#/books/ulysses", "region", "Take it back"},
	{"#/copies?status=held", "table", "Copies found"},
	{"#/members/bob", "table", "Loans"},
	{"#/members/nobody", "region", "Open the account"},
	{"#/overdue", "table", "Overdue loans"},
	{"#/holds", "table", "Books on the hold shelf"},
	{"#/operations", "table", "Background work"},
	{"#/circulation-rules", "table", "Circulation rules"},
	{"#/calendar?month=2026-12", "table", "December 2026"},
	{"#/no/such/page", "heading", "No such page"},
}

// Every page, with an overdue loan on it where it lists loans, and holds where it lists them
// (Kim on the hold shelf for bob, who waits for Ulysses too), circulation rules with cells set
// and left empty, and a month with days closed, has no violation axe-core finds.
func TestPagesAreAccessible(t *testing.T) {
	t.Parallel()
	clock := apitest.NewClock()
	base := startService(t, app.Config{WebUI: true, Tuning: app.Tuning{Now: clock.Now}})
	addBooks(t, base, "dune|Dune|Frank Herbert", "emma|Emma|Jane Austen", "kim|Kim|Rudyard Kipling", "ulysses|Ulysses|James Joyce")
	mustCall(t, http.MethodPut, base+"/accounts/bob", map[string]any{"name": "Bob Dylan"}, http.StatusCreated)
	mustCall(t, http.MethodPost, base+"/books/dune/loans", map[string]string{"loanId": "loan-dune", "memberId": "bob"}, http.StatusCreated)
	clock.Advance(20 * 24 * time.Hour)
	for _, book := range []string{"kim", "ulysses"} {
		mustCall(t, http.MethodPost, base+"/books/"+book+"/loans", map[string]string{"loanId": "loan-" + book, "memberId": "ann"}, http.StatusCreated)
		if status, b := callAPI(t, http.MethodPost, base+"/books/"+book+"/holds", map[string]string{"memberId": "bob"}, "Idempotency-Key", "bob-"+book); status != http.StatusCreated {
			t.Fatalf("bob's hold on %s: %d %s", book, status, b)
		}
	}
	mustCall(t, http.MethodPost, base+"/books/kim/returns", map[string]string{"loanId": "loan-kim"}, http.StatusCreated)
	waitForLoans(t, base+"/loans?overdue=true", "", func(loans []loanView) bool { return len(loans) == 1 })
	waitForHolds(t, base+"/accounts/bob/holds", "", func(holds []holdView) bool { return len(holds) == 2 && holds[0].Status == "ready" })
	putRules(t, base, "", 0, map[string]any{"group": "*", "materialType": "*", "loanPeriod": "21d"},
		map[string]any{"group": "staff", "materialType": "dvd", "renewals": 0, "fineCap": map[string]int{"amount": 500}, "lends": false})
	mustCall(t, http.MethodPut, base+"/calendar/weekly", map[string]any{"closed": []string{"sunday"}}, http.StatusCreated)
	mustCall(t, http.MethodPut, base+"/calendar/closed/2026-12-25", nil, http.StatusCreated)

	tb := newTab(t)
	for _, page := range accessiblePages {
		tb.open(base + "/" + page.hash)
		tb.get(page.role, page.name)
		switch page.hash {
		case "#/books":
			tb.row("Titles", "Kim", "Copies", "None on the shelf")
			tb.row("Titles", "Ulysses", "Holds", "1 waiting")
		case "#/copies?status=held":
			tb.row("Copies found", "Kim", "Status", "Held on the hold shelf")
		case "#/members/bob":
			tb.row("Loans", "Dune", "Due back", "Overdue by 6 days")
			tb.row("Holds", "Kim", "Status", "Ready for pickup")
			tb.row("Holds", "Ulysses", "Status", "First in line")
		case "#/books/kim":
			tb.waitText("region", "This book", "Held for\nbob")
			if v, err := tb.get("textbox", "Member id").call(`function() { return this.value; }`); err != nil || v != "bob" {
				t.Fatalf("the Lend form of a book held for bob holds %q (%v), want bob", v, err)
			}
		case "#/holds":
			tb.row("Books on the hold shelf", "Kim", "Member", "bob")
		case "#/circulation-rules":
			tb.get("textbox", "Loan period, staff / dvd").waitDescription("Empty, so 21d from * / *")
		case "#/calendar?month=2026-12":
			dayCell(tb, "December 2026", 25, "Closed")
		}
		requireAccessible(tb, page.hash)
	}
}
