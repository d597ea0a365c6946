package notifications

import (
	"context"
	"slices"

	"library/internal/pgerr"
)

// ForLoans returns the accepted emails of the given loans, oldest first: what a member's
// export lists of the mail they were sent.
func (m *MemoryAcceptedEmails) ForLoans(ctx context.Context, loanIDs []string) ([]Acceptance, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	out := []Acceptance{}
	for _, a := range m.accepted {
		if slices.Contains(loanIDs, a.LoanID) {
			out = append(out, a)
		}
	}
	slices.SortFunc(out, func(x, y Acceptance) int { return x.AcceptedAt.Compare(y.AcceptedAt) })
	return out, nil
}

// ForLoans returns the accepted emails of the given loans, oldest first.
func (p *PostgresAcceptedEmails) ForLoans(ctx context.Context, loanIDs []string) ([]Acceptance, error) {
	rows, err := p.pool.Query(ctx, `SELECT message_id, position, loan_id, accepted_at, attempts FROM email_accepted
		WHERE loan_id = ANY($1) ORDER BY accepted_at`, loanIDs)
	if err != nil {
		return nil, pgerr.Translate(ctx, err, "the record of accepted emails")
	}
	defer rows.Close()
	out := []Acceptance{}
	for rows.Next() {
		var a Acceptance
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
