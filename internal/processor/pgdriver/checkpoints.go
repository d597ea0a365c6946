package pgdriver

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/eventstore"
	"library/internal/pgerr"
	"library/internal/processor"
)

// Checkpoints keeps checkpoints, deferred and parked events, and timers in PostgreSQL, in the
// tables of migrations (00002_processors.sql, 00004_deferred.sql, 00011_timers.sql), where
// every replica sees them.
type Checkpoints struct {
	pool *pgxpool.Pool
}

var _ processor.Checkpoints = (*Checkpoints)(nil)

// NewCheckpoints returns checkpoints kept through pool.
func NewCheckpoints(pool *pgxpool.Pool) *Checkpoints {
	return &Checkpoints{pool: pool}
}

func translate(ctx context.Context, err error) error {
	return pgerr.Translate(ctx, err, "the checkpoint store")
}

// Load implements processor.Checkpoints.
func (c *Checkpoints) Load(ctx context.Context, name string) (processor.Position, error) {
	var p processor.Position
	err := c.pool.QueryRow(ctx,
		`SELECT generation, transaction_id, position FROM processor_checkpoints WHERE name = $1`, name).
		Scan(&p.Generation, &p.Checkpoint.TransactionID, &p.Checkpoint.Position)
	if errors.Is(err, pgx.ErrNoRows) {
		return processor.Position{}, nil
	}
	if err != nil {
		return processor.Position{}, translate(ctx, err)
	}
	return p, nil
}

// Save implements processor.Checkpoints: the timer changes are written in the transaction that
// moves the checkpoint, and a fenced move writes none of them.
func (c *Checkpoints) Save(ctx context.Context, name string, from, to processor.Position, changes ...processor.TimerChange) error {
	if len(changes) == 0 {
		return saveCheckpoint(ctx, c.pool, name, from, to)
	}
	if err := processor.CheckForward(name, from, to); err != nil {
		return err
	}
	return c.inTx(ctx, func(tx pgx.Tx) error {
		if err := saveCheckpoint(ctx, tx, name, from, to); err != nil {
			return err
		}
		return applyTimers(ctx, tx, name, changes)
	})
}

// SaveTx moves the checkpoint like Save, inside tx: a view model calls it in the transaction
// that writes its rows, so that both commit or neither does. On ErrFenced the caller must roll
// tx back.
func (c *Checkpoints) SaveTx(ctx context.Context, tx pgx.Tx, name string, from, to processor.Position) error {
	return saveCheckpoint(ctx, tx, name, from, to)
}

// lockSQL locks a checkpoint's row until the transaction ends, so that no move of it commits
// meanwhile; for share, so that writes of one holder that move no checkpoint run side by side.
const lockSQL = `
SELECT generation, transaction_id, position FROM processor_checkpoints WHERE name = $1 FOR SHARE`

// LockTx locks the checkpoint of name in tx if it is still at at, which a processor that never
// saved is at when at is the start of the log; processor.ErrFenced when it moved.
func (c *Checkpoints) LockTx(ctx context.Context, tx pgx.Tx, name string, at processor.Position) error {
	var now processor.Position
	err := tx.QueryRow(ctx, lockSQL, name).Scan(&now.Generation, &now.Checkpoint.TransactionID, &now.Checkpoint.Position)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return translate(ctx, err)
	}
	if now != at {
		return processor.ErrFenced
	}
	return nil
}

type execer interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// saveSQL is the fenced move: the row changes only if it is still exactly where the caller read
// it. A processor that never saved has no row; two first saves race on the primary key, and the
// loser's conflicting update finds the winner's values and changes nothing.
const saveSQL = `
INSERT INTO processor_checkpoints AS c (name, generation, transaction_id, position)
VALUES ($1, $5, $6::xid8, $7)
ON CONFLICT (name) DO UPDATE
SET generation = excluded.generation, transaction_id = excluded.transaction_id,
    position = excluded.position, updated_at = now()
WHERE c.generation = $2 AND c.transaction_id = $3::xid8 AND c.position = $4`

// moveSQL is the fenced move of a checkpoint that was saved before. Only the start of the log
// is read from a missing row, so a mover that read anything else must find the row where it
// read it: when there is no row, it is fenced instead of creating one (which saveSQL would do).
const moveSQL = `
UPDATE processor_checkpoints
SET generation = $5, transaction_id = $6::xid8, position = $7, updated_at = now()
WHERE name = $1 AND generation = $2 AND transaction_id = $3::xid8 AND position = $4`

func saveCheckpoint(ctx context.Context, db execer, name string, from, to processor.Position) error {
	if err := processor.CheckForward(name, from, to); err != nil {
		return err
	}
	args := []any{name,
		from.Generation, from.Checkpoint.TransactionID, from.Checkpoint.Position,
		to.Generation, to.Checkpoint.TransactionID, to.Checkpoint.Position}
	var tag pgconn.CommandTag
	var err error
	if from == (processor.Position{}) {
		tag, err = db.Exec(ctx, saveSQL, args...)
	} else {
		tag, err = db.Exec(ctx, moveSQL, args...)
	}
	if err != nil {
		return translate(ctx, err)
	}
	if tag.RowsAffected() == 0 {
		return processor.ErrFenced
	}
	return nil
}

// eventColumns are the columns that keep a deferred or parked event whole.
const eventColumns = `position, transaction_id, stream_id, version, type, data, metadata, recorded_at`

// eventArgs are the values of eventColumns, as $2 to $9 after the processor's name.
func eventArgs(e eventstore.Event) ([]any, error) {
	metadata, err := json.Marshal(e.Metadata)
	if err != nil {
		return nil, err
	}
	return []any{e.Position, e.TransactionID, e.StreamID, e.Version, e.Type, string(e.Data), string(metadata), e.RecordedAt}, nil
}

// Defer implements processor.Checkpoints.
func (c *Checkpoints) Defer(ctx context.Context, name string, d processor.Deferred) error {
	args, err := eventArgs(d.Event)
	if err != nil {
		return err
	}
	_, err = c.pool.Exec(ctx, `
INSERT INTO processor_deferred AS d (name, `+eventColumns+`, reason, attempts, next_attempt_at)
VALUES ($1, $2, $3::xid8, $4, $5, $6, $7, $8, $9, $10, $11, $12)
ON CONFLICT (name, position) DO UPDATE
SET reason = excluded.reason, attempts = greatest(d.attempts, excluded.attempts),
    next_attempt_at = excluded.next_attempt_at`,
		append(append([]any{name}, args...), processor.TruncateReason(d.Reason), d.Attempts, d.NextAttempt)...)
	return translate(ctx, err)
}

// Due implements processor.Checkpoints.
func (c *Checkpoints) Due(ctx context.Context, name string, now time.Time, limit int) ([]processor.Deferred, error) {
	rows, err := c.pool.Query(ctx, `
SELECT `+eventColumns+`, reason, attempts, next_attempt_at
FROM processor_deferred WHERE name = $1 AND next_attempt_at <= $2
ORDER BY next_attempt_at, transaction_id, position LIMIT $3`, name, now, limitOrAll(limit))
	if err != nil {
		return nil, translate(ctx, err)
	}
	due, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (processor.Deferred, error) {
		var d processor.Deferred
		err := scanEvent(row, &d.Event, &d.Reason, &d.Attempts, &d.NextAttempt)
		return d, err
	})
	return due, translate(ctx, err)
}

// NextAttempt implements processor.Checkpoints.
func (c *Checkpoints) NextAttempt(ctx context.Context, name string) (time.Time, bool, error) {
	var next *time.Time
	err := c.pool.QueryRow(ctx, `SELECT min(next_attempt_at) FROM processor_deferred WHERE name = $1`, name).Scan(&next)
	if err != nil || next == nil {
		return time.Time{}, false, translate(ctx, err)
	}
	return *next, true, nil
}

// doneSQL forgets a deferred event that was handled.
const doneSQL = `DELETE FROM processor_deferred WHERE name = $1 AND position = $2`

// Done implements processor.Checkpoints.
func (c *Checkpoints) Done(ctx context.Context, name string, position int64, changes ...processor.TimerChange) error {
	if len(changes) == 0 {
		_, err := c.pool.Exec(ctx, doneSQL, name, position)
		return translate(ctx, err)
	}
	return c.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, doneSQL, name, position); err != nil {
			return err
		}
		return applyTimers(ctx, tx, name, changes)
	})
}

// CountDeferred implements processor.Checkpoints.
func (c *Checkpoints) CountDeferred(ctx context.Context, name string) (int, error) {
	var n int
	err := c.pool.QueryRow(ctx, `SELECT count(*) FROM processor_deferred WHERE name = $1`, name).Scan(&n)
	return n, translate(ctx, err)
}

// Park implements processor.Checkpoints: one statement forgets the deferral and parks the event.
func (c *Checkpoints) Park(ctx context.Context, name string, p processor.Parked) error {
	args, err := eventArgs(p.Event)
	if err != nil {
		return err
	}
	_, err = c.pool.Exec(ctx, `
WITH undeferred AS (DELETE FROM processor_deferred WHERE name = $1 AND position = $2)
INSERT INTO processor_parked (name, `+eventColumns+`, reason, attempts)
VALUES ($1, $2, $3::xid8, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (name, position) DO UPDATE
SET reason = excluded.reason, attempts = excluded.attempts, parked_at = now()`,
		append(append([]any{name}, args...), processor.TruncateReason(p.Reason), p.Attempts)...)
	return translate(ctx, err)
}

// CountParked implements processor.Checkpoints.
func (c *Checkpoints) CountParked(ctx context.Context, name string) (int, error) {
	var n int
	err := c.pool.QueryRow(ctx, `SELECT count(*) FROM processor_parked WHERE name = $1`, name).Scan(&n)
	return n, translate(ctx, err)
}

// ListParked implements processor.Checkpoints.
func (c *Checkpoints) ListParked(ctx context.Context, name string, limit int) ([]processor.Parked, error) {
	rows, err := c.pool.Query(ctx, `
SELECT `+eventColumns+`, reason, attempts, parked_at
FROM processor_parked WHERE name = $1
ORDER BY transaction_id, position LIMIT $2`, name, limitOrAll(limit))
	if err != nil {
		return nil, translate(ctx, err)
	}
	parked, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (processor.Parked, error) {
		var p processor.Parked
		err := scanEvent(row, &p.Event, &p.Reason, &p.Attempts, &p.ParkedAt)
		p.ParkedAt = p.ParkedAt.UTC()
		return p, err
	})
	return parked, translate(ctx, err)
}

// Requeue implements processor.Checkpoints: one statement moves every parked event to the
// deferred ones.
func (c *Checkpoints) Requeue(ctx context.Context, name string, now time.Time) (int, error) {
	var n int
	err := c.pool.QueryRow(ctx, `
WITH unparked AS (DELETE FROM processor_parked WHERE name = $1 RETURNING *),
requeued AS (
  INSERT INTO processor_deferred (name, `+eventColumns+`, reason, attempts, next_attempt_at)
  SELECT name, `+eventColumns+`, reason, 0, $2 FROM unparked
  ON CONFLICT (name, position) DO UPDATE
  SET reason = excluded.reason, attempts = 0, next_attempt_at = excluded.next_attempt_at
  RETURNING 1)
SELECT count(*) FROM requeued`, name, now).Scan(&n)
	return n, translate(ctx, err)
}

// scanEvent reads eventColumns into e, and the columns after them into rest.
func scanEvent(row pgx.CollectableRow, e *eventstore.Event, rest ...any) error {
	err := row.Scan(append([]any{&e.Position, &e.TransactionID, &e.StreamID, &e.Version, &e.Type, &e.Data,
		&e.Metadata, &e.RecordedAt}, rest...)...)
	e.RecordedAt = e.RecordedAt.UTC()
	return err
}

// limitOrAll is a LIMIT argument: NULL, which is no limit, for limit <= 0.
func limitOrAll(limit int) *int {
	if limit <= 0 {
		return nil
	}
	return &limit
}
