package report

import (
	"fmt"

	"library/bench/internal/apart"
	"library/bench/internal/figures"
)

// catalogSection is the catalog's figures.
func (r Report) catalogSection() Section {
	c := r.Catalog
	row := func(what string, t apart.CatalogTiming) []string {
		return []string{what, fmt.Sprintf("`GET %s`", t.Path), fmt.Sprint(t.Books), fmt.Sprint(t.Bytes), figures.FormatLatency(t.P50), figures.FormatLatency(t.P99)}
	}
	return Section{
		Title: "Catalog",
		notes: []string{
			fmt.Sprintf("A service process of its own, at its default settings, on a database of its own holding %s books: `BookAdded` events written straight into the events table in one statement (%s), which the service's catalog then read into its view model (%s, from the commit to `/status` showing no lag). Titles are an adjective and a noun, authors a first name and a surname, from word lists of coprime lengths, so that the search's two words (a title's adjective, an author's surname) are together in a few books only. Each request is made %d times, one at a time on one keep-alive connection, after %d untimed.",
				figures.Thousands(c.Books), figures.FormatSeconds(c.Seed), figures.FormatSeconds(c.CatchUp), apart.CatalogRequests, apart.CatalogWarmups),
		},
		align:  "|---|---|--:|--:|--:|--:|",
		Header: []string{"request", "as sent", "books", "bytes", "p50", "p99"},
		Rows:   [][]string{row("first page (limit 100)", c.FirstPage), row("search, two words", c.Search)},
	}
}
