package web_test

// The catalog lists titles (GET /titles): a row per title however many copies it has, with
// how many are on the shelf and how many members wait, in words; its search finds a title by
// a word or by its ISBN, and its filter keeps the titles on the shelf. It reads its own writes:
// after a lend, it shows the copy out at once, on whichever replica answers, because the page
// passes the lend's position as minPosition. While the build of the catalog that keeps titles
// is not ready (an upgrade), the page says the catalog is being rebuilt, and shows it once it
// is.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"library/internal/app"
	"library/internal/catalog"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// holdLease takes the named processor's lease (its advisory lock) in the database, so that no
// replica runs the processor until release is called (or the test ends).
func holdLease(t *testing.T, databaseURL, name string) (release func()) {
	t.Helper()
	conn, err := pgtest.Connect(t, databaseURL).Acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(context.Background(), `SELECT pg_advisory_lock($1)`, pgdriver.LockKey(name)); err != nil {
		t.Fatal(err)
	}
	released := false
	release = func() {
		if !released {
			released = true
			_, _ = conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, pgdriver.LockKey(name))
			conn.Release()
		}
	}
	t.Cleanup(release)
	return release
}

// titlesBuild is the build of the catalog that keeps titles on a fresh database: the
// migrations make its first build, of a version before titles, and this release builds its
// own beside it, the second, which takes over once it has caught up.
const titlesBuild = catalog.Name + "@2"

// addTitle adds a title through the API at base (sign-in off) with copies, each "id|barcode".
func addTitle(t *testing.T, base string, title map[string]any, copies ...string) {
	t.Helper()
	mustCall(t, http.MethodPost, base+"/titles", title, http.StatusCreated)
	for _, c := range copies {
		f := strings.Split(c, "|")
		mustCall(t, http.MethodPost, base+"/titles/"+title["id"].(string)+"/copies", map[string]string{"id": f[0], "barcode": f[1]}, http.StatusCreated)
	}
}

// requireTitles waits until the table named tableName lists the titles want, in that order.
func requireTitles(tb *tab, tableName string, want ...string) {
	tb.t.Helper()
	tb.waitFor(fmt.Sprintf("table %q to list %q", tableName, want), func() bool {
		tables, err := tb.queryAX(0, "table", tableName)
		if err != nil || len(tables) != 1 {
			return false
		}
		_, rows, err := tables[0].table()
		if err != nil {
			return false
		}
		var got []string
		for _, r := range rows {
			got = append(got, r["Title"])
		}
		return slices.Equal(got, want)
	})
}

// Dune has three copies, one of them lent; Emma has one, lent, and two members wait for it.
// The catalog lists two rows, one per title, each saying in words what is on the shelf and who
// waits. A search by a word of a subject, and by the ISBN written with hyphens, finds Dune; a
// search by the author finds Emma; "Only titles on the shelf" leaves Emma out; each is an
// address of its own. Emma's link opens its page, which counts as the row did.
func TestCatalogListsTitlesWithTheirCopies(t *testing.T) {
	t.Parallel()
	base := startService(t, app.Config{WebUI: true})
	addTitle(t, base, map[string]any{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"},
		"isbn": "0-441-01359-7", "subjects": []string{"Science fiction", "Deserts"}},
		"dune-1|31234000000011", "dune-2|31234000000029", "dune-3|31234000000037")
	addTitle(t, base, map[string]any{"id": "emma", "title": "Emma", "authors": []string{"Jane Austen"}}, "emma-1|31234000000045")
	for _, m := range []string{"ann", "bob", "carol"} {
		mustCall(t, http.MethodPut, base+"/accounts/"+m, map[string]any{"name": m}, http.StatusCreated)
	}
	mustCall(t, http.MethodPost, base+"/books/dune-2/loans", map[string]string{"loanId": "loan-dune-2", "memberId": "ann"}, http.StatusCreated)
	mustCall(t, http.MethodPost, base+"/books/emma-1/loans", map[string]string{"loanId": "loan-emma-1", "memberId": "ann"}, http.StatusCreated)
	for _, m := range []string{"bob", "carol"} {
		if status, b := callAPI(t, http.MethodPost, base+"/titles/emma/holds", map[string]string{"memberId": m}, "Idempotency-Key", m+"-waits-for-emma"); status != http.StatusCreated {
			t.Fatalf("%s's hold on Emma: %d %s", m, status, b)
		}
	}

	tb := newTab(t)
	tb.open(base + "/#/books")
	dune := tb.row("Titles", "Dune", "Copies", "2 of 3 on the shelf")
	emma := tb.row("Titles", "Emma", "Holds", "2 waiting")
	requireTitles(tb, "Titles", "Dune", "Emma")
	if dune["Authors"] != "Frank Herbert" || dune["Holds"] != "No one waiting" {
		t.Fatalf("Dune's row says %+v", dune)
	}
	if emma["Authors"] != "Jane Austen" || emma["Copies"] != "None on the shelf" {
		t.Fatalf("Emma's row says %+v", emma)
	}
	requireAccessible(tb, "the catalog of titles")

	search := func(q string, onTheShelf bool) {
		t.Helper()
		form := tb.get("search", "Titles")
		form.get("searchbox", "Title, author, subject or ISBN").fill(q)
		box := form.get("checkbox", "Only titles on the shelf")
		if checked, err := box.call(`function() { return String(this.checked); }`); err != nil || (checked == "true") != onTheShelf {
			box.click()
		}
		form.get("button", "Search").click()
	}
	for _, s := range []struct{ q, hash, want string }{
		{"deserts", "#/books?q=deserts", "Dune"},
		{"0-441-01359-7", "#/books?q=0-441-01359-7", "Dune"},
		{"austen", "#/books?q=austen", "Emma"},
	} {
		search(s.q, false)
		requireTitles(tb, "Titles found", s.want)
		if loc, err := tb.eval(`location.hash`); err != nil || loc != s.hash {
			t.Fatalf("the search for %q is at %q (%v), want %s", s.q, loc, err, s.hash)
		}
	}
	search("", true)
	requireTitles(tb, "Titles found", "Dune")
	if loc, err := tb.eval(`location.hash`); err != nil || loc != "#/books?available=true" {
		t.Fatalf("the filter is at %q (%v), want #/books?available=true", loc, err)
	}
	if checked, err := tb.get("checkbox", "Only titles on the shelf").call(`function() { return String(this.checked); }`); err != nil || checked != "true" {
		t.Fatalf("the filter's box is not ticked on its own page (%q, %v)", checked, err)
	}
	search("austen", true)
	tb.waitText("table", "Titles found", "No title matches.")
	requireAccessible(tb, "the catalog, nothing found")

	search("", false)
	requireTitles(tb, "Titles", "Dune", "Emma")
	tb.get("table", "Titles").get("link", "Emma").click()
	tb.get("heading", "Emma")
	tb.waitText("region", "Copies", "0 of 1 on the shelf, 2 waiting.")
}

// Two replicas, a and b, share one database behind a load balancer that sends writes to a and
// reads to b. The catalog (the view model behind GET /titles) is held still, as a catalog that
// lags behind the log would be: a first replica builds it and stops, and the test holds its
// lease, so neither a nor b runs it. The page lends a copy through a, then shows the catalog,
// read from b. Without minPosition b would answer at once from a catalog that has not seen the
// loan. With it, b waits, answers 503 NotCaughtUp, and the page says it is catching up with
// the change and tries again; once the catalog runs again (the test lets go of its lease) it
// shows the copy out: the page never shows a catalog older than its own write.
func TestLendShowsInTheCatalogAtOnce(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	first, stop := apitest.RunService(t, fast(app.Config{DatabaseURL: databaseURL, ReplicaID: "first", WebUI: true}))
	addBooks(t, first, "dune|Dune|Frank Herbert", "emma|Emma|Jane Austen", "middlemarch|Middlemarch|George Eliot",
		"beloved|Beloved|Toni Morrison", "ulysses|Ulysses|James Joyce")
	mustCall(t, http.MethodPost, first+"/books/emma/loans", map[string]string{"loanId": "loan-emma", "memberId": "bob"}, http.StatusCreated)
	apitest.Rebuilt(t, &apitest.API{Base: first}, catalog.Name, titlesBuild)
	stop()
	release := holdLease(t, databaseURL, titlesBuild)
	a := startService(t, fast(app.Config{DatabaseURL: databaseURL, ReplicaID: "a", WebUI: true}))
	b := startService(t, fast(app.Config{DatabaseURL: databaseURL, ReplicaID: "b", WebUI: true, Tuning: app.Tuning{CatalogWait: 300 * time.Millisecond}}))
	lb := newBalancer(t, a, b)

	tb := newTab(t)
	tb.open(lb.URL + "/#/books/dune")
	tb.get("heading", "Dune")
	lend := tb.get("region", "Lend this book")
	lend.get("textbox", "Member id").fill("alice")
	lend.get("button", "Lend").click()
	tb.get("status", "").waitText("Lent “Dune” to alice")
	tb.waitText("region", "This book", "Lent to\nalice")
	screenshot(tb, "book")
	loans := lb.exchanges(http.MethodPost, "/books/dune/loans")
	if len(loans) != 1 || loans[0].Backend != a || loans[0].Status != http.StatusCreated {
		t.Fatalf("the lend went %+v, want once to replica a, 201", loans)
	}

	tb.get("navigation", "Main").get("link", "Catalog").click()
	tb.waitFor("b to answer the catalog's read with 503, for the catalog is held still", func() bool {
		for _, e := range lb.exchanges(http.MethodGet, "/titles?") {
			if e.Status == http.StatusServiceUnavailable {
				return true
			}
		}
		return false
	})
	tb.waitText("status", "Catalog", "The catalog is catching up with your last change")
	release()
	tb.row("Titles", "Dune", "Copies", "None on the shelf")
	tb.row("Titles", "Emma", "Copies", "None on the shelf")
	tb.row("Titles", "Ulysses", "Copies", "1 of 1 on the shelf")
	requireAbsent(tb, "alert", "")

	// Every read of the catalog asked for the lend's position, and went to b.
	var lent int64
	err := pgtest.Connect(t, databaseURL).QueryRow(context.Background(),
		`SELECT position FROM events WHERE stream_id = 'book-dune' AND type = 'BookLent'`).Scan(&lent)
	if err != nil {
		t.Fatal(err)
	}
	reads := lb.exchanges(http.MethodGet, "/titles?")
	for _, e := range reads {
		u, err := url.Parse(e.URI)
		if err != nil {
			t.Fatal(err)
		}
		if got := u.Query().Get("minPosition"); got != fmt.Sprint(lent) || e.Backend != b {
			t.Fatalf("a read of the catalog went to %s with minPosition=%q, want b with the lend's position %d", e.Backend, got, lent)
		}
	}
	if last := reads[len(reads)-1]; last.Status != http.StatusOK {
		t.Fatalf("the last read of the catalog was answered %d", last.Status)
	}
	screenshot(tb, "catalog")
}

// An upgrade from a release whose catalog keeps no titles: until this release's build of the
// catalog has caught up and takes over (the test holds its lease, so it does not), GET /titles
// answers 503 NotCaughtUp with Retry-After. The page says the catalog is being rebuilt, and
// asks again after each Retry-After, for as long as it takes, never giving up with an error;
// once the build takes over, it lists the titles.
func TestCatalogBeingRebuiltIsSaidAndWaitedFor(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	release := holdLease(t, databaseURL, titlesBuild)
	api := startService(t, fast(app.Config{DatabaseURL: databaseURL, WebUI: true}))
	addBooks(t, api, "dune|Dune|Frank Herbert")
	lb := newBalancer(t, api, api)

	tb := newTab(t)
	tb.open(lb.URL + "/#/books")
	tb.waitText("status", "Catalog", "The catalog is being rebuilt, and shows here once it is ready.")
	requireAccessible(tb, "the catalog being rebuilt")
	const answers = 7 // more than a read that is not waited for is sent: it never gives up
	var refused []exchange
	tb.waitFor(fmt.Sprintf("%d reads of the catalog answered 503", answers), func() bool {
		refused = lb.exchanges(http.MethodGet, "/titles?")
		return len(refused) >= answers
	})
	for i, e := range refused {
		if e.Status != http.StatusServiceUnavailable {
			t.Fatalf("read %d of the catalog was answered %d while its titles are being built", i+1, e.Status)
		}
		if i > 0 && e.At.Sub(refused[i-1].At) < 900*time.Millisecond {
			t.Fatalf("read %d of the catalog came %s after the one before, which was told Retry-After: 1", i+1, e.At.Sub(refused[i-1].At))
		}
	}
	requireAbsent(tb, "alert", "")
	release()
	tb.row("Titles", "Dune", "Copies", "1 of 1 on the shelf")
	tb.waitFor("the rebuild's words to go", func() bool { return !strings.Contains(tb.pageText(), "being rebuilt") })
}

// The catalog a page at a time: the first page and a "Next page" link while the service gives a
// cursor; a search by a word of the author; each as a fragment URL, so Back works.
func TestCatalogPagesAndSearch(t *testing.T) {
	t.Parallel()
	api := startService(t, app.Config{WebUI: true})
	var books []string
	for i := 1; i <= 27; i++ {
		books = append(books, fmt.Sprintf("book-%02d|Book %02d|A. Writer", i, i))
	}
	addBooks(t, api, append(books, "emma|Emma|Jane Austen")...)

	tb := newTab(t)
	tb.open(api + "/#/books")
	tb.row("Titles", "Book 25", "Authors", "A. Writer")
	if first, err := tb.queryAX(0, "link", "First page"); err != nil || len(first) != 0 {
		t.Fatalf("the first page has a First page link (%v)", err)
	}
	tb.waitText("navigation", "Pages of titles", "25 titles on this page.")
	tb.get("navigation", "Pages of titles").get("link", "Next page").click()
	requireTitles(tb, "Titles", "Book 26", "Book 27", "Emma")
	tb.get("navigation", "Pages of titles").get("link", "First page")
	if next, err := tb.queryAX(0, "link", "Next page"); err != nil || len(next) != 0 {
		t.Fatalf("the last page has a Next page link (%v)", err)
	}

	search := tb.get("search", "Titles")
	search.get("searchbox", "Title, author, subject or ISBN").fill("austen")
	search.get("button", "Search").click()
	requireTitles(tb, "Titles found", "Emma")
	if loc, err := tb.eval(`location.hash`); err != nil || loc != "#/books?q=austen" {
		t.Fatalf("the search's address is %q (%v), want #/books?q=austen", loc, err)
	}
}
