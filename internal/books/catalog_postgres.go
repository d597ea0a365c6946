package books

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/eventstore"
	"library/internal/pgerr"
	"library/internal/processor"
)

// PostgresCatalog is the catalog in the catalog_books table (migrations/00003_catalog.sql).
// Every replica reads it; only the holder of the catalog lease writes it, in the transaction
// that moves the catalog's checkpoint.
type PostgresCatalog struct {
	pool        *pgxpool.Pool
	checkpoints *processor.PostgresCheckpoints
}

var _ Catalog = (*PostgresCatalog)(nil)

// NewPostgresCatalog returns the catalog kept through pool.
func NewPostgresCatalog(pool *pgxpool.Pool, checkpoints *processor.PostgresCheckpoints) *PostgresCatalog {
	return &PostgresCatalog{pool: pool, checkpoints: checkpoints}
}

func translate(ctx context.Context, err error) error {
	return pgerr.Translate(ctx, err, "the catalog")
}

// Apply implements processor.ViewModel: one transaction writes the batch's changes and moves
// the checkpoint, or, when the checkpoint has moved meanwhile, writes nothing.
func (c *PostgresCatalog) Apply(ctx context.Context, from, to processor.Position, events []eventstore.Event) error {
	changes, err := catalogChanges(events)
	if err != nil {
		return err
	}
	return c.inTx(ctx, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		for _, ch := range changes {
			queueCatalogChange(batch, ch)
		}
		if batch.Len() > 0 {
			if err := tx.SendBatch(ctx, batch).Close(); err != nil {
				return translate(ctx, err)
			}
		}
		return c.checkpoints.SaveTx(ctx, tx, CatalogName, from, to)
	})
}

func queueCatalogChange(b *pgx.Batch, c catalogChange) {
	switch e := c.Event.(type) {
	case BookAdded:
		b.Queue(`
INSERT INTO catalog_books (book_id, title, author, version) VALUES ($1, $2, $3, $4)
ON CONFLICT (book_id) DO UPDATE SET title = excluded.title, author = excluded.author, version = excluded.version,
  loan_id = NULL, member_id = NULL, lent_at = NULL, due_at = NULL`, c.BookID, e.Title, e.Author, c.Version)
	case BookLent:
		b.Queue(`UPDATE catalog_books SET version = $2, loan_id = $3, member_id = $4, lent_at = $5, due_at = $6 WHERE book_id = $1`,
			c.BookID, c.Version, e.LoanID, e.MemberID, e.LentAt, e.DueAt)
	case BookReturned:
		b.Queue(`UPDATE catalog_books SET version = $2, loan_id = NULL, member_id = NULL, lent_at = NULL, due_at = NULL WHERE book_id = $1`,
			c.BookID, c.Version)
	default:
		b.Queue(`UPDATE catalog_books SET version = $2 WHERE book_id = $1`, c.BookID, c.Version)
	}
}

// Reset implements processor.ViewModel.
func (c *PostgresCatalog) Reset(ctx context.Context, from processor.Position) error {
	return c.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM catalog_books`); err != nil {
			return translate(ctx, err)
		}
		return c.checkpoints.SaveTx(ctx, tx, CatalogName, from, processor.Position{Generation: from.Generation + 1})
	})
}

func (c *PostgresCatalog) inTx(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := c.pool.Begin(ctx)
	if err != nil {
		return translate(ctx, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return translate(ctx, tx.Commit(ctx))
}

// List implements Catalog. Rows and position are read in one snapshot, so the position says
// exactly which events the rows include.
func (c *PostgresCatalog) List(ctx context.Context, status string) ([]CatalogBook, processor.Position, error) {
	tx, err := c.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, processor.Position{}, translate(ctx, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	rows, err := tx.Query(ctx, `
SELECT book_id, title, author, version, loan_id, member_id, lent_at, due_at FROM catalog_books
WHERE $1 = '' OR ($1 = 'lent') = (loan_id IS NOT NULL)
ORDER BY book_id COLLATE "C"`, status)
	if err != nil {
		return nil, processor.Position{}, translate(ctx, err)
	}
	books, err := pgx.CollectRows(rows, scanCatalogBook)
	if err != nil {
		return nil, processor.Position{}, translate(ctx, err)
	}
	if books == nil {
		books = []CatalogBook{}
	}
	var pos processor.Position
	err = tx.QueryRow(ctx, `SELECT generation, transaction_id, position FROM processor_checkpoints WHERE name = $1`, CatalogName).
		Scan(&pos.Generation, &pos.Checkpoint.TransactionID, &pos.Checkpoint.Position)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return nil, processor.Position{}, translate(ctx, err)
	}
	return books, pos, nil
}

func scanCatalogBook(row pgx.CollectableRow) (CatalogBook, error) {
	var b CatalogBook
	var loanID, memberID *string
	var lentAt, dueAt *time.Time
	if err := row.Scan(&b.ID, &b.Title, &b.Author, &b.Version, &loanID, &memberID, &lentAt, &dueAt); err != nil {
		return b, err
	}
	b.Status = "available"
	if loanID != nil && memberID != nil && lentAt != nil && dueAt != nil {
		b.Status = "lent"
		b.Loan = &Loan{LoanID: *loanID, MemberID: *memberID, LentAt: lentAt.UTC(), DueAt: dueAt.UTC()}
	}
	return b, nil
}

// Position implements Catalog.
func (c *PostgresCatalog) Position(ctx context.Context) (processor.Position, error) {
	return c.checkpoints.Load(ctx, CatalogName)
}
