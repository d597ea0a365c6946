// Package catalogpg keeps the catalog in PostgreSQL, in catalog_books tables (and, from
// catalog.TitlesFrom, catalog_titles), one set per build of the catalog (its first build's
// where migrations/00003_catalog.sql made it, each later one's in a schema of its own): a
// batch's rows and the build's checkpoint move in one transaction, and a page and its position
// are read in one snapshot, from the build that reads go to (package catalog says what the
// catalog promises).
package catalogpg

import (
	"context"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/books"
	"library/internal/catalog"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
)

// Postgres is the catalog in catalog_books tables. Every replica reads them; only the holder of
// a build's lease writes its table, in the transaction that moves the build's checkpoint.
type Postgres struct {
	pool        *pgxpool.Pool
	checkpoints *pgdriver.Checkpoints
	reads       pgdriver.ViewReads
	bulkFrom    int64 // the fewest events a build catches up in bulk (bulk.go)
}

var _ catalog.Catalog = (*Postgres)(nil)

// New returns the catalog of this code's version kept through pool, its builds in checkpoints.
func New(pool *pgxpool.Pool, checkpoints *pgdriver.Checkpoints) *Postgres {
	return NewAt(pool, checkpoints, catalog.Versions(0))
}

// NewAt is New for other versions of the catalog's code (tests).
func NewAt(pool *pgxpool.Pool, checkpoints *pgdriver.Checkpoints, versions processor.Versions) *Postgres {
	return &Postgres{pool: pool, checkpoints: checkpoints, bulkFrom: DefaultBulkFrom,
		reads: pgdriver.ViewReads{Pool: pool, View: catalog.Name, Versions: versions, What: "the catalog"}}
}

// WithBulkFrom is the catalog with its builds catching up in bulk from n events (rather than
// DefaultBulkFrom) when their tables hold fewer rows: for tests, which catch up less.
func (c *Postgres) WithBulkFrom(n int64) *Postgres {
	with := *c
	with.bulkFrom = n
	return &with
}

// Versions implements processor.View.
func (c *Postgres) Versions() processor.Versions { return c.reads.Versions }

// Build implements processor.View: a build's tables, made in the build's schema the first
// time: catalog_books (booksSQL), from catalog.TitlesFrom catalog_titles (titlesSQL), and from
// catalog.MissingFrom catalog_books' column missing (missingSQL).
func (c *Postgres) Build(ctx context.Context, b processor.Build) (processor.ViewModel, error) {
	err := c.checkpoints.MakeTables(ctx, b, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, booksSQL); err != nil || b.Version < catalog.TitlesFrom {
			return err
		}
		if _, err := tx.Exec(ctx, titlesSQL); err != nil || b.Version < catalog.MissingFrom {
			return err
		}
		_, err := tx.Exec(ctx, missingSQL)
		return err
	})
	if err != nil {
		return nil, err
	}
	return build{writes: pgdriver.ViewTx{Pool: c.pool, Checkpoints: c.checkpoints, Build: b, What: "the catalog"},
		titles: b.Version >= catalog.TitlesFrom, missing: b.Version >= catalog.MissingFrom, bulkFrom: c.bulkFrom}, nil
}

// build is one build's tables.
type build struct {
	writes   pgdriver.ViewTx
	titles   bool  // it keeps catalog_titles
	missing  bool  // its catalog_books keeps copies on no shelf (column missing)
	bulkFrom int64 // the fewest events it catches up in bulk
}

// Apply implements processor.ViewModel: one transaction writes the batch's changes and moves
// the checkpoint, or, when the checkpoint has moved meanwhile, writes nothing.
func (b build) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	p, err := b.Prepare(events)
	if err != nil {
		return err
	}
	return p.Apply(ctx, from, to)
}

var _ processor.Preparer = build{}

// Prepare implements processor.Preparer: it decodes the batch's events, and splits its books'
// changes into rounds, before the transaction that writes them.
func (b build) Prepare(events []eventstore.Event) (processor.Prepared, error) {
	changes, err := catalog.Changes(events)
	if err != nil {
		return nil, err
	}
	p := prepared{b: b, rounds: processor.Rounds(changes, func(c catalog.Change) (string, bool) { return c.BookID, true })}
	if b.titles {
		if p.titleChanges, err = catalog.TitleChanges(events); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// prepared is a batch of the build's, decoded.
type prepared struct {
	b            build
	rounds       [][]catalog.Change
	titleChanges []catalog.TitleChange
}

// Apply implements processor.Prepared: the build's Apply, of the batch Prepare decoded.
func (p prepared) Apply(ctx context.Context, from, to processor.Position) error {
	return p.b.writes.ApplyAdding(ctx, from, to, func(tx pgx.Tx, batch *pgx.Batch, fresh bool) error {
		rounds := p.rounds
		if fresh {
			var err error
			if rounds, err = copyNewBooks(ctx, tx, rounds); err != nil {
				return err
			}
		}
		for _, round := range rounds {
			queueCatalogRound(batch, round, p.b.missing)
		}
		return queueTitleChanges(ctx, tx, batch, p.titleChanges, fresh)
	})
}

// addBooksSQL adds the books of a round's BookAdded events ($1 to $4: ids, titles, authors,
// versions), or adds them again under a new title, as one statement: a round holds a book once.
const addBooksSQL = `
INSERT INTO catalog_books (book_id, title, author, version)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[])
ON CONFLICT (book_id) DO UPDATE SET title = excluded.title, author = excluded.author, version = excluded.version,
  loan_id = NULL, member_id = NULL, lent_at = NULL, due_at = NULL, held_by = NULL, held_until = NULL`

// queueCatalogRound adds a round's changes to b (processor.Rounds): its books added in one
// statement, each other change in one of its own.
func queueCatalogRound(b *pgx.Batch, round []catalog.Change, missing bool) {
	var ids, names, authors []string
	var versions []int64
	for _, c := range round {
		added, ok := c.Event.(books.BookAdded)
		if !ok {
			queueCatalogChange(b, c, missing)
			continue
		}
		ids, names, authors, versions = append(ids, c.BookID), append(names, added.Title), append(authors, added.Author), append(versions, c.Version)
	}
	if len(ids) > 0 {
		b.Queue(addBooksSQL, ids, names, authors, versions)
	}
}

// dueAtSQL moves the due time of loan $3, a renewal's or a move's (books.DueDateMoved), when it
// is the book's current one.
const dueAtSQL = `
UPDATE catalog_books SET version = $2, due_at = CASE WHEN loan_id = $3 THEN $4 ELSE due_at END WHERE book_id = $1`

func queueCatalogChange(b *pgx.Batch, c catalog.Change, missing bool) {
	switch e := c.Event.(type) {
	case books.LoanLost, books.ClaimedReturned, books.LostCopyReturned:
		if !missing {
			b.Queue(`UPDATE catalog_books SET version = $2 WHERE book_id = $1`, c.BookID, c.Version)
			return
		}
		// The loan ended; the copy is on no shelf (lost, claimed returned), or back on one.
		b.Queue(`
UPDATE catalog_books SET version = $2, loan_id = NULL, member_id = NULL, lent_at = NULL, due_at = NULL, missing = $3
WHERE book_id = $1`, c.BookID, c.Version, nullIfEmpty(catalog.MissingOf(e)))
	case books.BookAdded:
		b.Queue(addBooksSQL, []string{c.BookID}, []string{e.Title}, []string{e.Author}, []int64{c.Version})
	case books.BookLent:
		b.Queue(`UPDATE catalog_books SET version = $2, loan_id = $3, member_id = $4, lent_at = $5, due_at = $6 WHERE book_id = $1`,
			c.BookID, c.Version, e.LoanID, e.MemberID, e.LentAt, e.DueAt)
	case books.LoanRenewed:
		b.Queue(dueAtSQL, c.BookID, c.Version, e.LoanID, e.DueAt)
	case books.DueDateMoved:
		b.Queue(dueAtSQL, c.BookID, c.Version, e.LoanID, e.DueAt)
	case books.BookReturned:
		b.Queue(`UPDATE catalog_books SET version = $2, loan_id = NULL, member_id = NULL, lent_at = NULL, due_at = NULL WHERE book_id = $1`,
			c.BookID, c.Version)
	case books.BookHeld:
		b.Queue(`UPDATE catalog_books SET version = $2, held_by = $3, held_until = $4 WHERE book_id = $1`,
			c.BookID, c.Version, catalog.HolderTag(c.BookID, e.MemberID), e.Until)
	case books.HoldCancelled:
		// Only the holder's cancel takes the book off the hold shelf; both sides of SET read
		// the row as it was.
		b.Queue(`
UPDATE catalog_books SET version = $2,
  held_by = CASE WHEN held_by = $3 THEN NULL ELSE held_by END, held_until = CASE WHEN held_by = $3 THEN NULL ELSE held_until END
WHERE book_id = $1`, c.BookID, c.Version, catalog.HolderTag(c.BookID, e.MemberID))
	case books.HoldExpired, books.HoldFulfilled:
		b.Queue(`UPDATE catalog_books SET version = $2, held_by = NULL, held_until = NULL WHERE book_id = $1`, c.BookID, c.Version)
	default:
		b.Queue(`UPDATE catalog_books SET version = $2 WHERE book_id = $1`, c.BookID, c.Version)
	}
}

// List implements Catalog. Rows and position are read in one snapshot, so the position says
// exactly which events the rows include.
func (c *Postgres) List(ctx context.Context, f catalog.Filter) (catalog.Page, processor.Position, error) {
	if err := f.Check(); err != nil {
		return catalog.Page{}, processor.Position{}, err
	}
	var page catalog.Page
	pos, err := c.reads.ReadVersion(ctx, func(tx pgx.Tx, version int) error {
		rows, err := readPage(ctx, tx, version, f)
		if err != nil {
			return err
		}
		books, err := pgx.CollectRows(rows, scanCatalogBook)
		if err != nil {
			return err
		}
		page = catalog.Page{Books: books, More: len(books) > f.PageSize()}
		if page.More {
			page.Books = books[:f.PageSize()]
		}
		if page.Books == nil {
			page.Books = []catalog.Book{}
		}
		return nil
	})
	if err != nil {
		return catalog.Page{}, processor.Position{}, err
	}
	return page, pos, nil
}

// readPage sends the page's query of a build of version: it keeps copies on no shelf from
// catalog.MissingFrom.
func readPage(ctx context.Context, tx pgx.Tx, version int, f catalog.Filter) (pgx.Rows, error) {
	if version < catalog.MissingFrom {
		return tx.Query(ctx, pageQueryBefore, pageArgs(f)...)
	}
	return tx.Query(ctx, pageQuery, pageArgs(f)...)
}

// pageQuery reads one page of a build from catalog.MissingFrom, and one book more to tell
// whether there is a next page. $1 is the id to start after (empty for the first page: every id
// sorts after it), $2 the status (empty for any: a book on loan is lent, one on the hold shelf
// and not on loan held, one on no shelf lost or claimedReturned, as its column missing says),
// $3 to $12 the LIKE patterns of up to catalog.MaxSearchWords words (NULL where there are
// fewer), $13 the number of rows. search_text is the folded title and author
// (migrations/00007_catalog_search.sql). Planned with its values, the conditions of an unused
// filter fold away: the first page is the primary key's first rows, a search a trigram index
// scan (or, for a word in most books, the primary key's order, filtered).
const pageQuery = `
SELECT book_id, title, author, version, loan_id, member_id, lent_at, due_at, held_until IS NOT NULL, missing FROM catalog_books
WHERE book_id > $1
  AND (` + pageStatuses + `
    OR ($2 = 'available' AND loan_id IS NULL AND held_until IS NULL AND missing IS NULL)
    OR ($2 IN ('lost', 'claimedReturned') AND missing = $2))
` + pageWords

// pageQueryBefore is pageQuery for a build older than catalog.MissingFrom, which has no column
// missing: it finds no copy on no shelf.
const pageQueryBefore = `
SELECT book_id, title, author, version, loan_id, member_id, lent_at, due_at, held_until IS NOT NULL, NULL::text FROM catalog_books
WHERE book_id > $1
  AND (` + pageStatuses + `
    OR ($2 = 'available' AND loan_id IS NULL AND held_until IS NULL))
` + pageWords

// pageStatuses are the statuses every build tells alike: any, lent, held.
const pageStatuses = `$2 = '' OR ($2 = 'lent' AND loan_id IS NOT NULL) OR ($2 = 'held' AND loan_id IS NULL AND held_until IS NOT NULL)`

// pageWords is the rest of a page's query: its words, its order and its limit.
const pageWords = `  AND ($3::text IS NULL OR search_text LIKE $3)
  AND ($4::text IS NULL OR search_text LIKE $4)
  AND ($5::text IS NULL OR search_text LIKE $5)
  AND ($6::text IS NULL OR search_text LIKE $6)
  AND ($7::text IS NULL OR search_text LIKE $7)
  AND ($8::text IS NULL OR search_text LIKE $8)
  AND ($9::text IS NULL OR search_text LIKE $9)
  AND ($10::text IS NULL OR search_text LIKE $10)
  AND ($11::text IS NULL OR search_text LIKE $11)
  AND ($12::text IS NULL OR search_text LIKE $12)
ORDER BY book_id
LIMIT $13`

// pageArgs are pageQuery's parameters for a filter, after the mode to send it in: as an
// unnamed statement, which the server plans with its values every time, never generically,
// since a generic plan can neither drop the conditions of the filters not used nor see how
// common a word is.
func pageArgs(f catalog.Filter) []any {
	args := make([]any, 0, 4+catalog.MaxSearchWords)
	args = append(args, pgx.QueryExecModeCacheDescribe, f.After, f.Status)
	for i := range catalog.MaxSearchWords {
		if i < len(f.Words) {
			args = append(args, likePattern(f.Words[i]))
		} else {
			args = append(args, nil)
		}
	}
	return append(args, f.PageSize()+1)
}

// likeEscaper escapes LIKE's wildcards and its escape character, the backslash.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

// likePattern is the LIKE pattern that finds word anywhere in a text.
func likePattern(word string) string {
	return "%" + likeEscaper.Replace(word) + "%"
}

func scanCatalogBook(row pgx.CollectableRow) (catalog.Book, error) {
	var b catalog.Book
	var loanID, memberID *string
	var lentAt, dueAt *time.Time
	var held bool
	var missing *string
	if err := row.Scan(&b.ID, &b.Title, &b.Author, &b.Version, &loanID, &memberID, &lentAt, &dueAt, &held, &missing); err != nil {
		return b, err
	}
	if loanID != nil && memberID != nil && lentAt != nil && dueAt != nil {
		b.Loan = &books.Loan{LoanID: *loanID, MemberID: *memberID, LentAt: lentAt.UTC(), DueAt: dueAt.UTC()}
	}
	b.Status = catalog.StatusOf(b.Loan != nil, held)
	if missing != nil {
		b.Status = *missing
	}
	return b, nil
}

// Position implements Catalog.
func (c *Postgres) Position(ctx context.Context) (processor.Position, error) {
	return c.reads.Position(ctx)
}

// nullIfEmpty is s, or NULL for "".
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
