package processor

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/pgerr"
)

// PostgresCheckpoints keeps checkpoints and parked events in PostgreSQL, in the tables of
// migrations/00002_processors.sql, where every replica sees them.
type PostgresCheckpoints struct {
	pool *pgxpool.Pool
}

var _ Checkpoints = (*PostgresCheckpoints)(nil)

// NewPostgresCheckpoints returns checkpoints kept through pool.
func NewPostgresCheckpoints(pool *pgxpool.Pool) *PostgresCheckpoints {
	return &PostgresCheckpoints{pool: pool}
}

func translate(ctx context.Context, err error) error {
	return pgerr.Translate(ctx, err, "the checkpoint store")
}

// Load implements Checkpoints.
func (c *PostgresCheckpoints) Load(ctx context.Context, name string) (Position, error) {
	var p Position
	err := c.pool.QueryRow(ctx,
		`SELECT generation, transaction_id, position FROM processor_checkpoints WHERE name = $1`, name).
		Scan(&p.Generation, &p.Checkpoint.TransactionID, &p.Checkpoint.Position)
	if errors.Is(err, pgx.ErrNoRows) {
		return Position{}, nil
	}
	if err != nil {
		return Position{}, translate(ctx, err)
	}
	return p, nil
}

// Save implements Checkpoints.
func (c *PostgresCheckpoints) Save(ctx context.Context, name string, from, to Position) error {
	return saveCheckpoint(ctx, c.pool, name, from, to)
}

// SaveTx moves the checkpoint like Save, inside tx: a view model calls it in the transaction
// that writes its rows, so that both commit or neither does. On ErrFenced the caller must roll
// tx back.
func (c *PostgresCheckpoints) SaveTx(ctx context.Context, tx pgx.Tx, name string, from, to Position) error {
	return saveCheckpoint(ctx, tx, name, from, to)
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

func saveCheckpoint(ctx context.Context, db execer, name string, from, to Position) error {
	if err := checkForward(name, from, to); err != nil {
		return err
	}
	args := []any{name,
		from.Generation, from.Checkpoint.TransactionID, from.Checkpoint.Position,
		to.Generation, to.Checkpoint.TransactionID, to.Checkpoint.Position}
	var tag pgconn.CommandTag
	var err error
	if from == (Position{}) {
		tag, err = db.Exec(ctx, saveSQL, args...)
	} else {
		tag, err = db.Exec(ctx, moveSQL, args...)
	}
	if err != nil {
		return translate(ctx, err)
	}
	if tag.RowsAffected() == 0 {
		return ErrFenced
	}
	return nil
}

// Park implements Checkpoints.
func (c *PostgresCheckpoints) Park(ctx context.Context, name string, p Parked) error {
	e := p.Event
	metadata, err := json.Marshal(e.Metadata)
	if err != nil {
		return err
	}
	_, err = c.pool.Exec(ctx, `
INSERT INTO processor_parked
  (name, position, transaction_id, stream_id, version, type, data, metadata, recorded_at, reason, attempts)
VALUES ($1, $2, $3::xid8, $4, $5, $6, $7, $8, $9, $10, $11)
ON CONFLICT (name, position) DO UPDATE
SET reason = excluded.reason, attempts = excluded.attempts, parked_at = now(), requeued = false`,
		name, e.Position, e.TransactionID, e.StreamID, e.Version, e.Type, string(e.Data), string(metadata),
		e.RecordedAt, truncateReason(p.Reason), p.Attempts)
	return translate(ctx, err)
}

// CountParked implements Checkpoints.
func (c *PostgresCheckpoints) CountParked(ctx context.Context, name string) (int, error) {
	var n int
	err := c.pool.QueryRow(ctx, `SELECT count(*) FROM processor_parked WHERE name = $1`, name).Scan(&n)
	return n, translate(ctx, err)
}

// Requeue implements Checkpoints.
func (c *PostgresCheckpoints) Requeue(ctx context.Context, name string) (int, error) {
	var n int
	err := c.pool.QueryRow(ctx, `
WITH marked AS (UPDATE processor_parked SET requeued = true WHERE name = $1 RETURNING 1)
SELECT count(*) FROM marked`, name).Scan(&n)
	return n, translate(ctx, err)
}

// Requeued implements Checkpoints.
func (c *PostgresCheckpoints) Requeued(ctx context.Context, name string, limit int) ([]Parked, error) {
	rows, err := c.pool.Query(ctx, `
SELECT position, transaction_id, stream_id, version, type, data, metadata, recorded_at, reason, attempts, parked_at
FROM processor_parked WHERE name = $1 AND requeued
ORDER BY transaction_id, position LIMIT $2`, name, limitOrAll(limit))
	if err != nil {
		return nil, translate(ctx, err)
	}
	parked, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (Parked, error) {
		var p Parked
		e := &p.Event
		err := row.Scan(&e.Position, &e.TransactionID, &e.StreamID, &e.Version, &e.Type, &e.Data, &e.Metadata,
			&e.RecordedAt, &p.Reason, &p.Attempts, &p.ParkedAt)
		e.RecordedAt = e.RecordedAt.UTC()
		return p, err
	})
	return parked, translate(ctx, err)
}

// limitOrAll is a LIMIT argument: NULL, which is no limit, for limit <= 0.
func limitOrAll(limit int) *int {
	if limit <= 0 {
		return nil
	}
	return &limit
}

// Unpark implements Checkpoints.
func (c *PostgresCheckpoints) Unpark(ctx context.Context, name string, position int64) error {
	_, err := c.pool.Exec(ctx, `DELETE FROM processor_parked WHERE name = $1 AND position = $2`, name, position)
	return translate(ctx, err)
}
