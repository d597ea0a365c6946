package catalog_test

import (
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/catalog"
	"library/internal/titles"
)

// titleIDs are the ids of a page's titles.
func titleIDs(list []catalog.Title) []string {
	ids := []string{}
	for _, t := range list {
		ids = append(ids, t.ID)
	}
	return ids
}

// titlePages reads every page of a filter, following each page's Next as a client does, and
// checks what every reader of pages relies on: only the last page has no Next, no page after a
// Next is empty, and no page is longer than the limit.
func titlePages(t testingT, c catalog.Catalog, f catalog.TitleFilter) [][]catalog.Title {
	t.Helper()
	var out [][]catalog.Title
	for {
		page := listTitles(t, c, f)
		require.LessOrEqual(t, len(page.Titles), f.PageSize())
		if len(out) > 0 {
			require.NotEmpty(t, page.Titles, "a page after a next is never empty")
		}
		out = append(out, page.Titles)
		next := page.Next()
		if next == "" {
			return out
		}
		require.Len(t, page.Titles, f.PageSize(), "only the last page is short")
		following, err := catalog.ParseTitleFilter("", "", "", next)
		require.NoError(t, err, "a next is a valid after")
		f.After = following.After
		require.Less(t, len(out), 10_000, "paging does not end")
	}
}

// pagedTitleIDs reads every page of a filter and returns the ids in the order read.
func pagedTitleIDs(t testingT, c catalog.Catalog, f catalog.TitleFilter) []string {
	t.Helper()
	ids := []string{}
	for _, page := range titlePages(t, c, f) {
		ids = append(ids, titleIDs(page)...)
	}
	return ids
}

// Paging through every title, with any limit, visits each title once, in the order of its
// title in lower case, then of its id, whatever order they were added in: titles written alike
// but for case sort by id, and a title renamed moves to its new place.
func TestCatalogTitlePagesVisitEveryTitleOnce(t *testing.T) {
	t.Parallel()
	type entry struct{ id, title string }
	var entries []entry
	for i := range 40 {
		entries = append(entries, entry{fmt.Sprintf("t%02d", i), fmt.Sprintf("Title %d", 40-i)})
	}
	entries = append(entries, entry{"a", "dune"}, entry{"b", "Dune"}, entry{"c", "DUNE"}, entry{"Z", "dune"},
		entry{"e", "Émile"}, entry{"f", "emile"}, entry{"g", "Zola"}, entry{"h", "ab"}, entry{"i", "Ab c"})
	order := slices.Clone(entries)
	rand.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	sorted := func(list []entry) []string {
		keys := make([]catalog.TitleKey, len(list))
		for i, e := range list {
			keys[i] = catalog.TitleKey{Sort: catalog.FoldCase(e.title), ID: e.id}
		}
		slices.SortFunc(keys, func(a, b catalog.TitleKey) int { return cmp.Or(cmp.Compare(a.Sort, b.Sort), cmp.Compare(a.ID, b.ID)) })
		ids := []string{}
		for _, k := range keys {
			ids = append(ids, k.ID)
		}
		return ids
	}
	want := sorted(entries)

	forEachTitles(t, func(t *testing.T, c writable) {
		entries := slices.Clone(entries) // each catalog renames a title of its own
		s := newShelf()
		for _, e := range order {
			s.addTitle(t, titles.TitleAdded{ID: e.id, Title: e.title, Authors: []string{"Author"}})
		}
		s.applyTo(t, c)
		for _, limit := range []int{1, 2, 3, 7, len(entries) - 1, len(entries), len(entries) + 1, catalog.MaxPageSize} {
			require.Equal(t, want, pagedTitleIDs(t, c, catalog.TitleFilter{Limit: limit}), "limit %d", limit)
		}
		require.Equal(t, want[:3], titleIDs(listTitles(t, c, catalog.TitleFilter{Limit: 3}).Titles))
		// Searches whose matches lie anywhere in the order: near the start, spread, or at the end,
		// past the titles a first look in order reaches.
		for _, word := range []string{"dune", "e", "title 3", "zola", "1"} {
			var matching []entry
			for _, e := range entries {
				if strings.Contains(catalog.FoldCase(e.title), word) {
					matching = append(matching, e)
				}
			}
			for _, limit := range []int{1, 2, 5} {
				require.Equal(t, sorted(matching), pagedTitleIDs(t, c, catalog.TitleFilter{Words: []string{word}, Limit: limit}),
					"%q, limit %d", word, limit)
			}
		}

		s.title(t, "a", titles.TitleChanged{Title: "Zz top"})
		s.applyTo(t, c)
		entries[len(entries)-9].title = "Zz top" // "a"
		renamed := sorted(entries)
		require.Equal(t, renamed, pagedTitleIDs(t, c, catalog.TitleFilter{Limit: 4}), "a renamed title moves")

		require.Equal(t, "e", renamed[len(renamed)-1], "É sorts after every letter without an accent")
		last := listTitles(t, c, catalog.TitleFilter{Limit: 1, After: catalog.TitleKey{Sort: "émile", ID: "e"}})
		require.Empty(t, last.Titles)
		require.NotNil(t, last.Titles, "an empty page is an empty list, not null")
	})
}

// titleShelf is the titles the search tests look through, with their copies: dune's three
// are lent, emma's one is on the shelf.
func titleShelf(t testingT) *shelf {
	s := newShelf()
	s.addTitle(t, titles.TitleAdded{ID: "dune", Title: "Dune", Authors: []string{"Frank Herbert"}, ISBN: "9780441013593",
		Subjects: []string{"Science fiction", "Deserts"}}, "d1", "d2", "d3")
	for _, c := range []string{"d1", "d2", "d3"} {
		s.title(t, "dune", titles.CopyLent{BookID: c, MemberID: "m-" + c})
	}
	s.addTitle(t, titles.TitleAdded{ID: "messiah", Title: "Dune Messiah", Authors: []string{"Frank Herbert"}})
	s.addTitle(t, titles.TitleAdded{ID: "emma", Title: "Emma", Authors: []string{"Jane Austen"}, ISBN: "9780141439587",
		Subjects: []string{"Matchmaking"}}, "e1")
	s.addTitle(t, titles.TitleAdded{ID: "ab", Title: "Ab", Authors: []string{"Cd", "Ef"}, Subjects: []string{"Gh"}})
	s.addTitle(t, titles.TitleAdded{ID: "digits", Title: "Notes on 9780441013593", Authors: []string{"A Cataloguer"}}, "n1")
	s.addTitle(t, titles.TitleAdded{ID: "odyssey", Title: "ΟΔΥΣΣΕΑΣ", Authors: []string{"Όμηρος"}, Subjects: []string{"İstanbul"}})
	return s
}

// Search on both catalogs: every word of q, in any order and case, as a substring of the title,
// of an author or of a subject (each word in any of them, none across two); a q that is an
// ISBN, written either way, also finds the title that has it; available keeps the titles with
// a copy on the shelf, and works with either.
func TestCatalogTitlesSearch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		q, available string
		want         []string
	}{
		{"", "", []string{"ab", "dune", "messiah", "emma", "digits", "odyssey"}},
		{"dune", "", []string{"dune", "messiah"}},
		{"HERBERT", "", []string{"dune", "messiah"}},
		{"herbert desert", "", []string{"dune"}},     // an author's word and a subject's
		{"fiction science", "", []string{"dune"}},    // a subject's words
		{"austen matchmaking", "", []string{"emma"}}, // author and subject
		{"cd", "", []string{"ab"}},
		{"ef", "", []string{"ab"}},
		{"bc", "", nil},  // "Ab" then "Cd": not across title and author
		{"dEf", "", nil}, // "Cd" then "Ef": not across two authors
		{"fgh", "", nil},
		{"οδυσσεας όμηρος", "", []string{"odyssey"}},
		{"istanbul", "", []string{"odyssey"}},
		{"9780441013593", "", []string{"dune", "digits"}}, // the ISBN's title, and a title with its digits
		{"0-441-01359-7", "", []string{"dune"}},           // the ISBN-10, with hyphens
		{"0441013597", "", []string{"dune"}},
		{"978-0-14-143958-7", "", []string{"emma"}},
		{"0441013598", "", nil}, // a wrong check digit is no ISBN: words only
		{"9780441013594", "", nil},
		{"", "true", []string{"emma", "digits"}},
		{"dune", "true", nil},
		{"9780441013593", "true", []string{"digits"}},
		{"0-14-143958-X", "", nil},
		{"0141439580", "true", []string{"emma"}},
	}
	forEachTitles(t, func(t *testing.T, c writable) {
		titleShelf(t).applyTo(t, c)
		for _, tc := range cases {
			f, err := catalog.ParseTitleFilter(tc.q, tc.available, "", "")
			require.NoError(t, err, tc.q)
			want := tc.want
			if want == nil {
				want = []string{}
			}
			require.Equal(t, want, titleIDs(listTitles(t, c, f).Titles), "q %q available %q", tc.q, tc.available)
			f.Limit = 1
			require.Equal(t, want, pagedTitleIDs(t, c, f), "q %q available %q, a title a page", tc.q, tc.available)
		}
	})
}

// A filter that no request could make is refused, not half applied; an empty catalog has one
// empty page.
func TestCatalogTitlesRefuseBadFilters(t *testing.T) {
	t.Parallel()
	forEachTitles(t, func(t *testing.T, c writable) {
		for _, f := range []catalog.TitleFilter{{Limit: -1}, {Limit: catalog.MaxPageSize + 1}, {Words: make([]string, catalog.MaxSearchWords+1)}} {
			_, _, err := c.Titles(context.Background(), f)
			require.Error(t, err, "%+v", f)
		}
		require.Equal(t, [][]catalog.Title{{}}, titlePages(t, c, catalog.TitleFilter{Limit: 5}))
		require.Equal(t, [][]catalog.Title{{}}, titlePages(t, c, catalog.TitleFilter{Words: []string{"x"}, ISBN: "9780441013593", Available: true}))
	})
}
