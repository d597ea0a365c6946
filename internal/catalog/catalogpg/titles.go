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

// upsertTitlesSQL writes the titles of a batch, one row each, in one statement: $1 to $15 are
// the columns' values, a list each, the lists of authors and subjects as JSON arrays, the
// copies and holds as JSON.
const upsertTitlesSQL = `
INSERT INTO catalog_titles (title_id, title, authors, isbn, year, publisher, language, subjects, sort_title, search_text,
  copies_total, copies_available, holds_waiting, copies, holds)
SELECT r.title_id, r.title, ARRAY(SELECT jsonb_array_elements_text(r.authors::jsonb)), r.isbn, r.year, r.publisher, r.language,
  ARRAY(SELECT jsonb_array_elements_text(r.subjects::jsonb)), r.sort_title, r.search_text,
  r.copies_total, r.copies_available, r.holds_waiting, r.copies::jsonb, r.holds::jsonb
FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::integer[], $6::text[], $7::text[], $8::text[], $9::text[],
  $10::text[], $11::integer[], $12::integer[], $13::integer[], $14::text[], $15::text[])
  AS r(title_id, title, authors, isbn, year, publisher, language, subjects, sort_title, search_text,
    copies_total, copies_available, holds_waiting, copies, holds)
ON CONFLICT (title_id) DO UPDATE SET title = excluded.title, authors = excluded.authors, isbn = excluded.isbn,
  year = excluded.year, publisher = excluded.publisher, language = excluded.language, subjects = excluded.subjects,
  sort_title = excluded.sort_title, search_text = excluded.search_text, copies_total = excluded.copies_total,
  copies_available = excluded.copies_available, holds_waiting = excluded.holds_waiting, copies = excluded.copies,
  holds = excluded.holds`

// queueTitleChanges reads the titles that changes touch, folds the changes onto them, and adds
// to batch the write of each; when fresh, it writes those that had no row itself, in tx, as a
// COPY (pgdriver.ViewTx.ApplyAdding).
func queueTitleChanges(ctx context.Context, tx pgx.Tx, batch *pgx.Batch, changes []catalog.TitleChange, fresh bool) error {
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
	had := make(map[string]bool, len(ids)) // the titles that had a row
	for _, id := range ids {
		had[id] = folded[id].Added
	}
	for _, c := range changes {
		folded[c.TitleID] = titles.Apply(folded[c.TitleID], c.Event)
	}
	var added newTitles // rows new to the table, when fresh
	var written titleRows
	for _, id := range ids {
		t := folded[id]
		var err error
		switch {
		case !t.Added: // no title until its TitleAdded, as the aggregate has it
		case fresh && !had[id]:
			err = added.add(id, t)
		default:
			err = written.add(id, t)
		}
		if err != nil {
			return err
		}
	}
	written.queue(batch)
	return added.copy(ctx, tx)
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

// titleRows are the columns of upsertTitlesSQL's rows, a list each.
type titleRows struct {
	ids, titles, authors, subjects, sortTitles, searchTexts, copies, holds []string
	isbns, publishers, languages                                           []*string
	years                                                                  []*int
	totals, available, waiting                                             []int
}

// add adds the row of title id.
func (r *titleRows) add(id string, t titles.Title) error {
	var lists [4][]byte
	for i, list := range []any{orEmpty(t.Authors), orEmpty(t.Subjects), orEmpty(t.Copies), orEmpty(t.Holds)} {
		var err error
		if lists[i], err = json.Marshal(list); err != nil {
			return err
		}
	}
	counts := catalog.CountsOf(t)
	r.ids, r.titles = append(r.ids, id), append(r.titles, t.Title)
	r.authors, r.subjects = append(r.authors, string(lists[0])), append(r.subjects, string(lists[1]))
	r.isbns, r.years = append(r.isbns, given(t.ISBN)), append(r.years, given(t.Year))
	r.publishers, r.languages = append(r.publishers, given(t.Publisher)), append(r.languages, given(t.Language))
	r.sortTitles = append(r.sortTitles, catalog.SortTitle(t.Title))
	r.searchTexts = append(r.searchTexts, catalog.TitleSearchText(t.Title, t.Authors, t.Subjects))
	r.totals, r.available, r.waiting = append(r.totals, counts.Total), append(r.available, counts.Available), append(r.waiting, counts.HoldsWaiting)
	r.copies, r.holds = append(r.copies, string(lists[2])), append(r.holds, string(lists[3]))
	return nil
}

// queue adds to batch the write of the rows, if any.
func (r *titleRows) queue(batch *pgx.Batch) {
	if len(r.ids) > 0 {
		batch.Queue(upsertTitlesSQL, r.ids, r.titles, r.authors, r.isbns, r.years, r.publishers, r.languages,
			r.subjects, r.sortTitles, r.searchTexts, r.totals, r.available, r.waiting, r.copies, r.holds)
	}
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
