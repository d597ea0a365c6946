package catalog_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/catalog"
	"library/internal/catalog/catalogpg"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor/memdriver"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
	"library/internal/titles"
)

// The catalog's titles, from catalog.TitlesFrom, run on both catalogs: a title's row from its
// events, folded as the Title aggregate folds them; the order, the pages, the search by words
// and by ISBN, and available; and no titles to read from a build of version 1.

// titleKinds make a fresh, empty catalog of each kind, whose build that answers keeps titles.
var titleKinds = []struct {
	name string
	new  func(t *testing.T) writable
}{
	{"memory", func(t *testing.T) writable { return memoryCatalog(t) }},
	{"postgres", func(t *testing.T) writable {
		pool := pgtest.NewPool(t)
		checkpoints := pgdriver.NewCheckpoints(pool)
		// The migrations' build is of version 1, with no titles: this code's own replaces it.
		return emptied(t, catalogpg.New(pool, checkpoints), checkpoints)
	}},
}

// forEachTitles runs test, in parallel, on a fresh catalog of each kind that keeps titles.
func forEachTitles(t *testing.T, test func(t *testing.T, c writable)) {
	t.Helper()
	for _, kind := range titleKinds {
		t.Run(kind.name, func(t *testing.T) {
			t.Parallel()
			test(t, kind.new(t))
		})
	}
}

// title records a title event on the shelf, in the title's stream.
func (s *shelf) title(t testingT, id string, e titles.Event) {
	t.Helper()
	data, err := json.Marshal(e)
	require.NoError(t, err)
	stream := titles.Type().StreamID(id)
	s.versions[stream]++
	s.events = append(s.events, eventstore.Event{StreamID: stream, Version: s.versions[stream], Type: e.EventType(), Data: data})
}

// addTitle records a title with copies, all on the shelf.
func (s *shelf) addTitle(t testingT, added titles.TitleAdded, copies ...string) {
	t.Helper()
	s.title(t, added.ID, added)
	for _, c := range copies {
		s.title(t, added.ID, titles.CopyAdded{BookID: c})
	}
}

// listTitles is one page of titles, which it wants.
func listTitles(t testingT, c catalog.Catalog, f catalog.TitleFilter) catalog.TitlePage {
	t.Helper()
	page, _, err := c.Titles(context.Background(), f)
	require.NoError(t, err)
	return page
}

// A title's row: its record as its last TitleChanged left it, and its counts as the aggregate
// folds its copies and its queue; events of other streams, and markers of commands that
// changed nothing, change nothing.
func TestCatalogTitlesFromTheirEvents(t *testing.T) {
	t.Parallel()
	until := nowUTC.Add(72 * time.Hour)
	forEachTitles(t, func(t *testing.T, c writable) {
		s := newShelf()
		s.addTitle(t, titles.TitleAdded{ID: "dune", Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441013593",
			Year: 1965, Publisher: "Chilton Books", Language: "en", Subjects: []string{"Science fiction", "Deserts"}}, "d1", "d2", "d3")
		s.title(t, "dune", titles.CopyLent{BookID: "d1", MemberID: "m1"})
		s.title(t, "dune", titles.CopyLent{BookID: "d2", MemberID: "m2"})
		s.title(t, "dune", titles.HoldTrapped{MemberID: "m3", BookID: "d3", Until: until})
		s.title(t, "dune", titles.TitleHoldPlaced{TitleID: "dune", MemberID: "m4", PlacedAt: nowUTC})
		s.title(t, "dune", titles.TitleHoldPlaced{TitleID: "dune", MemberID: "m5", PlacedAt: nowUTC})
		s.addTitle(t, titles.TitleAdded{ID: "emma", Title: "Emma", Authors: []string{"Jane Austen"}, Year: 1815})
		s.events = append(s.events, eventstore.Event{StreamID: "title-emma", Version: 2, Type: "NothingChanged", Data: json.RawMessage(`{}`)})
		s.versions["title-emma"]++
		s.record(t, "d1", added) // a book's event: the book's, not the title's
		s.applyTo(t, c)

		dune := catalog.Title{ID: "dune", Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441013593", Year: 1965,
			Publisher: "Chilton Books", Language: "en", Subjects: []string{"Science fiction", "Deserts"},
			Counts: catalog.Counts{Total: 3, Available: 0, HoldsWaiting: 2}}
		emma := catalog.Title{ID: "emma", Title: "Emma", Authors: []string{"Jane Austen"}, Year: 1815}
		require.Equal(t, []catalog.Title{dune, emma}, listTitles(t, c, catalog.TitleFilter{}).Titles)

		s.title(t, "dune", titles.TitleHoldCancelled{MemberID: "m5"})
		s.title(t, "dune", titles.CopyShelved{BookID: "d1"})
		s.title(t, "dune", titles.HoldTrapped{MemberID: "m4", BookID: "d1", Until: until})
		s.title(t, "dune", titles.TrapExpired{MemberID: "m3", BookID: "d3", Until: until})
		s.title(t, "dune", titles.TrapFulfilled{MemberID: "m4", BookID: "d1"})
		s.title(t, "emma", titles.TitleChanged{Title: "Emma (Penguin)", Subjects: []string{"Matchmaking"}, Removed: []string{titles.FieldYear}})
		s.title(t, "emma", titles.CopyAdded{BookID: "e1"})
		s.applyTo(t, c)
		dune.Counts = catalog.Counts{Total: 3, Available: 1, HoldsWaiting: 0}
		emma = catalog.Title{ID: "emma", Title: "Emma (Penguin)", Authors: []string{"Jane Austen"}, Subjects: []string{"Matchmaking"},
			Counts: catalog.Counts{Total: 1, Available: 1}}
		require.Equal(t, []catalog.Title{dune, emma}, listTitles(t, c, catalog.TitleFilter{}).Titles)

		books, _, err := c.List(context.Background(), catalog.Filter{})
		require.NoError(t, err)
		require.Len(t, books.Books, 1, "the book's events made a book, as before")
	})
}

// The counts are the aggregate's: the same events folded by titles.Apply count the same.
func TestCatalogTitleCountsAreTheAggregates(t *testing.T) {
	t.Parallel()
	s := newShelf()
	s.addTitle(t, titles.TitleAdded{ID: "t", Title: "T", Authors: []string{"A"}}, "c1", "c2")
	s.title(t, "t", titles.CopyLent{BookID: "c1", MemberID: "m1"})
	s.title(t, "t", titles.TitleHoldPlaced{TitleID: "t", MemberID: "m2", BookID: "c1", PlacedAt: nowUTC})
	s.title(t, "t", titles.CopyLent{BookID: "c2", MemberID: "m2"}) // lent another copy: their hold for c1 stays
	var folded titles.Title
	for _, e := range s.events {
		event, err := titles.Decode(e)
		require.NoError(t, err)
		folded = titles.Apply(folded, event)
	}
	c := memoryCatalog(t)
	s.applyTo(t, c)
	require.Equal(t, catalog.CountsOf(folded), listTitles(t, c, catalog.TitleFilter{}).Titles[0].Counts)
	require.Equal(t, catalog.Counts{Total: 2, Available: 0, HoldsWaiting: 1}, catalog.CountsOf(folded))
}

// A build of version 1 keeps no titles: while it answers, a read of titles is NotCaughtUp at
// once, whatever minPosition, and the books are read as ever.
func TestCatalogTitlesNeedABuildThatKeepsThem(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	memory := memdriver.NewCheckpoints(nil)
	drivertest.StartBuild(t, memory, catalog.Name, 1, false)
	pool := pgtest.NewPool(t)
	for name, c := range map[string]catalog.Catalog{
		"memory":   catalog.NewMemory(memory),
		"postgres": catalogpg.New(pool, pgdriver.NewCheckpoints(pool)), // the migrations' build, of version 1
	} {
		_, _, err := c.Titles(ctx, catalog.TitleFilter{})
		require.True(t, errs.Is(err, errs.NotCaughtUp), "%s: %v", name, err)
		_, _, err = c.List(ctx, catalog.Filter{})
		require.NoError(t, err, name)

		log := eventstore.NewMemory(nil)
		_, err = log.Append(ctx, "title-t", 0, []eventstore.NewEvent{{Type: "TitleAdded", Data: json.RawMessage(`{"id":"t","title":"T","authors":["A"]}`)}})
		require.NoError(t, err)
		query := catalog.Query{Catalog: c, Log: log, Wait: time.Hour}
		waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		_, _, err = query.Titles(waitCtx, catalog.TitleFilter{}, 1, "client")
		cancel()
		require.True(t, errs.Is(err, errs.NotCaughtUp), "%s: at once, not after a wait: %v", name, err)
	}
}
