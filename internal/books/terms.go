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

// shelfTime says how long a copy held now waits on the hold shelf: the rules' hold pickup for
// its material type, for every group (the member it is held for is not read: the rows for
// every group decide), counted in open days on the calendar; the policy's Pickup without rules.
type shelfTime struct {
	desk     *circulation.Desk
	fallback time.Duration
}

// pickup is how long b, held at now, waits on the hold shelf, from now to the second.
func (st shelfTime) pickup(b Book, now time.Time) time.Duration {
	if st.desk == nil {
		return st.fallback
	}
	from := now.UTC().Truncate(time.Second)
	return st.desk.Calendar.PickupUntil(from, st.desk.TypeTerms(b.Type()).HoldPickup).Sub(from)
}

// holds is the hold policy with p's pickup for b at now.
func (st shelfTime) holds(p HoldPolicy, b Book, now time.Time) HoldPolicy {
	p.Pickup = st.pickup(b, now)
	return p
}

// shelfTime reads the rules and the calendar that a hold shelf decision is made on.
func (s *Service) shelfTime(ctx context.Context) (shelfTime, error) {
	on, err := s.lending(ctx, "")
	return shelfTime{desk: on.Desk, fallback: s.policy.Holds.Pickup}, err
}

// mayHold refuses a hold on the copy that the rules allow the member's group none of on its
// material type (errs.HoldsNotAllowed). A book the library does not have is left to the
// command, which says so.
func (s *Service) mayHold(ctx context.Context, bookID string, c PlaceHold) error {
	if s.policy.Desk == nil {
		return nil
	}
	if err := c.Validate(); err != nil {
		return err
	}
	b, _, err := s.Get(ctx, bookID)
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	on, err := s.lending(ctx, c.MemberID)
	if err != nil {
		return err
	}
	return on.Desk.MayHoldCopy(on.Group, b.Type())
}
