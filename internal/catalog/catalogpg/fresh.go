package catalogpg

import (
	"context"
	"encoding/json"

	"github.com/jackc/pgx/v5"

	"library/internal/books"
	"library/internal/catalog"
	"library/internal/titles"
)

// The rows a batch written fresh (pgdriver.ViewTx.ApplyAdding) adds as new, with a COPY each
// in the batch's transaction: books and titles that had no row. PostgreSQL reads a COPY's rows
// at about half of what an INSERT of the same rows from lists costs it, with no look for a
// conflict; a key that was taken fails the COPY, and the batch is written again as upserts.

// copyNewBooks writes the books that the batch's rounds add, when each is its book's first
// change in the batch (the first round), with a COPY, and returns the rounds left to write:
// every later change of those books comes after it, as the rounds have it. When a later round
// adds a book too (a book added again, which finds its key taken), it writes nothing and
// returns rounds as they were, for the upserts.
func copyNewBooks(ctx context.Context, tx pgx.Tx, rounds [][]catalog.Change) ([][]catalog.Change, error) {
	if len(rounds) == 0 {
		return rounds, nil
	}
	for _, round := range rounds[1:] {
		for _, c := range round {
			if _, ok := c.Event.(books.BookAdded); ok {
				return rounds, nil
			}
		}
	}
	var added [][]any
	var rest []catalog.Change
	for _, c := range rounds[0] {
		if e, ok := c.Event.(books.BookAdded); ok {
			added = append(added, []any{c.BookID, e.Title, e.Author, c.Version})
		} else {
			rest = append(rest, c)
		}
	}
	if len(added) == 0 {
		return rounds, nil
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"catalog_books"}, []string{"book_id", "title", "author", "version"},
		pgx.CopyFromRows(added))
	return append([][]catalog.Change{rest}, rounds[1:]...), err
}

// newTitleColumns are catalog_titles' columns, in the order of a row of newTitles.
func newTitleColumns() []string {
	return []string{"title_id", "title", "authors", "isbn", "year", "publisher", "language", "subjects",
		"sort_title", "search_text", "copies_total", "copies_available", "holds_waiting", "copies", "holds"}
}

// newTitles are titles new to catalog_titles, as the rows of a COPY: PostgreSQL reads them at
// about half of what an INSERT of the same rows from lists (upsertTitlesSQL's) costs it.
type newTitles [][]any

// add adds the row of title id.
func (n *newTitles) add(id string, t titles.Title) error {
	copies, err := json.Marshal(orEmpty(t.Copies))
	if err != nil {
		return err
	}
	holds, err := json.Marshal(orEmpty(t.Holds))
	if err != nil {
		return err
	}
	counts := catalog.CountsOf(t)
	*n = append(*n, []any{id, t.Title, orEmpty(t.Authors), given(t.ISBN), given(t.Year), given(t.Publisher),
		given(t.Language), orEmpty(t.Subjects), catalog.SortTitle(t.Title), catalog.TitleSearchText(t.Title, t.Authors, t.Subjects),
		counts.Total, counts.Available, counts.HoldsWaiting, json.RawMessage(copies), json.RawMessage(holds)})
	return nil
}

// copy writes the rows in tx, into the catalog_titles of the build's schema (the first of the
// transaction's search path).
func (n newTitles) copy(ctx context.Context, tx pgx.Tx) error {
	if len(n) == 0 {
		return nil
	}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"catalog_titles"}, newTitleColumns(), pgx.CopyFromRows(n))
	return err
}
