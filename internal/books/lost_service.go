package books

import (
	"context"
	"time"

	"library/internal/aggregate"
	"library/internal/errs"
)

// Losses is what lost copies do to members' accounts, which package accounts keeps and this
// package does not import (accounts.Service is one). Each returns the account's part of the
// book's append, decided on the account as the log holds it now, so that a loss and what is
// decided on the account at the same moment (a payment, an erasure) conflict on its stream and
// one of them is decided again on what the other did.
type Losses interface {
	// Lose is the account's part of a loan declared lost: the loan closed there, if the account
	// holds it, and charge cents charged for the copy (none for 0, nor to an erased member).
	Lose(ctx context.Context, memberID, bookID, loanID string, charge int64) (aggregate.Also, error)
	// TakeBack is the account's part of a lost copy's return: what the loss charged, taken
	// back, and what was paid for it online given back through the payment provider.
	TakeBack(ctx context.Context, memberID, bookID, loanID string) (aggregate.Also, error)
}

// WithLosses has the service charge lost copies on members' accounts, and take the charges back
// when the copies return, and returns it. Without it a loss closes the loan on the account
// (Borrowers.GiveBack) and charges nothing.
func (s *Service) WithLosses(l Losses) *Service {
	s.losses = l
	return s
}

// DeclareLost ends a loan with its copy lost, charging its replacement price to the borrower:
// a librarian's, at once, or the rules' (c.At), once the loan is overdue for its LostAfter
// open days. The title records the copy as missing, in the same append.
func (s *Service) DeclareLost(ctx context.Context, bookID string, c DeclareLost, o aggregate.Origin) (aggregate.Result, error) {
	if err := c.Validate(); err != nil {
		return aggregate.Result{}, err
	}
	on, err := s.losing(ctx, bookID)
	if err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, bookID, s.shelved(aggregate.Command[Book]{
		Name: "declareLost", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) { return c.DecideOn(b, s.now(), on) },
	}, bookID, "", s.onAccount(bookID, nil)))
}

// ClaimReturned ends a loan whose borrower says the copy is back though it is on no shelf: no
// charge, no more reminders, and the copy flagged as claimed returned for the desk.
func (s *Service) ClaimReturned(ctx context.Context, bookID string, c ClaimReturned, o aggregate.Origin) (aggregate.Result, error) {
	if err := c.Validate(); err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, bookID, s.shelved(aggregate.Command[Book]{
		Name: "claimReturned", Origin: o, Payload: c, Validate: c.Validate,
		Decide: func(b Book) ([]Event, error) { return c.Decide(b, s.now()) },
	}, bookID, "", s.onAccount(bookID, nil)))
}

// losing reads what a loss of bookID's loan is decided on: the rules for its borrower (the
// current loan's, or, for a copy claimed returned, its last borrower's).
func (s *Service) losing(ctx context.Context, bookID string) (Lending, error) {
	member := ""
	if s.policy.Desk != nil {
		b, _, err := s.Get(ctx, bookID)
		if err != nil {
			return Lending{}, err
		}
		switch {
		case b.Loan != nil:
			member = b.Loan.MemberID
		case b.Missing != nil:
			member = b.Missing.MemberID
		}
	}
	return s.lending(ctx, member)
}

// missingOnAccount is the account's part of a loss, a claim or a missing copy's return.
func (s *Service) missingOnAccount(ctx context.Context, bookID string, e Event) (aggregate.Also, error) {
	switch e := e.(type) {
	case LoanLost:
		if s.losses == nil {
			return s.borrowers.GiveBack(ctx, e.MemberID, bookID, e.LoanID)
		}
		return s.losses.Lose(ctx, e.MemberID, bookID, e.LoanID, e.Charge)
	case ClaimedReturned:
		return s.borrowers.GiveBack(ctx, e.MemberID, bookID, e.LoanID)
	case LostCopyReturned:
		if s.losses != nil {
			return s.losses.TakeBack(ctx, e.MemberID, bookID, e.LoanID)
		}
	}
	return aggregate.Also{}, nil
}

// LossDue is when the rules declare a book's current loan lost: LostAt of its due time.
type LossDue struct {
	LoanID string
	DueAt  time.Time
	At     time.Time
}

// LossDue says when the rules declare bookID's current loan lost, on the book as of version or
// later (a saga that read the book's event at version asks no older state) and on the calendar
// as it is now. ok is false when the book has no current loan, or one made before the rules,
// which only a librarian declares lost.
func (s *Service) LossDue(ctx context.Context, bookID string, version int64) (LossDue, bool, error) {
	b, _, err := s.GetAtLeast(ctx, bookID, version)
	if errs.Is(err, errs.NotFound) || err == nil && b.Loan == nil {
		return LossDue{}, false, nil
	}
	if err != nil {
		return LossDue{}, false, err
	}
	on, err := s.lending(ctx, b.Loan.MemberID)
	if err != nil {
		return LossDue{}, false, err
	}
	at, ok := on.lostAt(b)
	return LossDue{LoanID: b.Loan.LoanID, DueAt: b.Loan.DueAt, At: at}, ok, nil
}
