package web_test

// The catalog reads its own writes: after a lend, the catalog shows the loan at once, on
// whichever replica answers, because the page passes the lend's position as minPosition.

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"library/internal/app"
	"library/internal/processor/pgdriver"
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

// Two replicas, a and b, share one database behind a load balancer that sends writes to a and
// reads to b. The catalog (the view model behind GET /books) is held still at first, as a
// catalog that lags behind the log would be: the test holds the lease of this release's build
// of it, catalog@2 (the migrations' first build, of version 1, is run by no replica of this
// release, and answers until catalog@2 takes over), so neither replica runs it. The page lends a book through a, then shows the catalog, read from b. Without minPosition
// b would answer at once from a catalog that has not seen the loan (nor even the book). With
// it, b waits, answers 503 NotCaughtUp, the page tries again, and once the catalog runs again
// (the test lets go of its lease after that first 503) it shows the loan: the page never shows
// a catalog older than its own write.
func TestLendShowsInTheCatalogAtOnce(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	release := holdLease(t, databaseURL, "catalog@2")
	a := startService(t, fast(app.Config{DatabaseURL: databaseURL, ReplicaID: "a", WebUI: true}))
	b := startService(t, fast(app.Config{DatabaseURL: databaseURL, ReplicaID: "b", WebUI: true, Tuning: app.Tuning{CatalogWait: 300 * time.Millisecond}}))
	lb := newBalancer(t, a, b)
	addBooks(t, a, "dune|Dune|Frank Herbert", "emma|Emma|Jane Austen", "middlemarch|Middlemarch|George Eliot",
		"beloved|Beloved|Toni Morrison", "ulysses|Ulysses|James Joyce")
	mustCall(t, http.MethodPost, a+"/books/emma/loans", map[string]string{"loanId": "loan-emma", "memberId": "bob"}, http.StatusCreated)

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
		for _, e := range lb.exchanges(http.MethodGet, "/books?") {
			if e.Status == http.StatusServiceUnavailable {
				return true
			}
		}
		return false
	})
	release()
	row := tb.row("Books", "Dune", "Status", "Lent to alice")
	if !strings.Contains(row["Status"], "until") {
		t.Fatalf("the catalog says %q of Dune, without the due date", row["Status"])
	}
	tb.row("Books", "Emma", "Status", "Lent to bob")
	tb.row("Books", "Ulysses", "Status", "On the shelf")

	// Every read of the catalog asked for the lend's position, and went to b.
	var lent int64
	err := pgtest.Connect(t, databaseURL).QueryRow(context.Background(),
		`SELECT position FROM events WHERE stream_id = 'book-dune' AND type = 'BookLent'`).Scan(&lent)
	if err != nil {
		t.Fatal(err)
	}
	reads := lb.exchanges(http.MethodGet, "/books?")
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
	tb.row("Books", "Book 25", "Author", "A. Writer")
	if first, err := tb.queryAX(0, "link", "First page"); err != nil || len(first) != 0 {
		t.Fatalf("the first page has a First page link (%v)", err)
	}
	tb.get("navigation", "Pages of books").get("link", "Next page").click()
	tb.row("Books", "Emma", "Author", "Jane Austen")
	tb.row("Books", "Book 27", "Author", "A. Writer")
	tb.get("navigation", "Pages of books").get("link", "First page")
	if next, err := tb.queryAX(0, "link", "Next page"); err != nil || len(next) != 0 {
		t.Fatalf("the last page has a Next page link (%v)", err)
	}

	search := tb.get("search", "Books")
	search.get("searchbox", "Title or author").fill("austen")
	search.get("button", "Search").click()
	tb.waitFor("the search to find Emma alone", func() bool {
		tables, err := tb.queryAX(0, "table", "Books found")
		if err != nil || len(tables) != 1 {
			return false
		}
		_, rows, err := tables[0].table()
		return err == nil && len(rows) == 1 && rows[0]["Title"] == "Emma"
	})
	if loc, err := tb.eval(`location.hash`); err != nil || loc != "#/books?q=austen" {
		t.Fatalf("the search's address is %q (%v), want #/books?q=austen", loc, err)
	}
}
