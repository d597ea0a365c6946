package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/catalog"
	"library/internal/catalog/catalogpg"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// The catalog's contract, run on both catalogs: pages in id order, and the status and search
// filters, with the same answers from each.

// catalogKinds make a fresh, empty catalog of each kind.
var catalogKinds = []struct {
	name string
	new  func(t *testing.T) writable
}{
	{"memory", func(t *testing.T) writable { return memoryCatalog(t) }},
	{"postgres", func(t *testing.T) writable {
		pool := pgtest.NewPool(t)
		checkpoints := pgdriver.NewCheckpoints(pool)
		return answering(t, catalogpg.New(pool, checkpoints), checkpoints)
	}},
}

// memoryCatalog is an empty catalog in memory.
func memoryCatalog(t testing.TB) writable {
	checkpoints := memdriver.NewCheckpoints(nil)
	return answering(t, catalog.NewMemory(checkpoints), checkpoints)
}

// writable is a catalog with the read model of the build that answers, which the tests hand
// events to as the catalog's processor would.
type writable struct {
	catalog.Catalog
	processor.ViewModel
}

// answering is c with the read model of its build that answers.
func answering(t testing.TB, c catalog.Catalog, builds processor.Builds) writable {
	t.Helper()
	_, vm := drivertest.Answering(t, builds, catalog.Name, c)
	return writable{Catalog: c, ViewModel: vm}
}

// forEachCatalog runs test, in parallel, on a fresh catalog of each kind.
func forEachCatalog(t *testing.T, test func(t *testing.T, c writable)) {
	t.Helper()
	for _, kind := range catalogKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			test(t, kind.new(t))
		})
	}
}

// testingT is what the helpers below need of a test: a *testing.T or a *rapid.T.
type testingT interface {
	require.TestingT
	Helper()
}

// shelf is a batch of book events to apply to a catalog, numbered after what it has read.
type shelf struct {
	events   []eventstore.Event
	versions map[string]int64
}

func newShelf() *shelf { return &shelf{versions: map[string]int64{}} }

func (s *shelf) record(t testingT, id string, e books.Event) {
	t.Helper()
	data, err := json.Marshal(e)
	require.NoError(t, err)
	s.versions[id]++
	s.events = append(s.events, eventstore.Event{StreamID: "book-" + id, Version: s.versions[id], Type: e.EventType(), Data: data})
}

func (s *shelf) add(t testingT, id, title, author string) {
	t.Helper()
	s.record(t, id, books.BookAdded{ID: id, Title: title, Author: author})
}

func (s *shelf) lend(t testingT, id string) {
	t.Helper()
	s.record(t, id, books.BookLent{LoanID: "loan-" + id, MemberID: "m1", LentAt: nowUTC, DueAt: nowUTC.Add(loanPeriod)})
}

func (s *shelf) giveBack(t testingT, id string) {
	t.Helper()
	s.record(t, id, books.BookReturned{LoanID: "loan-" + id, MemberID: "m1", ReturnedAt: nowUTC.Add(time.Hour)})
}

// hold puts the book on the hold shelf for member.
func (s *shelf) hold(t testingT, id, member string) {
	t.Helper()
	s.record(t, id, books.BookHeld{MemberID: member, Until: nowUTC.Add(72 * time.Hour)})
}

func (s *shelf) cancelHold(t testingT, id, member string) {
	t.Helper()
	s.record(t, id, books.HoldCancelled{MemberID: member})
}

// applyTo hands the shelf's events to the catalog as one batch after the last event it read.
func (s *shelf) applyTo(t testingT, c writable) {
	t.Helper()
	if len(s.events) == 0 {
		return // a checkpoint only moves forward
	}
	ctx := context.Background()
	from, err := c.Position(ctx)
	require.NoError(t, err)
	to := from
	for i := range s.events {
		to.Checkpoint.Position++
		to.Checkpoint.TransactionID = uint64(to.Checkpoint.Position)
		s.events[i].Position, s.events[i].TransactionID = to.Checkpoint.Position, to.Checkpoint.TransactionID
	}
	require.NoError(t, c.Apply(ctx, from, to, s.events))
	s.events = nil
}

// pages reads every page of a filter, following each page's Next, and checks what every
// reader of pages relies on: only the last page has no Next, no page is empty but a first
// page with nothing to show, and no page is longer than the limit.
func pages(t testingT, c catalog.Catalog, f catalog.Filter) [][]catalog.Book {
	t.Helper()
	limit := f.Limit
	if limit == 0 {
		limit = catalog.DefaultPageSize
	}
	var out [][]catalog.Book
	for {
		page, _, err := c.List(context.Background(), f)
		require.NoError(t, err)
		require.LessOrEqual(t, len(page.Books), limit)
		if len(out) > 0 {
			require.NotEmpty(t, page.Books, "a page after a next is never empty")
		}
		out = append(out, page.Books)
		next := page.Next()
		if next == "" {
			return out
		}
		require.Len(t, page.Books, limit, "only the last page is short")
		following, err := catalog.ParseFilter(f.Status, "", "", next)
		require.NoError(t, err, "a next is a valid after")
		f.After = following.After
		require.Less(t, len(out), 10_000, "paging does not end")
	}
}

// pagedIDs reads every page of a filter and returns the ids in the order read.
func pagedIDs(t testingT, c catalog.Catalog, f catalog.Filter) []string {
	t.Helper()
	var ids []string
	for _, page := range pages(t, c, f) {
		for _, b := range page {
			ids = append(ids, b.ID)
		}
	}
	return ids
}

// Paging through every book, with any limit, visits each book once, in id order (byte by
// byte: digits, then capitals, then small letters), whatever order they were added in.
func TestCatalogPagesVisitEveryBookOnce(t *testing.T) {
	t.Parallel()
	var ids []string
	for i := range 50 {
		ids = append(ids, fmt.Sprintf("b%03d", i))
	}
	ids = append(ids, "0", "9z", "A", "Z-1", "Z.1", "Z:1", "Z@1", "Z+1", "a", "ab", "b", "b-", "zz")
	order := slices.Clone(ids)
	rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	want := slices.Clone(ids)
	slices.Sort(want)

	forEachCatalog(t, func(t *testing.T, c writable) {
		s := newShelf()
		for _, id := range order {
			s.add(t, id, "Title "+id, "Author")
		}
		s.applyTo(t, c)
		for _, limit := range []int{1, 2, 3, 7, len(ids) - 1, len(ids), len(ids) + 1, 100, catalog.MaxPageSize} {
			require.Equal(t, want, pagedIDs(t, c, catalog.Filter{Limit: limit}), "limit %d", limit)
		}
		first, _, err := c.List(context.Background(), catalog.Filter{})
		require.NoError(t, err)
		require.Len(t, first.Books, len(ids), "100 books by default, here all of them")
		require.False(t, first.More)

		// A page that ends at the last book says so: no next, so no empty page follows.
		last, _, err := c.List(context.Background(), catalog.Filter{Limit: 3, After: want[len(want)-4]})
		require.NoError(t, err)
		require.Len(t, last.Books, 3)
		require.Empty(t, last.Next())
		// After the last book there is nothing.
		after, _, err := c.List(context.Background(), catalog.Filter{Limit: 3, After: want[len(want)-1]})
		require.NoError(t, err)
		require.Empty(t, after.Books)
		require.NotNil(t, after.Books, "an empty page is an empty list, not null")
	})
}

// Each page starts right after the last book of the page before: never with that book again,
// never past the book after it.
func TestCatalogNextPageStartsAfterTheLastBook(t *testing.T) {
	t.Parallel()
	forEachCatalog(t, func(t *testing.T, c writable) {
		s := newShelf()
		for _, id := range []string{"a", "b", "c", "d", "e"} {
			s.add(t, id, "Title "+id, "Author")
		}
		s.applyTo(t, c)
		var got [][]string
		for _, page := range pages(t, c, catalog.Filter{Limit: 2}) {
			var ids []string
			for _, b := range page {
				ids = append(ids, b.ID)
			}
			got = append(got, ids)
		}
		require.Equal(t, [][]string{{"a", "b"}, {"c", "d"}, {"e"}}, got)
	})
}

// An empty catalog has one empty page.
func TestCatalogEmpty(t *testing.T) {
	t.Parallel()
	forEachCatalog(t, func(t *testing.T, c writable) {
		require.Equal(t, [][]catalog.Book{{}}, pages(t, c, catalog.Filter{Limit: 5}))
		require.Equal(t, [][]catalog.Book{{}}, pages(t, c, catalog.Filter{Limit: 5, Status: "lent", Words: []string{"x"}}))
	})
}

// A filter that no request could make is refused, not half applied.
func TestCatalogRefusesBadFilters(t *testing.T) {
	t.Parallel()
	forEachCatalog(t, func(t *testing.T, c writable) {
		for _, f := range []catalog.Filter{
			{Status: "gone"},
			{Limit: -1},
			{Limit: catalog.MaxPageSize + 1},
			{Words: make([]string, catalog.MaxSearchWords+1)},
		} {
			_, _, err := c.List(context.Background(), f)
			require.Error(t, err, "%+v", f)
		}
	})
}

// A book added again, under a new title, is on the shelf under it: alone in its batch, beside
// new books, or twice in one batch, on both catalogs.
func TestCatalogAddsABookAgain(t *testing.T) {
	t.Parallel()
	forEachCatalog(t, func(t *testing.T, c writable) {
		ctx := context.Background()
		due := nowUTC.Add(loanPeriod)
		require.NoError(t, c.Apply(ctx, processor.Position{}, at(2, 0), []eventstore.Event{
			recorded(t, "book-b1", 1, 1, added),
			recorded(t, "book-b1", 2, 2, books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: nowUTC, DueAt: due}),
		}))
		require.NoError(t, c.Apply(ctx, at(2, 0), at(4, 0), []eventstore.Event{
			recorded(t, "book-b2", 1, 3, books.BookAdded{ID: "b2", Title: "Emma", Author: "Jane Austen"}),
			recorded(t, "book-b1", 3, 4, books.BookAdded{ID: "b1", Title: "Dune Messiah", Author: "Frank Herbert"}),
		}))
		require.NoError(t, c.Apply(ctx, at(4, 0), at(7, 0), []eventstore.Event{
			recorded(t, "book-b3", 1, 5, books.BookAdded{ID: "b3", Title: "Ulysses", Author: "James Joyce"}),
			recorded(t, "book-b3", 2, 6, books.BookAdded{ID: "b3", Title: "Dubliners", Author: "James Joyce"}),
			recorded(t, "book-b2", 2, 7, books.BookLent{LoanID: "l2", MemberID: "m2", LentAt: nowUTC, DueAt: due}),
		}))
		page, pos, err := c.List(ctx, catalog.Filter{})
		require.NoError(t, err)
		require.Equal(t, at(7, 0), pos)
		require.Equal(t, []catalog.Book{
			{ID: "b1", Title: "Dune Messiah", Author: "Frank Herbert", Status: "available", Version: 3},
			{ID: "b2", Title: "Emma", Author: "Jane Austen", Status: "lent", Version: 2,
				Loan: &books.Loan{LoanID: "l2", MemberID: "m2", LentAt: nowUTC, DueAt: due}},
			{ID: "b3", Title: "Dubliners", Author: "James Joyce", Status: "available", Version: 2},
		}, page.Books)
	})
}
