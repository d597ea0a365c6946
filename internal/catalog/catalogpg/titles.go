package catalogpg

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"library/internal/catalog"
	"library/internal/titles"
)

// The titles of a build from catalog.TitlesFrom, in catalog_titles. A batch's title events are
// folded by the Title aggregate's own Apply, in Go, onto the rows of their titles as the
// transaction that writes them reads them (copies and holds keep what Apply needs), so the
// counts are the aggregate's; each title the batch touched is then written once.

// loadTitlesSQL reads the titles of a batch as the aggregate folded them.
const loadTitlesSQL = `
SELECT title_id, title, authors, isbn, year, publisher, language, subjects, copies, holds
FROM catalog_titles WHERE title_id = ANY($1)`

// upsertTitleSQL writes a title.
const upsertTitleSQL = `
INSERT INTO catalog_titles (title_id, title, authors, isbn, year, publisher, language, subjects, sort_title, search_text,
  copies_total, copies_available, holds_waiting, copies, holds)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
ON CONFLICT (title_id) DO UPDATE SET title = excluded.title, authors = excluded.authors, isbn = excluded.isbn,
  year = excluded.year, publisher = excluded.publisher, language = excluded.language, subjects = excluded.subjects,
  sort_title = excluded.sort_title, search_text = excluded.search_text, copies_total = excluded.copies_total,
  copies_available = excluded.copies_available, holds_waiting = excluded.holds_waiting, copies = excluded.copies,
  holds = excluded.holds`

// queueTitleChanges reads the titles that changes touch, folds the changes onto them, and adds
// to batch the write of each.
func queueTitleChanges(ctx context.Context, tx pgx.Tx, batch *pgx.Batch, changes []catalog.TitleChange) error {
	if len(changes) == 0 {
		return nil
	}
	var ids []string
	folded := map[string]titles.Title{}
	for _, c := range changes {
		if _, ok := folded[c.TitleID]; !ok {
			ids = append(ids, c.TitleID)
			folded[c.TitleID] = titles.Title{}
		}
	}
	if err := loadTitles(ctx, tx, ids, folded); err != nil {
		return err
	}
	for _, c := range changes {
		folded[c.TitleID] = titles.Apply(folded[c.TitleID], c.Event)
	}
	for _, id := range ids {
		if t := folded[id]; t.Added { // no title until its TitleAdded, as the aggregate has it
			if err := queueTitle(batch, id, t); err != nil {
				return err
			}
		}
	}
	return nil
}

// loadTitles reads the rows of ids into folded, as the titles they were folded from.
func loadTitles(ctx context.Context, tx pgx.Tx, ids []string, folded map[string]titles.Title) error {
	rows, err := tx.Query(ctx, loadTitlesSQL, ids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		t := titles.Title{Added: true}
		var isbn, publisher, language *string
		var year *int
		var copies, holds []byte
		if err := rows.Scan(&t.ID, &t.Title, &t.Authors, &isbn, &year, &publisher, &language, &t.Subjects, &copies, &holds); err != nil {
			return err
		}
		t.ISBN, t.Year, t.Publisher, t.Language = deref(isbn), deref(year), deref(publisher), deref(language)
		if len(t.Subjects) == 0 {
			t.Subjects = nil // the aggregate's title without subjects
		}
		if err := json.Unmarshal(copies, &t.Copies); err != nil {
			return fmt.Errorf("the copies of title %s: %w", t.ID, err)
		}
		if err := json.Unmarshal(holds, &t.Holds); err != nil {
			return fmt.Errorf("the holds of title %s: %w", t.ID, err)
		}
		folded[t.ID] = t
	}
	return rows.Err()
}

// queueTitle adds the write of title id to batch.
func queueTitle(batch *pgx.Batch, id string, t titles.Title) error {
	copies, err := json.Marshal(orEmpty(t.Copies))
	if err != nil {
		return err
	}
	holds, err := json.Marshal(orEmpty(t.Holds))
	if err != nil {
		return err
	}
	counts := catalog.CountsOf(t)
	batch.Queue(upsertTitleSQL, id, t.Title, orEmpty(t.Authors), given(t.ISBN), given(t.Year), given(t.Publisher), given(t.Language),
		orEmpty(t.Subjects), catalog.SortTitle(t.Title), catalog.TitleSearchText(t.Title, t.Authors, t.Subjects),
		counts.Total, counts.Available, counts.HoldsWaiting, copies, holds)
	return nil
}

// given is nil for a field's zero value, which is its absence (NULL), and the value otherwise.
func given[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}

// deref is the value, or the zero value for NULL.
func deref[T any](p *T) T {
	var v T
	if p != nil {
		v = *p
	}
	return v
}

// orEmpty is the list, or an empty one for none: the columns hold no NULL lists.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}
