package books

import (
	"context"
	"time"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/validate"
)

// A loan made offline: a self-check kiosk that lost its link to the library goes on lending,
// and reports each loan when it is back, with SIP2's "no block" flag. The book was handed over
// already, so the loan is recorded as the kiosk says, lent at the time it gives, even when a
// rule would refuse it now, and BookLent says which rules it overrode (Overrode).
//
// Only the member's account's rules are overridden: its loan limit (errs.LoanLimitReached),
// its fines (errs.MemberBlocked), and whatever else accounts' Borrow refuses a loan for. The
// book's own state is not: a copy lent to another member (errs.BookAlreadyLent) or on the hold
// shelf for another member (errs.BookOnHold) still refuses, since a book's log holds one loan
// at a time, and a second holder of one copy is a mistake somewhere (a barcode misread, a copy
// not checked in) that a librarian sorts out with the copy in hand; recording it would leave
// the first loan without an end. A member who can't borrow at all can't offline either: an
// erased member (errs.Gone), an id that can't start an account (errs.InvalidRequest).

// Bounds on an offline loan's time, against the service's clock when it is reported: a kiosk's
// clock may run a little ahead (MaxOfflineSkew), and a loan reported long after it was made
// (MaxOfflineAge) is more likely a kiosk's stale queue, or a clock gone wrong, than a loan to
// record as it stands; a librarian records it by hand.
const (
	MaxOfflineSkew  = 5 * time.Minute
	MaxOfflineAge   = 30 * 24 * time.Hour
	MaxReasonLength = 200
)

// Offline says that a loan was made while the kiosk that made it was offline: at LentAt, by its
// clock, for the Reason it gives, if any.
type Offline struct {
	LentAt time.Time `json:"lentAt"`
	Reason string    `json:"reason,omitempty"`
}

// Validate checks the fields; the time's bounds need the clock, and are Decide's (lentAt).
func (o *Offline) Validate() error {
	if o.LentAt.IsZero() {
		return errs.E(errs.InvalidRequest, "an offline loan needs the time it was made (lentAt)")
	}
	if o.Reason != "" {
		return validate.Text("reason", o.Reason, MaxReasonLength)
	}
	return nil
}

// lentAt is the loan's time as the book records it (UTC, to the second), or InvalidRequest
// when it is after now by more than MaxOfflineSkew, or before it by more than MaxOfflineAge:
// both to the second, as the times recorded are.
func (o *Offline) lentAt(now time.Time) (time.Time, error) {
	at, now := o.LentAt.UTC().Truncate(time.Second), now.UTC().Truncate(time.Second)
	if at.After(now.Add(MaxOfflineSkew)) {
		return time.Time{}, errs.E(errs.InvalidRequest, "an offline loan's lentAt (%s) is in the future: the kiosk's clock is wrong",
			at.Format(time.RFC3339))
	}
	if now.Sub(at) > MaxOfflineAge {
		return time.Time{}, errs.E(errs.InvalidRequest, "an offline loan's lentAt (%s) is more than %d days ago: a librarian records it",
			at.Format(time.RFC3339), MaxOfflineAge/(24*time.Hour))
	}
	return at, nil
}

// lentAt is when the loan is made: now, or, offline, the kiosk's time, within its bounds.
func (c LendBook) lentAt(now time.Time) (time.Time, error) {
	if c.Offline == nil {
		return now.UTC().Truncate(time.Second), nil
	}
	return c.Offline.lentAt(now)
}

// lent is the loan's BookLent, which says, offline, that it was, why, and what it overrode.
func (c LendBook) lent(lentAt, dueAt time.Time) BookLent {
	e := BookLent{LoanID: c.LoanID, MemberID: c.MemberID, LentAt: lentAt, DueAt: dueAt}
	if c.Offline != nil {
		e.Offline, e.OfflineReason, e.Overrode = true, c.Offline.Reason, c.Overrode
	}
	return e
}

// offline makes cmd, an offline lend, ask the member's account before each decision what the
// loan would override (aggregate.Command.Prepare), so that Decide records it in BookLent, and
// returns the account's part of the append, which opens the loan there at the version read.
// Should the account move on before the append, the command is decided again, and the account
// asked again. A loan the book refuses, or has already, writes nothing to the account.
func (s *Service) offline(cmd *aggregate.Command[Book], c *LendBook, bookID string, on Lending) func(context.Context, []Event) (aggregate.Also, error) {
	var part aggregate.Also
	cmd.Prepare = func(ctx context.Context, b Book) error {
		var overrode []errs.Code
		var err error
		part, overrode, err = s.borrowers.BorrowOverriding(ctx, c.MemberID, bookID, c.LoanID, on.Limit(b))
		c.Overrode = nil
		for _, code := range overrode {
			c.Overrode = append(c.Overrode, string(code))
		}
		return err
	}
	return func(_ context.Context, decided []Event) (aggregate.Also, error) {
		for _, e := range decided {
			if _, ok := e.(BookLent); ok {
				return part, nil
			}
		}
		return aggregate.Also{}, nil
	}
}
