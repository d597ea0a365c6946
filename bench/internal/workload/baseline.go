package workload

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Baseline is PostgreSQL's own limit for what a command does: in one transaction, read a
// stream and append one event to it, with straight pgx: no HTTP, no service code. Each worker
// owns its streams (stream i belongs to worker i mod concurrency), so appends never conflict.
// The pool has a connection per worker: the server, not the pool, sets the limit.
type Baseline struct {
	CellPool
	Streams int

	next []int // per worker: how many operations it has done in this cell
}

// Name implements Measurement: the rows' label.
func (b *Baseline) Name() string { return "baseline" }

// Setup implements Measurement.
func (b *Baseline) Setup(context.Context) error { return nil }

// The columns the service's store reads, and the shape of the event a payment appends.
const (
	baselineRead = `SELECT stream_id, version, position, transaction_id, type, data, metadata, recorded_at
		FROM events WHERE stream_id = $1 ORDER BY version`
	baselineAppend = `INSERT INTO events (stream_id, version, type, data, metadata) VALUES ($1, $2, $3, $4, $5)`
)

// Prepare implements Measurement.
func (b *Baseline) Prepare(ctx context.Context, concurrency int) (Operation, error) {
	if err := b.open(ctx, concurrency); err != nil {
		return nil, err
	}
	b.next = make([]int, concurrency)
	return func(ctx context.Context, worker int) error {
		n := b.next[worker]
		b.next[worker]++
		// Round robin over the worker's own streams.
		owned := (b.Streams - worker + concurrency - 1) / concurrency
		stream := fmt.Sprintf("baseline-%d", worker+(n%owned)*concurrency)
		key := fmt.Sprintf("baseline-c%d-w%d-%d", concurrency, worker, n)
		return pgx.BeginFunc(ctx, b.pool, func(tx pgx.Tx) error {
			rows, err := tx.Query(ctx, baselineRead, stream)
			if err != nil {
				return fmt.Errorf("read: %w", err)
			}
			var version int64
			for rows.Next() {
				// Every column crosses the wire; only the version is decoded.
				if err := rows.Scan(nil, &version, nil, nil, nil, nil, nil, nil); err != nil {
					rows.Close()
					return fmt.Errorf("read: %w", err)
				}
			}
			if err := rows.Err(); err != nil {
				return fmt.Errorf("read: %w", err)
			}
			metadata := fmt.Sprintf(`{"commandId":%q,"command":"pay","fingerprint":"0123456789abcdef0123456789abcdef"}`, key)
			if _, err := tx.Exec(ctx, baselineAppend, stream, version+1, "PaymentReceived", `{"amount":1}`, metadata); err != nil {
				return fmt.Errorf("append: %w", err)
			}
			return nil
		})
	}, nil
}
