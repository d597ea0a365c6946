package pgdriver

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/pgerr"
	"library/internal/processor"
)

// ViewTx writes a view model's rows in PostgreSQL in the transaction that moves its checkpoint,
// so that the rows hold exactly the events the checkpoint says were read; when the checkpoint
// has moved meanwhile (another holder wrote first), the transaction writes nothing.
type ViewTx struct {
	Pool        *pgxpool.Pool
	Checkpoints *Checkpoints
	Name        string // the view's processor name: its checkpoint's key
	What        string // what the view is called in errors: "the catalog"
}

// Apply sends the statements queue adds to one batch, then moves the checkpoint from from to to.
func (v ViewTx) Apply(ctx context.Context, from, to processor.Position, queue func(*pgx.Batch)) error {
	return v.InTx(ctx, func(tx pgx.Tx) error {
		batch := &pgx.Batch{}
		queue(batch)
		if batch.Len() > 0 {
			if err := tx.SendBatch(ctx, batch).Close(); err != nil {
				return pgerr.Translate(ctx, err, v.What)
			}
		}
		return v.Checkpoints.SaveTx(ctx, tx, v.Name, from, to)
	})
}

// Reset runs empty, which deletes the view's rows, and starts its checkpoint's next generation,
// in one transaction.
func (v ViewTx) Reset(ctx context.Context, from processor.Position, empty func(pgx.Tx) error) error {
	return v.InTx(ctx, func(tx pgx.Tx) error {
		if err := empty(tx); err != nil {
			return pgerr.Translate(ctx, err, v.What)
		}
		return v.Checkpoints.SaveTx(ctx, tx, v.Name, from, processor.Position{Generation: from.Generation + 1})
	})
}

// InTx runs fn in a transaction and commits it unless fn fails.
func (v ViewTx) InTx(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := v.Pool.Begin(ctx)
	if err != nil {
		return pgerr.Translate(ctx, err, v.What)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	if err := fn(tx); err != nil {
		return err
	}
	return pgerr.Translate(ctx, tx.Commit(ctx), v.What)
}
