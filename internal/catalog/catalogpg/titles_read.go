package catalogpg

import (
	"context"

	"github.com/jackc/pgx/v5"

	"library/internal/catalog"
	"library/internal/processor"
)

// Reading catalog_titles. A page without a search reads the order index, (sort_title,
// title_id), or the partial one of the titles on the shelf, from the cursor, and stops when the
// page is full. A search can't count on one plan: the titles that match a word may be spread
// along the order, and then a walk of the order from the cursor finds a page soon, or bunched
// in one place (a word that begins titles), and then the walk passes every title before them,
// while the trigram index finds the matches at once but must sort them all. PostgreSQL can't
// tell the two apart from its statistics, so a search first walks the order for a bounded
// number of titles (titlesProbeQuery), and only if the page is not full by then gathers every
// match through the trigram and ISBN indexes and sorts them (titlesSearchQuery): a common word
// costs the walk, a rare one or a bunched one the matches.

// Titles implements catalog.Catalog. Rows and position are read in one snapshot, from the
// build that reads go to, which has titles only from catalog.TitlesFrom.
func (c *Postgres) Titles(ctx context.Context, f catalog.TitleFilter) (catalog.TitlePage, processor.Position, error) {
	if err := f.Check(); err != nil {
		return catalog.TitlePage{}, processor.Position{}, err
	}
	var page catalog.TitlePage
	pos, err := c.reads.ReadVersion(ctx, func(tx pgx.Tx, version int) error {
		if version < catalog.TitlesFrom {
			return catalog.TitlesNotBuilt()
		}
		list, err := readTitles(ctx, tx, f)
		if err != nil {
			return err
		}
		page = catalog.TitlePage{Titles: list, More: len(list) > f.PageSize()}
		if page.More {
			page.Titles = list[:f.PageSize()]
		}
		if page.Titles == nil {
			page.Titles = []catalog.Title{}
		}
		return nil
	})
	if err != nil {
		return catalog.TitlePage{}, processor.Position{}, err
	}
	return page, pos, nil
}

// readTitles reads the page f chooses, and one title more when there is a next page.
func readTitles(ctx context.Context, tx pgx.Tx, f catalog.TitleFilter) ([]catalog.Title, error) {
	if len(f.Words) == 0 && f.ISBN == "" {
		return collectTitles(tx.Query(ctx, titlesPageQuery, titlesArgs(f, 0)...))
	}
	if f.ISBN == "" { // a search that is an ISBN has a title or two: straight to the indexes
		list, err := collectTitles(tx.Query(ctx, titlesProbeQuery, titlesArgs(f, probeRows(f))...))
		if err != nil || len(list) > f.PageSize() {
			return list, err
		}
	}
	return collectTitles(tx.Query(ctx, titlesSearchQuery, titlesArgs(f, 0)...))
}

// probeRows is how many titles a search walks in order before it asks the indexes instead: ten
// for each title of the page, so that a word in one title in ten or more fills it.
func probeRows(f catalog.TitleFilter) int { return 10 * (f.PageSize() + 1) }

// collectTitles reads the titles a query found.
func collectTitles(rows pgx.Rows, err error) ([]catalog.Title, error) {
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, scanTitle)
}

// The parts of the queries. $1 and $2 are the sort title and id to start after (empty for the
// first page: every title sorts after them), $3 whether to keep only titles with a copy on the
// shelf, $4 to $13 the LIKE patterns of up to catalog.MaxSearchWords words (NULL where there
// are fewer), $14 the ISBN a search is (the empty string when it is none), $15 the number of
// rows: a page and one more, to tell whether there is a next. Planned with its values, the
// conditions of an unused filter fold away.
const (
	titleColumns = `title_id, title, authors, isbn, year, publisher, language, subjects, copies_total, copies_available, holds_waiting`
	afterCursor  = `(sort_title, title_id) > ($1, $2) AND (NOT $3::boolean OR copies_available > 0)`
	matching     = `((($4::text IS NULL OR search_text LIKE $4)
      AND ($5::text IS NULL OR search_text LIKE $5)
      AND ($6::text IS NULL OR search_text LIKE $6)
      AND ($7::text IS NULL OR search_text LIKE $7)
      AND ($8::text IS NULL OR search_text LIKE $8)
      AND ($9::text IS NULL OR search_text LIKE $9)
      AND ($10::text IS NULL OR search_text LIKE $10)
      AND ($11::text IS NULL OR search_text LIKE $11)
      AND ($12::text IS NULL OR search_text LIKE $12)
      AND ($13::text IS NULL OR search_text LIKE $13))
    OR ($14::text <> '' AND isbn = $14))`
)

// titlesPageQuery reads a page, with or without a search: the order index's rows from the
// cursor (or the partial index's, for titles on the shelf), each kept when it matches.
const titlesPageQuery = `
SELECT ` + titleColumns + ` FROM catalog_titles
WHERE ` + afterCursor + ` AND ` + matching + `
ORDER BY sort_title, title_id
LIMIT $15`

// titlesProbeQuery is a search's walk of the order: the $16 titles after the cursor, of which
// those that match.
const titlesProbeQuery = `
SELECT ` + titleColumns + ` FROM (
  SELECT ` + titleColumns + `, sort_title, search_text FROM catalog_titles
  WHERE ` + afterCursor + `
  ORDER BY sort_title, title_id
  LIMIT $16
) AS walked
WHERE ` + matching + `
ORDER BY sort_title, title_id
LIMIT $15`

// titlesSearchQuery is a search through the indexes: every title after the cursor that matches,
// found by the trigram index (and the ISBN's), then sorted. Materialized, so that the planner
// can't walk the order index instead, filtering.
const titlesSearchQuery = `
WITH found AS MATERIALIZED (
  SELECT ` + titleColumns + `, sort_title FROM catalog_titles
  WHERE ` + afterCursor + ` AND ` + matching + `
)
SELECT ` + titleColumns + ` FROM found
ORDER BY sort_title, title_id
LIMIT $15`

// titlesArgs are a query's parameters for a filter, after the mode to send it in: an unnamed
// statement, planned with its values every time (see pageArgs); probe, when not 0, is
// titlesProbeQuery's $16.
func titlesArgs(f catalog.TitleFilter, probe int) []any {
	args := make([]any, 0, 6+catalog.MaxSearchWords)
	args = append(args, pgx.QueryExecModeCacheDescribe, f.After.Sort, f.After.ID, f.Available)
	for i := range catalog.MaxSearchWords {
		if i < len(f.Words) {
			args = append(args, likePattern(f.Words[i]))
		} else {
			args = append(args, nil)
		}
	}
	args = append(args, f.ISBN, f.PageSize()+1)
	if probe > 0 {
		args = append(args, probe)
	}
	return args
}

func scanTitle(row pgx.CollectableRow) (catalog.Title, error) {
	var t catalog.Title
	var isbn, publisher, language *string
	var year *int
	err := row.Scan(&t.ID, &t.Title, &t.Authors, &isbn, &year, &publisher, &language, &t.Subjects,
		&t.Counts.Total, &t.Counts.Available, &t.Counts.HoldsWaiting)
	t.ISBN, t.Year, t.Publisher, t.Language = deref(isbn), deref(year), deref(publisher), deref(language)
	if len(t.Subjects) == 0 {
		t.Subjects = nil
	}
	return t, err
}
