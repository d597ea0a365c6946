package catalog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/catalog"
	"library/internal/catalog/catalogpg"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// searchRunes are the characters of the property test's titles and authors: letters whose
// lower case is tricky (İ, final sigma, ß, a titlecase digraph, a combining dot), LIKE's
// wildcards and escape, and spaces.
var searchRunes = []rune("aAbBiI eEéÉσΣςİ\u0307ßǅǆ%_\\0")

// The memory and PostgreSQL catalogs give the same pages for the same events, whatever the
// books, their loans and holds, the filter and the page size.
func TestCatalogsAgree(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	checkpoints := pgdriver.NewCheckpoints(pool)
	view := catalogpg.New(pool, checkpoints)
	outer := t
	rapid.Check(t, func(t *rapid.T) {
		pg := emptied(outer, view, checkpoints)
		mem := memoryCatalog(outer)

		texts := drawShelf(t).applied(t, mem, pg)
		for range 5 {
			f := catalog.Filter{
				Status: rapid.SampledFrom([]string{"", "available", "lent", "held"}).Draw(t, "status"),
				Limit:  rapid.IntRange(1, 4).Draw(t, "limit"),
			}
			words, err := catalog.ParseSearch(drawSearch(t, texts))
			require.NoError(t, err)
			f.Words = words
			require.Equal(t, pages(t, mem, f), pages(t, pg, f), "%+v", f)
		}
	})
}

// randomShelf is the books of one run and the events that made them.
type randomShelf struct {
	*shelf
	texts []string // every title and author
}

// drawShelf draws up to 12 books, some lent, some of those returned, some of those then held
// for a member, who may give the book up, or a member still waiting may cancel.
func drawShelf(t *rapid.T) randomShelf {
	s := randomShelf{shelf: newShelf()}
	text := rapid.StringOfN(rapid.SampledFrom(searchRunes), 1, 12, -1)
	ids := rapid.SliceOfNDistinct(rapid.StringMatching(`[0-9A-Za-z][0-9A-Za-z.:@+-]{0,3}`), 0, 12, rapid.ID[string]).Draw(t, "ids")
	for _, id := range ids {
		title, author := text.Draw(t, "title"), text.Draw(t, "author")
		s.add(t, id, title, author)
		s.texts = append(s.texts, title, author)
		switch rapid.IntRange(0, 3).Draw(t, "loan") {
		case 1:
			s.lend(t, id)
		case 2:
			s.lend(t, id)
			s.giveBack(t, id)
		case 3:
			s.lend(t, id)
			s.giveBack(t, id)
			s.hold(t, id, "m2")
			if cancel := rapid.SampledFrom([]string{"", "m2", "m3"}).Draw(t, "cancel"); cancel != "" {
				s.cancelHold(t, id, cancel)
			}
		}
	}
	return s
}

// applied applies the shelf's events to both catalogs and returns the books' texts.
func (s randomShelf) applied(t *rapid.T, catalogs ...writable) []string {
	events := s.events
	for _, c := range catalogs {
		s.events = append(events[:0:0], events...)
		s.applyTo(t, c)
	}
	return s.texts
}

// drawSearch draws a search of up to three words, each a piece of some book's text, in another
// case or not, or made up.
func drawSearch(t *rapid.T, texts []string) string {
	var words []string
	for range rapid.IntRange(0, 3).Draw(t, "words") {
		word := rapid.StringOfN(rapid.SampledFrom(searchRunes), 1, 3, -1).Draw(t, "made-up word")
		if len(texts) > 0 && rapid.Bool().Draw(t, "from a book") {
			r := []rune(rapid.SampledFrom(texts).Draw(t, "text"))
			i := rapid.IntRange(0, len(r)-1).Draw(t, "start")
			j := rapid.IntRange(i+1, len(r)).Draw(t, "end")
			word = string(r[i:j])
		}
		switch rapid.IntRange(0, 2).Draw(t, "case") {
		case 1:
			word = strings.ToUpper(word)
		case 2:
			word = strings.ToLower(word)
		}
		words = append(words, word)
	}
	return strings.Join(words, " ")
}

// emptied is the catalog in PostgreSQL, emptied: a rebuild that takes over at once, its
// checkpoint moved to the one that answers without reading a thing (a test's shortcut, never the
// engine's), and the old build dropped.
func emptied(t *testing.T, c *catalogpg.Postgres, checkpoints *pgdriver.Checkpoints) writable {
	t.Helper()
	ctx := context.Background()
	to, err := c.Position(ctx)
	require.NoError(t, err)
	b, vm := drivertest.Rebuild(t, checkpoints, catalog.Name, c)
	if to.Checkpoint.Position > 0 {
		require.NoError(t, vm.Apply(ctx, processor.Position{}, processor.Position{Checkpoint: to.Checkpoint}, nil))
	}
	after, err := checkpoints.TakeOver(ctx, b)
	require.NoError(t, err)
	require.Equal(t, processor.BuildAnswering, after.State)
	_, err = checkpoints.DropBuilds(ctx, catalog.Name, 0)
	require.NoError(t, err)
	return writable{Catalog: c, ViewModel: vm}
}
