package pgdriver

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/errs"
	"library/internal/pgerr"
	"library/internal/processor"
)

// A view's statements name its tables without a schema: the same constant statements serve
// every build, and the search path of each transaction says where the build's tables are.

// ViewTx writes a build of a view model in PostgreSQL, in the transaction that moves the build's
// checkpoint, so that the rows hold exactly the events the checkpoint says were read; when the
// checkpoint has moved meanwhile (another holder wrote first), the transaction writes nothing.
type ViewTx struct {
	Pool        *pgxpool.Pool
	Checkpoints *Checkpoints
	Build       processor.Build
	What        string // what the view is called in errors: "the catalog"
}

// enterBuildSQL begins a write of a build: it locks the build's row for share, so that a
// takeover or a drop waits for the write, puts the build's schema first in the search path,
// and has the transaction commit without waiting for the disk (see the package comment).
// No row: the build was dropped.
const enterBuildSQL = `
SELECT set_config('search_path', coalesce(schema_name || ', ', '') || current_setting('search_path'), true),
  set_config('synchronous_commit', 'off', true)
FROM view_builds WHERE view = $1 AND build = $2 AND created AND state <> 'dropped' FOR SHARE`

// Apply sends the statements queue adds to one batch, then moves the checkpoint from from to to.
func (v ViewTx) Apply(ctx context.Context, from, to processor.Position, queue func(*pgx.Batch)) error {
	return v.ApplyRead(ctx, from, to, func(_ pgx.Tx, batch *pgx.Batch) error {
		queue(batch)
		return nil
	})
}

// ApplyRead is Apply for a view whose writes depend on what its tables hold: queue may read
// them in tx, in the transaction that writes the batch, before it adds the batch's statements.
func (v ViewTx) ApplyRead(ctx context.Context, from, to processor.Position, queue func(tx pgx.Tx, batch *pgx.Batch) error) error {
	return v.InTx(ctx, func(tx pgx.Tx) error { return v.write(ctx, tx, from, to, queue, false) })
}

// ApplyAdding is ApplyRead for a view whose batches add rows by key, nearly all of them new (a
// book, a title: added once, and seldom again). queue is called first with fresh set, and
// adds those rows with a plain INSERT, which costs PostgreSQL about half of an INSERT ... ON
// CONFLICT DO UPDATE (no speculative insertion and no second look at the unique index). When
// one of them finds its key taken (a row added again, or written meanwhile by a holder that
// was fenced), that transaction is rolled back, having written nothing, and the batch is
// written again with fresh unset, its rows added as upserts. Either way the rows end as the
// upserts leave them, so queue must add the same rows both ways. Fresh rows may also be
// written by queue itself in tx (a COPY), which fails the same way.
func (v ViewTx) ApplyAdding(ctx context.Context, from, to processor.Position, queue func(tx pgx.Tx, batch *pgx.Batch, fresh bool) error) error {
	err := v.InTx(ctx, func(tx pgx.Tx) error {
		return v.write(ctx, tx, from, to, func(tx pgx.Tx, batch *pgx.Batch) error { return queue(tx, batch, true) }, true)
	})
	if !errors.Is(err, errTaken) {
		return err
	}
	return v.ApplyRead(ctx, from, to, func(tx pgx.Tx, batch *pgx.Batch) error { return queue(tx, batch, false) })
}

// errTaken is a batch written fresh (ApplyAdding) that added a row whose key was taken.
var errTaken = errors.New("a row added as new was there")

// write sends what queue adds to batch in tx, then moves the checkpoint from from to to. A
// batch written fresh whose statements (queue's own, or the batch's) find a key taken fails
// with errTaken.
func (v ViewTx) write(ctx context.Context, tx pgx.Tx, from, to processor.Position, queue func(tx pgx.Tx, batch *pgx.Batch) error, fresh bool) error {
	failed := func(err error) error {
		if fresh && pgerr.Code(err) == pgerr.UniqueViolation {
			return errTaken
		}
		return pgerr.Translate(ctx, err, v.What)
	}
	batch := &pgx.Batch{}
	if err := queue(tx, batch); err != nil {
		return failed(err)
	}
	if batch.Len() > 0 {
		if err := tx.SendBatch(ctx, batch).Close(); err != nil {
			return failed(err)
		}
	}
	return v.Checkpoints.SaveTx(ctx, tx, v.Build.Name(), from, to)
}

// AtCheckpoint runs fn in a transaction on the build's tables, with the build's checkpoint
// locked where the caller read it, at, and commits it unless fn fails: processor.ErrFenced,
// and nothing done, when the checkpoint moved (another holder runs the build). A write that
// moves no checkpoint (a change of the tables' indexes) is fenced by it as Apply's are.
func (v ViewTx) AtCheckpoint(ctx context.Context, at processor.Position, fn func(pgx.Tx) error) error {
	return v.InTx(ctx, func(tx pgx.Tx) error {
		if err := v.Checkpoints.LockTx(ctx, tx, v.Build.Name(), at); err != nil {
			return err
		}
		return pgerr.Translate(ctx, fn(tx), v.What)
	})
}

// InTx runs fn in a transaction on the build's tables and commits it unless fn fails;
// processor.ErrBuildGone when the build was dropped.
func (v ViewTx) InTx(ctx context.Context, fn func(pgx.Tx) error) error {
	tx, err := v.Pool.Begin(ctx)
	if err != nil {
		return pgerr.Translate(ctx, err, v.What)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }() // a no-op after Commit
	var path, commit string
	err = tx.QueryRow(ctx, enterBuildSQL, v.Build.View, v.Build.Number).Scan(&path, &commit)
	if errors.Is(err, pgx.ErrNoRows) {
		return processor.ErrBuildGone
	}
	if err != nil {
		return pgerr.Translate(ctx, err, v.What)
	}
	if err := fn(tx); err != nil {
		return err
	}
	return pgerr.Translate(ctx, tx.Commit(ctx), v.What)
}

// ViewReads reads a view model in PostgreSQL from the build that reads go to
// (processor.ReadBuild), with that build's position, in one snapshot.
type ViewReads struct {
	Pool     *pgxpool.Pool
	View     string
	Versions processor.Versions
	What     string // what the view is called in errors: "the catalog"
}

// readBuildSQL chooses the build to read and its position, and makes the build's schema the
// whole search path (for a view's first build, the path stays as it is), so that a build
// dropped in the meantime fails the read rather than let it find other tables of the same
// names.
const readBuildSQL = `
SELECT set_config('search_path', coalesce(r.schema_name, current_setting('search_path')), true),
  r.version, r.generation, r.transaction_id, r.position
FROM (` + readPositionSQL + `) r`

// readPositionSQL is the build to read, its version, and its position.
const readPositionSQL = `
SELECT b.schema_name, b.version, coalesce(c.generation, 0) AS generation, coalesce(c.transaction_id, '0') AS transaction_id,
  coalesce(c.position, 0) AS position
FROM view_builds b LEFT JOIN processor_checkpoints c ON c.name = b.processor
WHERE b.view = $1 AND b.version BETWEEN $2 AND $3 AND b.state IN ('answering', 'retired')
ORDER BY b.version DESC, b.build DESC
LIMIT 1`

// Read runs read in a read-only, repeatable-read transaction on the build that reads go to,
// and returns that build's position as of the same snapshot: the events its rows include. It is
// an errs.Unavailable error while no build the code reads has caught up.
func (v ViewReads) Read(ctx context.Context, read func(pgx.Tx) error) (processor.Position, error) {
	return v.ReadVersion(ctx, func(tx pgx.Tx, _ int) error { return read(tx) })
}

// ReadVersion is Read for a read that depends on the version of the code that built the build
// it reads (a table that only later versions have): read is told that version.
func (v ViewReads) ReadVersion(ctx context.Context, read func(tx pgx.Tx, version int) error) (processor.Position, error) {
	tx, err := v.Pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return processor.Position{}, v.translate(ctx, err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var path string
	var version int
	var pos processor.Position
	err = tx.QueryRow(ctx, readBuildSQL, v.View, v.Versions.ReadsFrom, v.Versions.Code).
		Scan(&path, &version, &pos.Generation, &pos.Checkpoint.TransactionID, &pos.Checkpoint.Position)
	if errors.Is(err, pgx.ErrNoRows) {
		return processor.Position{}, processor.NoBuildToRead(v.View)
	}
	if err != nil {
		return processor.Position{}, v.translate(ctx, err)
	}
	if err := read(tx, version); err != nil {
		return processor.Position{}, v.translate(ctx, err)
	}
	return pos, nil
}

// Position is the position of the build that reads go to.
func (v ViewReads) Position(ctx context.Context) (processor.Position, error) {
	var schema *string
	var version int
	var pos processor.Position
	err := v.Pool.QueryRow(ctx, readPositionSQL, v.View, v.Versions.ReadsFrom, v.Versions.Code).
		Scan(&schema, &version, &pos.Generation, &pos.Checkpoint.TransactionID, &pos.Checkpoint.Position)
	if errors.Is(err, pgx.ErrNoRows) {
		return processor.Position{}, processor.NoBuildToRead(v.View)
	}
	return pos, v.translate(ctx, err)
}

// translate is pgerr's, but for a read of tables that were dropped meanwhile (a build retired
// and dropped while this replica was silent): that is unavailable, for a moment.
func (v ViewReads) translate(ctx context.Context, err error) error {
	var own *errs.Error
	if err == nil || errors.As(err, &own) {
		return err
	}
	if pgerr.Code(err) == "42P01" { // undefined_table
		return errs.Wrap(errs.Unavailable, errors.New(err.Error()), "%s was rebuilt meanwhile; try again", v.What)
	}
	return pgerr.Translate(ctx, err, v.What)
}
