// Package notificationspg keeps the outbox's record of the emails the relay accepted
// (notifications.AcceptedEmails) in PostgreSQL, where every replica sees it: the email_accepted
// table (migrations/00006_accepted_emails.sql). Records made at once are written together in
// one statement, and each Record returns once its own row is committed; a record made again
// keeps the first. pgx's errors are translated here (pgerr).
package notificationspg

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/notifications"
	"library/internal/pgerr"
)

// AcceptedEmails keeps the record of accepted emails in the email_accepted table
// (migrations/00006_accepted_emails.sql).
//
// Records made at once are written together: a Record that finds no write under way writes
// every record waiting, its own included, in one statement, and those made meanwhile wait for
// the next. Each Record still returns once its own row is committed (or the write failed), so
// the outbox's promise stands, and a busy outbox commits once for many emails instead of once
// for each: the commits, each waiting for the disk, were most of what sending cost.
type AcceptedEmails struct {
	pool *pgxpool.Pool

	mu      sync.Mutex
	queued  []*waitingRecord
	writing bool
	written chan struct{} // closed when the write under way ends
}

// waitingRecord is one Record's acceptance, and where its write's outcome is told.
type waitingRecord struct {
	a    notifications.Acceptance
	done chan error // buffered: told once
}

var _ notifications.AcceptedEmails = (*AcceptedEmails)(nil)

// NewAcceptedEmails returns the record kept through pool.
func NewAcceptedEmails(pool *pgxpool.Pool) *AcceptedEmails {
	return &AcceptedEmails{pool: pool}
}

// Accepted implements notifications.AcceptedEmails.
func (p *AcceptedEmails) Accepted(ctx context.Context, messageID string) (bool, error) {
	var accepted bool
	err := p.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM email_accepted WHERE message_id = $1)`, messageID).Scan(&accepted)
	return accepted, pgerr.Translate(ctx, err, "the record of accepted emails")
}

// Record implements notifications.AcceptedEmails: it returns once a was written with the records waiting
// beside it.
func (p *AcceptedEmails) Record(ctx context.Context, a notifications.Acceptance) error {
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
func (p *AcceptedEmails) insert(ctx context.Context, batch []*waitingRecord) error {
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

// ForLoans returns the accepted emails of the given loans, oldest first: what a member's
// export lists of the mail they were sent.
func (p *AcceptedEmails) ForLoans(ctx context.Context, loanIDs []string) ([]notifications.Acceptance, error) {
	rows, err := p.pool.Query(ctx, `SELECT message_id, position, loan_id, accepted_at, attempts FROM email_accepted
		WHERE loan_id = ANY($1) ORDER BY accepted_at`, loanIDs)
	if err != nil {
		return nil, pgerr.Translate(ctx, err, "the record of accepted emails")
	}
	defer rows.Close()
	out := []notifications.Acceptance{}
	for rows.Next() {
		var a notifications.Acceptance
		if err := rows.Scan(&a.MessageID, &a.Position, &a.LoanID, &a.AcceptedAt, &a.Attempts); err != nil {
			return nil, pgerr.Translate(ctx, err, "the record of accepted emails")
		}
		a.AcceptedAt = a.AcceptedAt.UTC()
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, pgerr.Translate(ctx, err, "the record of accepted emails")
	}
	return out, nil
}
