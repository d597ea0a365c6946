// Package loanspg keeps the loans view in PostgreSQL, in the loans_books table: a batch's rows
// and the view's checkpoint move in one transaction, and a page and its position are read in
// one snapshot (package loans says what the view promises).
package loanspg

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/eventstore"
	"library/internal/loans"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
)

// Postgres is the view in the loans_books table (migrations/00012_loans_view.sql). Every
// replica reads it; only the holder of the loans lease writes it, in the transaction that moves
// the view's checkpoint.
type Postgres struct {
	pool        *pgxpool.Pool
	checkpoints *pgdriver.Checkpoints
	reads       pgdriver.ViewReads
}

var _ loans.View = (*Postgres)(nil)

// New returns the view of this code's version kept through pool, its builds in checkpoints.
func New(pool *pgxpool.Pool, checkpoints *pgdriver.Checkpoints) *Postgres {
	return NewAt(pool, checkpoints, loans.Versions(0))
}

// NewAt is New for other versions of the view's code (tests).
func NewAt(pool *pgxpool.Pool, checkpoints *pgdriver.Checkpoints, versions processor.Versions) *Postgres {
	return &Postgres{pool: pool, checkpoints: checkpoints,
		reads: pgdriver.ViewReads{Pool: pool, View: loans.Name, Versions: versions, What: "the loans view"}}
}

// Versions implements processor.View.
func (p *Postgres) Versions() processor.Versions { return p.reads.Versions }

// Build implements processor.View: a build's tables, made by tablesSQL in the build's schema
// the first time, with movedSQL's columns from loans.MovedFrom.
func (p *Postgres) Build(ctx context.Context, b processor.Build) (processor.ViewModel, error) {
	moved := b.Version >= loans.MovedFrom
	err := p.checkpoints.MakeTables(ctx, b, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, tablesSQL); err != nil || !moved {
			return err
		}
		_, err := tx.Exec(ctx, movedSQL)
		return err
	})
	if err != nil {
		return nil, err
	}
	return build{writes: pgdriver.ViewTx{Pool: p.pool, Checkpoints: p.checkpoints, Build: b, What: "the loans view"}, moved: moved}, nil
}

// build is one build's tables.
type build struct {
	writes pgdriver.ViewTx
	moved  bool // it keeps why a due time moved (movedSQL)
}

// Apply implements processor.ViewModel: one transaction writes the batch's changes and moves
// the checkpoint, or, when the checkpoint has moved meanwhile, writes nothing.
func (b build) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	changes, err := loans.Changes(events)
	if err != nil {
		return err
	}
	rounds := processor.Rounds(changes, bookOf)
	return b.writes.ApplyAdding(ctx, from, to, func(_ pgx.Tx, batch *pgx.Batch, fresh bool) error {
		for _, round := range rounds {
			b.queueRound(batch, round, fresh)
		}
		return nil
	})
}

// bookOf is the book a change touches; an erasure touches every book of its member.
func bookOf(c loans.Change) (string, bool) {
	switch c := c.(type) {
	case loans.Titled:
		return c.BookID, true
	case loans.Lent:
		return c.Loan.BookID, true
	case loans.Renewed:
		return c.BookID, true
	case loans.Moved:
		return c.BookID, true
	case loans.Returned:
		return c.BookID, true
	}
	return "", false
}

// titledSQL adds the books of a round ($1 ids, $2 titles), or names them anew without a loan,
// in one statement: a round holds a book once (processor.Rounds). addedSQL adds them, all new
// (pgdriver.ViewTx.ApplyAdding).
const (
	addedSQL  = `INSERT INTO loans_books (book_id, title) SELECT * FROM unnest($1::text[], $2::text[])`
	titledSQL = addedSQL + `
ON CONFLICT (book_id) DO UPDATE SET title = excluded.title, ` + endLoan
)

// queueRound adds a round's changes to batch: its books titled in one statement (added, when
// fresh), each other change in statements of its own.
func (b build) queueRound(batch *pgx.Batch, round []loans.Change, fresh bool) {
	var ids, names []string
	for _, c := range round {
		if t, ok := c.(loans.Titled); ok {
			ids, names = append(ids, t.BookID), append(names, t.Title)
			continue
		}
		b.queueChange(batch, c)
	}
	switch {
	case len(ids) > 0 && fresh:
		batch.Queue(addedSQL, ids, names)
	case len(ids) > 0:
		batch.Queue(titledSQL, ids, names)
	}
}

// endLoan is what a row holds without a current loan. A build that keeps moves leaves the
// columns of the last one as they were: reads show them with a current loan only, and the next
// loan's lending clears them.
const endLoan = `loan_id = NULL, member_id = NULL, lent_at = NULL, due_at = NULL, renewals = 0`

// unmovedSQL clears why the loan's due time moved, in a build that keeps it (movedSQL), after
// its lending or a renewal: the due time is theirs again.
const unmovedSQL = `UPDATE loans_books SET moved_from = NULL, moved_reason = NULL, moved_date = NULL WHERE book_id = $1 AND loan_id = $2`

// allowedSQL sets the renewals the loan's terms allow, in a build that keeps them (movedSQL).
const allowedSQL = `UPDATE loans_books SET renewals_allowed = $3 WHERE book_id = $1 AND loan_id = $2`

func (b build) queueChange(batch *pgx.Batch, c loans.Change) {
	switch c := c.(type) {
	case loans.Titled:
		batch.Queue(titledSQL, []string{c.BookID}, []string{c.Title})
	case loans.Lent:
		l := c.Loan
		batch.Queue(`UPDATE loans_books SET loan_id = $2, member_id = $3, lent_at = $4, due_at = $5, renewals = 0 WHERE book_id = $1`,
			l.BookID, l.LoanID, l.MemberID, l.LentAt, l.DueAt)
		if b.moved {
			batch.Queue(unmovedSQL, l.BookID, l.LoanID)
			batch.Queue(allowedSQL, l.BookID, l.LoanID, l.RenewalsAllowed)
		}
	case loans.Renewed:
		batch.Queue(`UPDATE loans_books SET due_at = $3, renewals = renewals + 1 WHERE book_id = $1 AND loan_id = $2`,
			c.BookID, c.LoanID, c.DueAt)
		if b.moved {
			batch.Queue(unmovedSQL, c.BookID, c.LoanID)
			if c.RenewalsAllowed != nil {
				batch.Queue(allowedSQL, c.BookID, c.LoanID, c.RenewalsAllowed)
			}
		}
	case loans.Moved:
		if !b.moved {
			batch.Queue(`UPDATE loans_books SET due_at = $3 WHERE book_id = $1 AND loan_id = $2`, c.BookID, c.LoanID, c.DueAt)
			return
		}
		batch.Queue(`
UPDATE loans_books SET due_at = $3, moved_from = $4, moved_reason = $5, moved_date = $6 WHERE book_id = $1 AND loan_id = $2`,
			c.BookID, c.LoanID, c.DueAt, c.Why.From, c.Why.Reason, c.Why.Date)
	case loans.Returned:
		batch.Queue(`UPDATE loans_books SET `+endLoan+` WHERE book_id = $1`, c.BookID)
	case loans.Erased:
		batch.Queue(`UPDATE loans_books SET `+endLoan+` WHERE member_id = $1 AND loan_id IS NOT NULL`, c.MemberID)
	}
}

// List implements View. Rows and position are read in one snapshot, so the position says
// exactly which events the rows include.
func (p *Postgres) List(ctx context.Context, f loans.Filter) (loans.Page, processor.Position, error) {
	if err := f.Check(); err != nil {
		return loans.Page{}, processor.Position{}, err
	}
	var page loans.Page
	pos, err := p.reads.ReadVersion(ctx, func(tx pgx.Tx, version int) error {
		var rows pgx.Rows
		var err error
		if version < loans.MovedFrom {
			rows, err = tx.Query(ctx, pageQueryUnmoved, pageArgs(f)...)
		} else {
			rows, err = tx.Query(ctx, pageQuery, pageArgs(f)...)
		}
		if err != nil {
			return err
		}
		found, err := pgx.CollectRows(rows, scanLoan)
		if err != nil {
			return err
		}
		page = loans.Page{Loans: found, More: len(found) > f.PageSize()}
		if page.More {
			page.Loans = found[:f.PageSize()]
		}
		if page.Loans == nil {
			page.Loans = []loans.Loan{}
		}
		return nil
	})
	if err != nil {
		return loans.Page{}, processor.Position{}, err
	}
	return page, pos, nil
}

// pageQuery reads one page, and one loan more to tell whether there is a next page. $1 is the
// member id (empty for everyone's), $2 the time the loans must be due before (NULL for any),
// $3 whether there is a page before, whose last key is $4, $5, $6; $7 the number of rows.
// Planned with its values, the conditions of an unused filter fold away, and the partial
// indexes of migrations/00012_loans_view.sql serve the order: (due_at, book_id, loan_id) for
// everyone's loans, (member_id, due_at, book_id, loan_id) for a member's.
const pageQuery = `
SELECT book_id, title, loan_id, member_id, lent_at, due_at, renewals, moved_from, moved_reason, moved_date, renewals_allowed FROM loans_books
` + pageWhere

// pageQueryUnmoved is pageQuery on a build older than loans.MovedFrom, which keeps no moves.
const pageQueryUnmoved = `
SELECT book_id, title, loan_id, member_id, lent_at, due_at, renewals, NULL::timestamptz, NULL::text, NULL::text, NULL::integer FROM loans_books
` + pageWhere

const pageWhere = `WHERE loan_id IS NOT NULL
  AND ($1 = '' OR member_id = $1)
  AND ($2::timestamptz IS NULL OR due_at < $2)
  AND (NOT $3 OR (due_at, book_id, loan_id) > ($4::timestamptz, $5::text COLLATE "C", $6::text COLLATE "C"))
ORDER BY due_at, book_id, loan_id
LIMIT $7`

// pageArgs are pageQuery's parameters for a filter, after the mode to send it in: as an
// unnamed statement, which the server plans with its values every time, never generically,
// since a generic plan can't drop the conditions of the filters not used.
func pageArgs(f loans.Filter) []any {
	var dueBefore *time.Time
	if !f.DueBefore.IsZero() {
		dueBefore = &f.DueBefore
	}
	var after loans.Key
	if f.After != nil {
		after = *f.After
	}
	return []any{pgx.QueryExecModeCacheDescribe, f.MemberID, dueBefore, f.After != nil, after.DueAt, after.BookID, after.LoanID,
		f.PageSize() + 1}
}

func scanLoan(row pgx.CollectableRow) (loans.Loan, error) {
	var l loans.Loan
	var movedFrom *time.Time
	var movedReason, movedDate *string
	if err := row.Scan(&l.BookID, &l.Title, &l.LoanID, &l.MemberID, &l.LentAt, &l.DueAt, &l.Renewals,
		&movedFrom, &movedReason, &movedDate, &l.RenewalsAllowed); err != nil {
		return l, err
	}
	l.LentAt, l.DueAt = l.LentAt.UTC(), l.DueAt.UTC()
	if movedFrom != nil && movedReason != nil && movedDate != nil {
		l.DueMoved = &loans.DueMove{From: movedFrom.UTC(), Reason: *movedReason, Date: *movedDate}
	}
	return l, nil
}
