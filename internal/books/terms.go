package books

import (
	"context"
	"time"

	"library/internal/calendar"
	"library/internal/circulation"
	"library/internal/errs"
)

// Lending is what a loan's decision reads besides the book: the circulation rules and the
// calendar (Desk), and the borrower's patron group. A nil Desk lends as the service did before
// there were rules: for Period, renewed up to MaxRenewals times, on no terms.
type Lending struct {
	Desk        *circulation.Desk
	Group       string
	Period      time.Duration
	MaxRenewals int
}

// terms resolves the rules for the borrower and the copy; ok is false without a Desk.
func (on Lending) terms(b Book) (circulation.Terms, *circulation.LoanTerms, bool) {
	if on.Desk == nil {
		return circulation.Terms{}, nil, false
	}
	t, lt := on.Desk.LoanTerms(on.Group, b.Type())
	return t, &lt, true
}

// due is when a loan made or renewed from at is due on terms t: by the calendar, for a Desk.
func (on Lending) due(from time.Time, t circulation.Terms) time.Time {
	if on.Desk == nil {
		return from.Add(on.Period)
	}
	return on.Desk.Calendar.Due(from, t.LoanPeriod)
}

// mayLend refuses a copy the rules do not lend to the borrower's group.
func (on Lending) mayLend(b Book, t circulation.Terms) error {
	if on.Desk == nil || t.Lends {
		return nil
	}
	return errs.E(errs.NotLendable, "the rules lend no %s to %s (row %s): book %s stays in the library",
		b.Type(), circulation.GroupOr(on.Group), t.From.Lends.Key, b.ID)
}

// maxRenewals is how often a loan may be renewed on terms t.
func (on Lending) maxRenewals(t circulation.Terms) int {
	if on.Desk == nil {
		return on.MaxRenewals
	}
	return t.Renewals
}

// lateFine is a returned loan's late open days and fine on its own terms, by the calendar;
// (0, nil) for a loan without terms (made before the rules), fined the old way by the saga.
func lateFine(b Book, returnedAt time.Time, cal *calendar.Calendar) (int, *int64) {
	if b.Loan.Terms == nil || cal == nil {
		return 0, nil
	}
	days := cal.LateDays(b.Loan.DueAt, returnedAt)
	fine := circulation.Fine(*b.Loan.Terms, days, b.ReplacementPrice)
	return days, &fine
}

// lending reads what a loan to memberID is decided on: the desk, when the service has one, and
// the member's group.
func (s *Service) lending(ctx context.Context, memberID string) (Lending, error) {
	on := Lending{Period: s.policy.LoanPeriod, MaxRenewals: s.policy.MaxRenewals}
	if s.policy.Desk == nil {
		return on, nil
	}
	desk, err := s.policy.Desk(ctx)
	if err != nil {
		return Lending{}, err
	}
	on.Desk = &desk
	if s.borrowers != nil && memberID != "" {
		if on.Group, err = s.borrowers.GroupOf(ctx, memberID); err != nil {
			return Lending{}, err
		}
	}
	return on, nil
}

// Limit is the rules' loan limit on b's type for the borrower, which the account keeps: none
// (the account's own Limits) without a Desk.
func (on Lending) Limit(b Book) circulation.LoanLimit {
	t, _, ok := on.terms(b)
	if !ok {
		return circulation.LoanLimit{}
	}
	return t.Limit(on.Group, b.Type())
}
