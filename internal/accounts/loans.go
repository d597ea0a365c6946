package accounts

import (
	"context"

	"library/internal/aggregate"
	"library/internal/circulation"
	"library/internal/errs"
	"library/internal/validate"
)

// LoanOpened records, on the member's account, that a book was lent to them. It is written in
// the same append as the book's BookLent (aggregate.Also), so that a loan and anything decided
// on the account at the same moment (an erasure, later a limit) conflict on this stream: one
// of them is decided again on what the other did. It holds ids only.
type LoanOpened struct {
	BookID string `json:"bookId"`
	LoanID string `json:"loanId"`
	// MaterialType is the copy's, for the limits on loans of a type ("" before copies had one).
	MaterialType string `json:"materialType,omitempty"`
}

// LoanClosed records, on the member's account, that a loan the account holds ended, in the
// same append as the book's BookReturned.
type LoanClosed struct {
	BookID string `json:"bookId"`
	LoanID string `json:"loanId"`
}

// EventType names the event in the log; never rename it.
func (LoanOpened) EventType() string { return "LoanOpened" }

// EventType names the event in the log; never rename it.
func (LoanClosed) EventType() string { return "LoanClosed" }

// loanKey names a loan on an account: a loan id is a book's own, so the book is part of it.
func loanKey(bookID, loanID string) string { return bookID + "/" + loanID }

// OnLoan counts the books on loan to the member that the account knows of: every loan made
// since loans are recorded on accounts.
func (a Account) OnLoan() int { return len(a.loans) }

// OnLoanOf counts the member's loans of copies of materialType (a loan recorded without one is
// of circulation.DefaultMaterialType).
func (a Account) OnLoanOf(materialType string) int {
	n := 0
	for _, t := range a.loans {
		if circulation.MaterialTypeOr(t) == materialType {
			n++
		}
	}
	return n
}

// Limits are the rules a library lends under: how many books one member may have at once
// (MAX_LOANS), and how much they may owe and still borrow, renew or hold (BLOCK_AT, cents). 0
// is no limit.
type Limits struct {
	MaxLoans int
	BlockAt  int64
	// OpenCheckouts is how many checkouts a member may have open at once (CHECKOUTS_OPEN_MAX).
	OpenCheckouts int
}

// blocked refuses a member who owes more than BlockAt.
func (l Limits) blocked(a Account, what string) error {
	if l.BlockAt > 0 && a.Balance > l.BlockAt {
		return errs.E(errs.MemberBlocked, "the member owes %s, more than the %s a member may owe and still %s; pay first",
			errs.Count(a.Balance, "cent", "cents"), errs.Count(l.BlockAt, "cent", "cents"), what)
	}
	return nil
}

// Borrow is what lending a book asks of the member's account: whether they may borrow, and the
// event that records the loan on their account, at the version it was decided on. Nothing is
// lent to an erased member (errs.Gone), beyond the limits (errs.LoanLimitReached,
// errs.MemberBlocked), and no account is started under an id that looks like an email address
// (errs.InvalidRequest).
type Borrow struct {
	BookID string
	LoanID string
	Limits Limits
	// Limit, when its Max is set, is the circulation rules' limit on the loan's material type,
	// which takes the place of Limits.MaxLoans.
	Limit circulation.LoanLimit
}

// Decide returns the account's event for the loan, or the first of the rules that refuse it.
// The loans it counts are those on the account: every loan made since loans are recorded on
// accounts.
func (c Borrow) Decide(a Account) ([]Event, error) {
	if _, ok := a.loans[loanKey(c.BookID, c.LoanID)]; ok {
		return nil, nil
	}
	if refused := c.refusals(a); len(refused) > 0 {
		return nil, refused[0]
	}
	return []Event{c.opened()}, nil
}

// opened is the loan's LoanOpened.
func (c Borrow) opened() LoanOpened {
	return LoanOpened{BookID: c.BookID, LoanID: c.LoanID, MaterialType: c.Limit.MaterialType}
}

// DecideOverriding returns the account's event for a loan made already, which the library
// records as it was made (a kiosk's checkout while it was offline): whatever the rules say,
// the loan is opened, and the codes of the rules that refuse it now are returned, for the
// loan's record to say what it overrode.
func (c Borrow) DecideOverriding(a Account) ([]Event, []errs.Code) {
	if _, ok := a.loans[loanKey(c.BookID, c.LoanID)]; ok {
		return nil, nil
	}
	var overrode []errs.Code
	for _, err := range c.refusals(a) {
		overrode = append(overrode, errs.CodeOf(err))
	}
	return []Event{c.opened()}, overrode
}

// refusals are the account's rules that refuse the loan, in the order Decide checks them:
// every one, so that an override names them all. A rule of borrowing goes here, and so is
// both kept by Decide and overridden by DecideOverriding.
func (c Borrow) refusals(a Account) []error {
	var refused []error
	if err := c.overLimit(a); err != nil {
		refused = append(refused, err)
	}
	if err := c.Limits.blocked(a, "borrow"); err != nil {
		refused = append(refused, err)
	}
	return refused
}

// overLimit refuses a loan beyond the rules' limit on its type (Limit), or, without one, beyond
// Limits.MaxLoans.
func (c Borrow) overLimit(a Account) error {
	l := c.Limit
	if l.Max <= 0 && l.Group == "" {
		if c.Limits.MaxLoans > 0 && a.OnLoan() >= c.Limits.MaxLoans {
			return errs.E(errs.LoanLimitReached, "the member has %s out, as many as a member may", errs.Count(a.OnLoan(), "book", "books"))
		}
		return nil
	}
	n := a.OnLoan()
	if !l.AllTypes {
		n = a.OnLoanOf(l.MaterialType)
	}
	if n >= l.Max {
		return errs.E(errs.LoanLimitReached, "the member has %s out, and the rules allow %s", loansOut(n, l), l)
	}
	return nil
}

// loansOut says how many loans a limit counts: "3 dvd loans", or "20 loans" of every type.
func loansOut(n int, l circulation.LoanLimit) string {
	if l.AllTypes {
		return errs.Count(n, "loan", "loans")
	}
	return errs.Count(n, l.MaterialType+" loan", l.MaterialType+" loans")
}

// MayWait is what placing a hold, or renewing a loan, asks of the member's account: a member
// the library knows (errs.NotFound for a hold by someone it does not), who does not owe too
// much. It records nothing on the account.
type MayWait struct {
	// Hold is true for a hold, false for a renewal.
	Hold   bool
	Limits Limits
}

// Decide refuses or allows; it never records anything.
func (c MayWait) Decide(a Account) ([]Event, error) {
	if c.Hold && !a.Seen {
		return nil, errs.E(errs.NotFound, "the library has no such member: a hold is placed for a member it knows")
	}
	what := "renew"
	if c.Hold {
		what = "place holds"
	}
	return nil, c.Limits.blocked(a, what)
}

// GiveBack is what returning a book does to the member's account: the loan is closed there,
// if the account holds it (a loan made before loans were recorded on accounts is not), and
// whatever became of the account: a book comes back from an erased member too.
type GiveBack struct {
	BookID string
	LoanID string
}

// Decide returns the account's event for the loan's end, none when it holds no such loan.
func (c GiveBack) Decide(a Account) ([]Event, error) {
	if _, ok := a.loans[loanKey(c.BookID, c.LoanID)]; !ok {
		return nil, nil
	}
	return []Event{LoanClosed(c)}, nil
}

// Borrow is the account's part of a loan of bookID to memberID under loanID, decided on the
// account as the log holds it now (books.Borrowers).
func (s *Service) Borrow(ctx context.Context, memberID, bookID, loanID string, limit circulation.LoanLimit) (aggregate.Also, error) {
	return s.also(ctx, memberID, guarded(memberID, Borrow{BookID: bookID, LoanID: loanID, Limits: s.limits, Limit: limit}.Decide))
}

// BorrowOverriding is the account's part of a loan made already, recorded as it was made
// (books.Borrowers): the account's rules don't refuse it, and the codes of those that would
// have are returned. A member who can't borrow at all still can't: one whose account was
// erased (errs.Gone), or an id that can't start an account (errs.InvalidRequest).
func (s *Service) BorrowOverriding(ctx context.Context, memberID, bookID, loanID string, limit circulation.LoanLimit) (aggregate.Also, []errs.Code, error) {
	var overrode []errs.Code
	decide := func(a Account) ([]Event, error) {
		var events []Event
		events, overrode = Borrow{BookID: bookID, LoanID: loanID, Limits: s.limits, Limit: limit}.DecideOverriding(a)
		return events, nil
	}
	part, err := s.also(ctx, memberID, guarded(memberID, decide))
	if err != nil {
		return aggregate.Also{}, nil, err
	}
	return part, overrode, nil
}

// MayHold checks that the member may place a hold, on the account as the log holds it now
// (books.Borrowers); nothing is recorded on the account.
func (s *Service) MayHold(ctx context.Context, memberID string) (aggregate.Also, error) {
	return s.also(ctx, memberID, guarded(memberID, MayWait{Hold: true, Limits: s.limits}.Decide))
}

// MayRenew checks that the member may renew a loan (books.Borrowers).
func (s *Service) MayRenew(ctx context.Context, memberID string) (aggregate.Also, error) {
	return s.also(ctx, memberID, guarded(memberID, MayWait{Limits: s.limits}.Decide))
}

// GiveBack is the account's part of the end of a loan (books.Borrowers).
func (s *Service) GiveBack(ctx context.Context, memberID, bookID, loanID string) (aggregate.Also, error) {
	return s.also(ctx, memberID, GiveBack{BookID: bookID, LoanID: loanID}.Decide)
}

// also decides on the member's account, read now, and returns what the decision appends to it.
func (s *Service) also(ctx context.Context, memberID string, decide func(Account) ([]Event, error)) (aggregate.Also, error) {
	if err := validate.MemberID("memberId", memberID); err != nil {
		return aggregate.Also{}, err
	}
	loaded, err := s.repo.Load(ctx, memberID)
	if err != nil {
		return aggregate.Also{}, err
	}
	events, err := decide(loaded.State)
	if err != nil {
		return aggregate.Also{}, err
	}
	return aggregate.Also{StreamID: accountType.StreamID(memberID), ExpectedVersion: loaded.Version, Events: events,
		Codecs: accountType.Events}, nil
}
