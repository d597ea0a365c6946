// Package holdspg keeps the holds view in PostgreSQL, in the holds table: a batch's rows and
// the view's checkpoint move in one transaction, and a page and its position are read in one
// snapshot (package holds says what the view promises).
package holdspg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/eventstore"
	"library/internal/holds"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
)

// Postgres is the view in the holds and holds_books tables (migrations/00013_holds_view.sql).
// Every replica reads it; only the holder of the holds lease writes it, in the transaction that
// moves the view's checkpoint.
type Postgres struct {
	pool        *pgxpool.Pool
	checkpoints *pgdriver.Checkpoints
	reads       pgdriver.ViewReads
}

var _ holds.View = (*Postgres)(nil)

// New returns the view of this code's version kept through pool, its builds in checkpoints.
func New(pool *pgxpool.Pool, checkpoints *pgdriver.Checkpoints) *Postgres {
	return NewAt(pool, checkpoints, holds.Versions(0))
}

// NewAt is New for other versions of the view's code (tests).
func NewAt(pool *pgxpool.Pool, checkpoints *pgdriver.Checkpoints, versions processor.Versions) *Postgres {
	return &Postgres{pool: pool, checkpoints: checkpoints,
		reads: pgdriver.ViewReads{Pool: pool, View: holds.Name, Versions: versions, What: "the holds view"}}
}

// Versions implements processor.View.
func (p *Postgres) Versions() processor.Versions { return p.reads.Versions }

// Build implements processor.View: a build's tables, made by tablesSQL in the build's schema
// the first time.
func (p *Postgres) Build(ctx context.Context, b processor.Build) (processor.ViewModel, error) {
	err := p.checkpoints.MakeTables(ctx, b, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, tablesSQL)
		return err
	})
	if err != nil {
		return nil, err
	}
	return build{writes: pgdriver.ViewTx{Pool: p.pool, Checkpoints: p.checkpoints, Build: b, What: "the holds view"}}, nil
}

// build is one build's tables.
type build struct {
	writes pgdriver.ViewTx
}

// Apply implements processor.ViewModel: one transaction writes the batch's changes and moves
// the checkpoint, or, when the checkpoint has moved meanwhile, writes nothing.
func (b build) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	changes, err := holds.Changes(events)
	if err != nil {
		return err
	}
	rounds := processor.Rounds(changes, queueOf)
	return b.writes.ApplyAdding(ctx, from, to, func(_ pgx.Tx, batch *pgx.Batch, fresh bool) error {
		for _, round := range rounds {
			queueRound(batch, round, fresh)
		}
		return nil
	})
}

// queueOf is the queue (a book's, or a title's) a change touches; an erasure touches every
// queue of its member.
func queueOf(c holds.Change) (string, bool) {
	switch c := c.(type) {
	case holds.Titled:
		return c.BookID, true
	case holds.Renamed:
		return c.BookID, true
	case holds.Placed:
		return c.Hold.BookID, true
	case holds.Held:
		return c.BookID, true
	case holds.Ended:
		return c.BookID, true
	}
	return "", false
}

// titledSQL adds the queues of a round ($1 ids, $2 titles), or names them anew, in one
// statement, and empties them: a round holds a queue once (processor.Rounds). addedSQL adds
// them, all new (pgdriver.ViewTx.ApplyAdding), and empties them as titledSQL does.
const (
	titledSQL = `
WITH titled AS (` + addQueuesSQL + `
  ON CONFLICT (book_id) DO UPDATE SET title = excluded.title
)` + emptyQueuesSQL
	addedSQL = `
WITH titled AS (` + addQueuesSQL + `
)` + emptyQueuesSQL
	addQueuesSQL   = `INSERT INTO holds_books (book_id, title) SELECT * FROM unnest($1::text[], $2::text[])`
	emptyQueuesSQL = `
DELETE FROM holds WHERE book_id = ANY($1)`
)

// queueRound adds a round's changes to b: its queues titled in one statement (added, when
// fresh), each other change in statements of its own.
func queueRound(b *pgx.Batch, round []holds.Change, fresh bool) {
	var ids, names []string
	for _, c := range round {
		if t, ok := c.(holds.Titled); ok {
			ids, names = append(ids, t.BookID), append(names, t.Title)
			continue
		}
		queueChange(b, c)
	}
	switch {
	case len(ids) > 0 && fresh:
		b.Queue(addedSQL, ids, names)
	case len(ids) > 0:
		b.Queue(titledSQL, ids, names)
	}
}

func queueChange(b *pgx.Batch, c holds.Change) {
	switch c := c.(type) {
	case holds.Titled:
		b.Queue(titledSQL, []string{c.BookID}, []string{c.Title})
	case holds.Renamed:
		b.Queue(`UPDATE holds_books SET title = $2 WHERE book_id = $1`, c.BookID, c.Title)
	case holds.Placed:
		h := c.Hold
		b.Queue(`
INSERT INTO holds (book_id, seq, member_id, placed_at) VALUES ($1, $2, $3, $4)
ON CONFLICT (book_id, member_id) DO UPDATE SET seq = excluded.seq, placed_at = excluded.placed_at, held_until = NULL`,
			h.BookID, h.Seq, h.MemberID, h.PlacedAt)
	case holds.Held:
		b.Queue(`UPDATE holds SET held_until = $3 WHERE book_id = $1 AND member_id = $2 AND held_until IS NULL`,
			c.BookID, c.MemberID, c.Until)
	case holds.Ended:
		b.Queue(`DELETE FROM holds WHERE book_id = $1 AND member_id = $2`, c.BookID, c.MemberID)
	case holds.Erased:
		b.Queue(`DELETE FROM holds WHERE member_id = $1`, c.MemberID)
	}
}

// List implements View. Rows, places and position are read in one snapshot, so the position
// says exactly which events they include.
func (p *Postgres) List(ctx context.Context, f holds.Filter) (holds.Page, processor.Position, error) {
	if err := f.Check(); err != nil {
		return holds.Page{}, processor.Position{}, err
	}
	var page holds.Page
	pos, err := p.reads.Read(ctx, func(tx pgx.Tx) error {
		var rows pgx.Rows
		var err error
		if f.Shelf() {
			rows, err = tx.Query(ctx, shelfQuery, shelfArgs(f)...)
		} else {
			rows, err = tx.Query(ctx, queueQuery, queueArgs(f)...)
		}
		if err != nil {
			return err
		}
		found, err := pgx.CollectRows(rows, scanHold)
		if err != nil {
			return err
		}
		page = holds.Page{Holds: found, More: len(found) > f.PageSize(), Shelf: f.Shelf()}
		if page.More {
			page.Holds = found[:f.PageSize()]
		}
		if page.Holds == nil {
			page.Holds = []holds.Hold{}
		}
		return nil
	})
	if err != nil {
		return holds.Page{}, processor.Position{}, err
	}
	return page, pos, nil
}

// queueQuery reads one page in the queues' order, and one hold more to tell whether there is a
// next page. $1 is the member id (empty for everyone's), $2 the book id (empty for every
// book's), $3 the status (empty for both), $4 whether there is a page before, whose last key is
// $5, $6; $7 the number of rows. A waiting hold's place is 1 and the number of its book's
// waiting holds before it, which the partial index holds_waiting counts. Planned with its
// values, the conditions of an unused filter fold away, and the primary key (or holds_member,
// for a member's) serves the order.
const queueQuery = `
SELECT h.book_id, coalesce(b.title, ''), h.member_id, h.seq, h.placed_at, h.held_until,
  CASE WHEN h.held_until IS NULL THEN
    (SELECT count(*) FROM holds q WHERE q.book_id = h.book_id AND q.held_until IS NULL AND q.seq <= h.seq)
  ELSE 0 END
FROM holds h LEFT JOIN holds_books b ON b.book_id = h.book_id
WHERE ($1 = '' OR h.member_id = $1)
  AND ($2 = '' OR h.book_id = $2)
  AND ($3 = '' OR ($3 = 'ready') = (h.held_until IS NOT NULL))
  AND (NOT $4 OR (h.book_id, h.seq) > ($5::text COLLATE "C", $6::bigint))
ORDER BY h.book_id, h.seq
LIMIT $7`

// shelfQuery reads one page of the hold shelf, soonest to leave first, and one hold more.
// $1 is the member id, $2 the book id (each empty for any), $3 whether there is a page before,
// whose last key is $4, $5, $6; $7 the number of rows. The partial index holds_shelf serves it.
const shelfQuery = `
SELECT h.book_id, coalesce(b.title, ''), h.member_id, h.seq, h.placed_at, h.held_until, 0
FROM holds h LEFT JOIN holds_books b ON b.book_id = h.book_id
WHERE h.held_until IS NOT NULL
  AND ($1 = '' OR h.member_id = $1)
  AND ($2 = '' OR h.book_id = $2)
  AND (NOT $3 OR (h.held_until, h.book_id, h.seq) > ($4::timestamptz, $5::text COLLATE "C", $6::bigint))
ORDER BY h.held_until, h.book_id, h.seq
LIMIT $7`

// shelfArgs and queueArgs are the parameters of a filter's page, after the mode to send its
// query in: as an unnamed statement, which the server plans with its values every time, never
// generically, since a generic plan can't drop the conditions of the filters not used.
func shelfArgs(f holds.Filter) []any {
	after := f.AfterKey()
	return []any{pgx.QueryExecModeCacheDescribe, f.MemberID, f.BookID, f.After != nil, after.Until, after.BookID, after.Seq,
		f.PageSize() + 1}
}

func queueArgs(f holds.Filter) []any {
	after := f.AfterKey()
	return []any{pgx.QueryExecModeCacheDescribe, f.MemberID, f.BookID, f.Status, f.After != nil, after.BookID, after.Seq,
		f.PageSize() + 1}
}

func scanHold(row pgx.CollectableRow) (holds.Hold, error) {
	var h holds.Hold
	var until *time.Time
	var place int64
	if err := row.Scan(&h.BookID, &h.Title, &h.MemberID, &h.Seq, &h.PlacedAt, &until, &place); err != nil {
		return h, err
	}
	h.PlacedAt, h.Place = h.PlacedAt.UTC(), int(place)
	if until != nil {
		h.Until = until.UTC()
	}
	return h, nil
}
