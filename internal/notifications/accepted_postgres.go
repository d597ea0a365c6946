package notifications

import (
	"context"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/pgerr"
)

// PostgresAcceptedEmails keeps the record in the email_accepted table
// (migrations/00006_accepted_emails.sql).
type PostgresAcceptedEmails struct {
	pool *pgxpool.Pool
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

// Record implements AcceptedEmails.
func (p *PostgresAcceptedEmails) Record(ctx context.Context, a Acceptance) error {
	_, err := p.pool.Exec(ctx, `
INSERT INTO email_accepted (message_id, position, loan_id, accepted_at, attempts)
VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (message_id) DO NOTHING`, a.MessageID, a.Position, a.LoanID, a.AcceptedAt, a.Attempts)
	return pgerr.Translate(ctx, err, "the record of accepted emails")
}
