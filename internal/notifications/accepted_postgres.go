package notifications

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/pgerr"
)

// PostgresAcceptedEmails keeps the record in the email_accepted table
// (migrations/00006_accepted_emails.sql).
//
// Records made at once are written together: a Record that finds no write under way writes
// every record waiting, its own included, in one statement, and those made meanwhile wait for
// the next. Each Record still returns once its own row is committed (or the write failed), so
// the outbox's promise stands, and a busy outbox commits once for many emails instead of once
// for each: the commits, each waiting for the disk, were most of what sending cost.
type PostgresAcceptedEmails struct {
	pool *pgxpool.Pool

	mu      sync.Mutex
	queued  []*waitingRecord
	writing bool
	written chan struct{} // closed when the write under way ends
}

// waitingRecord is one Record's acceptance, and where its write's outcome is told.
type waitingRecord struct {
	a    Acceptance
	done chan error // buffered: told once
}

var _ AcceptedEmails = (*PostgresAcceptedEmails)(nil)

// NewPostgresAcceptedEmails returns the record kept through pool.
func NewPostgresAcceptedEmails(pool *pgxpool.Pool) *PostgresAcceptedEmails {
	return &PostgresAcceptedEmails{pool: pool}
}

// Accepted implements AcceptedEmails.
func (p *PostgresAcceptedEmails) Accepted(ctx context.Context, messageID string) (bool, error) {
	var accepted bool
	err := p.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM email_accepted WHERE message_id = $1)`, messageID).Scan(&accepted)
	return accepted, pgerr.Translate(ctx, err, "the record of accepted emails")
}

// Record implements AcceptedEmails: it returns once a was written with the records waiting
// beside it.
func (p *PostgresAcceptedEmails) Record(ctx context.Context, a Acceptance) error {
	r := &waitingRecord{a: a, done: make(chan error, 1)}
	p.mu.Lock()
	p.queued = append(p.queued, r)
	for p.writing {
		written := p.written
		p.mu.Unlock()
		select {
		case err := <-r.done: // written by the write under way
			return err
		case <-written: // ours may be waiting still: write it, unless another does
		case <-ctx.Done():
			p.mu.Lock()
			p.queued = slices.DeleteFunc(p.queued, func(q *waitingRecord) bool { return q == r })
			p.mu.Unlock()
			return ctx.Err()
		}
		p.mu.Lock()
	}
	select {
	case err := <-r.done: // written by the write that just ended
		p.mu.Unlock()
		return err
	default:
	}
	batch := p.queued
	p.queued, p.writing, p.written = nil, true, make(chan struct{})
	p.mu.Unlock()

	err := p.insert(ctx, batch)
	for _, w := range batch {
		w.done <- err
	}
	p.mu.Lock()
	p.writing = false
	close(p.written)
	p.mu.Unlock()
	return <-r.done
}

// insert writes the records in one statement. Recording one again keeps the first record,
// within the batch as well.
func (p *PostgresAcceptedEmails) insert(ctx context.Context, batch []*waitingRecord) error {
	ids, loans := make([]string, len(batch)), make([]string, len(batch))
	positions, attempts := make([]int64, len(batch)), make([]int32, len(batch))
	at := make([]time.Time, len(batch))
	for i, w := range batch {
		ids[i], positions[i], loans[i], at[i], attempts[i] = w.a.MessageID, w.a.Position, w.a.LoanID, w.a.AcceptedAt, int32(w.a.Attempts) //nolint:gosec // an attempt count
	}
	_, err := p.pool.Exec(ctx, `
INSERT INTO email_accepted (message_id, position, loan_id, accepted_at, attempts)
SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::timestamptz[], $5::int[])
ON CONFLICT (message_id) DO NOTHING`, ids, positions, loans, at, attempts)
	return pgerr.Translate(ctx, err, "the record of accepted emails")
}
