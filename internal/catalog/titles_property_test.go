package catalog_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/catalog"
	"library/internal/catalog/catalogpg"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/pgtest"
	"library/internal/titles"
)

// propertyISBNs are the ISBNs the property test's titles may have, each with another way of
// writing it, as a search may.
var propertyISBNs = map[string]string{"9780441013593": "0-441-01359-7", "9780141439587": "0141439580"}

// The memory and PostgreSQL catalogs list the same titles, with the same counts, in the same
// pages, for the same events, whatever the titles, their copies and queues, the search (words
// or an ISBN), available and the page size.
func TestCatalogTitlesAgree(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	checkpoints := pgdriver.NewCheckpoints(pool)
	view := catalogpg.New(pool, checkpoints)
	outer := t
	rapid.Check(t, func(t *rapid.T) {
		pg := emptied(outer, view, checkpoints)
		mem := memoryCatalog(outer)

		s, texts := drawTitles(t)
		events := s.events
		for _, c := range []writable{mem, pg} {
			s.events = append(events[:0:0], events...)
			s.applyTo(t, c)
		}
		for range 5 {
			q := drawSearch(t, texts)
			if rapid.IntRange(0, 3).Draw(t, "an ISBN") == 0 {
				isbn := rapid.SampledFrom([]string{"9780441013593", "9780141439587"}).Draw(t, "isbn")
				q = rapid.SampledFrom([]string{isbn, propertyISBNs[isbn]}).Draw(t, "written")
			}
			available := rapid.SampledFrom([]string{"", "true"}).Draw(t, "available")
			f, err := catalog.ParseTitleFilter(q, available, fmt.Sprint(rapid.IntRange(1, 4).Draw(t, "limit")), "")
			require.NoError(t, err)
			require.Equal(t, titlePages(t, mem, f), titlePages(t, pg, f), "%+v", f)
		}
	})
}

// drawTitles draws up to 10 titles, some with the same title, some renamed, with copies lent,
// held and back on the shelf, and members waiting; it returns their events and texts.
func drawTitles(t *rapid.T) (*shelf, []string) {
	s := newShelf()
	var texts []string
	text := rapid.StringOfN(rapid.SampledFrom(searchRunes), 1, 12, -1)
	ids := rapid.SliceOfNDistinct(rapid.StringMatching(`[0-9A-Za-z][0-9A-Za-z.:@+-]{0,3}`), 0, 10, rapid.ID[string]).Draw(t, "ids")
	for _, id := range ids {
		added := titles.TitleAdded{ID: id, Title: text.Draw(t, "title"), Authors: []string{text.Draw(t, "author")}}
		if rapid.Bool().Draw(t, "subject") {
			added.Subjects = []string{text.Draw(t, "subject")}
		}
		if rapid.Bool().Draw(t, "isbn") {
			added.ISBN = rapid.SampledFrom([]string{"9780441013593", "9780141439587"}).Draw(t, "isbn")
		}
		texts = append(append(append(texts, added.Title), added.Authors...), added.Subjects...)
		var copies []string
		for i := range rapid.IntRange(0, 3).Draw(t, "copies") {
			copies = append(copies, fmt.Sprintf("%s-c%d", id, i))
		}
		s.addTitle(t, added, copies...)
		for i, c := range copies {
			switch rapid.IntRange(0, 3).Draw(t, "copy") {
			case 1:
				s.title(t, id, titles.CopyLent{BookID: c, MemberID: fmt.Sprint("m", i)})
			case 2:
				s.title(t, id, titles.HoldTrapped{MemberID: fmt.Sprint("h", i), BookID: c, Until: nowUTC.Add(time.Hour)})
			case 3:
				s.title(t, id, titles.CopyLent{BookID: c, MemberID: fmt.Sprint("m", i)})
				s.title(t, id, titles.CopyShelved{BookID: c})
			}
		}
		for i := range rapid.IntRange(0, 2).Draw(t, "waiting") {
			s.title(t, id, titles.TitleHoldPlaced{TitleID: id, MemberID: fmt.Sprint("w", i), PlacedAt: nowUTC})
		}
		if rapid.IntRange(0, 3).Draw(t, "renamed") == 0 {
			renamed := text.Draw(t, "new title")
			s.title(t, id, titles.TitleChanged{Title: renamed})
			texts = append(texts, renamed)
		}
	}
	return s, texts
}
