package notifications

import (
	"context"
	"slices"
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
