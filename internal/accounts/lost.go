package accounts

import (
	"context"
	"slices"

	"library/internal/aggregate"
)

// Lost copies. A loan declared lost charges the member the copy's replacement price, a charge
// of its own kept by the loan (ReplacementCharged), written in the same append as the book's
// LoanLost and the loan's LoanClosed. When the copy comes back the charge is taken back
// (ReplacementCredited), in the same append as the book's LostCopyReturned: what it leaves the
// member in credit, money they paid for it, is given back through the payment provider where it
// was paid online since the charge (RefundDue on those checkouts, the latest first, each for at
// most what it brought and was not given back yet), once, by the checkouts saga; the rest, paid
// at the desk, stays as credit for the desk to give back. A charge still owed is simply taken
// off the balance.

// ReplacementCharged records that the member owes Amount for the copy of the loan LoanID of
// BookID, declared lost.
type ReplacementCharged struct {
	BookID string `json:"bookId"`
	LoanID string `json:"loanId"`
	Amount int64  `json:"amount"`
}

// ReplacementCredited records that the charge for a lost copy was taken back, the copy having
// come back: the member owes Amount less. What they paid for it online is given back by the
// RefundDue events of the same append.
type ReplacementCredited struct {
	BookID string `json:"bookId"`
	LoanID string `json:"loanId"`
	Amount int64  `json:"amount"`
}

// EventType names the event in the log; never rename it.
func (ReplacementCharged) EventType() string { return "ReplacementCharged" }

// EventType names the event in the log; never rename it.
func (ReplacementCredited) EventType() string { return "ReplacementCredited" }

// replacement is a lost copy's charge standing on the account.
type replacement struct {
	Amount int64 `json:"amount"`
	// Paid are the checkouts paid online while the charge stood, the latest last, at most
	// paidKept of them: what may be given back when the copy comes back. Apply never changes
	// it in place, so clones may share it.
	Paid []string `json:"paid,omitempty"`
}

// paidKept bounds the checkouts a charge remembers: an account keeps no more ended checkouts
// than its open ones and EndedKept, so older ones could not be refunded through anyway.
const paidKept = EndedKept + 3

// Replacement returns the charge standing for the lost copy of a loan, and whether there is
// one (none once taken back).
func (a Account) Replacement(bookID, loanID string) (int64, bool) {
	r, ok := a.replacements[loanKey(bookID, loanID)]
	return r.Amount, ok
}

// applyLost folds the events of lost copies' charges; ok is false for any other event.
func applyLost(a Account, e Event) (Account, bool) {
	switch e := e.(type) {
	case ReplacementCharged:
		a.Balance += e.Amount
		a.replacements = writable(a.replacements)
		a.replacements[loanKey(e.BookID, e.LoanID)] = replacement{Amount: e.Amount}
	case ReplacementCredited:
		a.Balance -= e.Amount
		delete(a.replacements, loanKey(e.BookID, e.LoanID))
	default:
		return a, false
	}
	return a, true
}

// paidReplacements notes a payment online against every charge standing.
func paidReplacements(a Account, e PaymentReceived) Account {
	if e.CheckoutID == "" || len(a.replacements) == 0 {
		return a
	}
	for key, r := range a.replacements {
		paid := append(slices.Clip(r.Paid), e.CheckoutID)
		r.Paid = paid[max(0, len(paid)-paidKept):]
		a.replacements[key] = r
	}
	return a
}

// Lose is what a loan declared lost does to the account: the loan closed, if the account holds
// it, and Charge charged for the copy, once per loan, unless it is 0 or the member was erased.
type Lose struct {
	BookID string
	LoanID string
	Charge int64
}

// Decide returns the account's events; none when there is nothing to record.
func (c Lose) Decide(a Account) ([]Event, error) {
	var events []Event
	key := loanKey(c.BookID, c.LoanID)
	if _, ok := a.loans[key]; ok {
		events = append(events, LoanClosed{BookID: c.BookID, LoanID: c.LoanID})
	}
	if _, charged := a.replacements[key]; c.Charge > 0 && !charged && !a.Erased {
		events = append(events, ReplacementCharged{BookID: c.BookID, LoanID: c.LoanID, Amount: c.Charge})
	}
	return events, nil
}

// TakeBack is what a lost copy's return does to the account: the charge for it taken back, and
// what that leaves in credit given back through the checkouts paid online since it was charged.
type TakeBack struct {
	BookID string
	LoanID string
}

// Decide returns ReplacementCredited and a RefundDue for each checkout that gives back part of
// the credit, the latest first; nothing when no charge stands for the loan.
func (c TakeBack) Decide(a Account) ([]Event, error) {
	r, ok := a.replacements[loanKey(c.BookID, c.LoanID)]
	if !ok {
		return nil, nil
	}
	events := []Event{ReplacementCredited{BookID: c.BookID, LoanID: c.LoanID, Amount: r.Amount}}
	// The credit the take-back leaves is money paid for the charge: at most the charge.
	credit := min(r.Amount, max(0, r.Amount-a.Balance))
	for i := len(r.Paid) - 1; i >= 0 && credit > 0; i-- {
		co, ok := a.checkouts[r.Paid[i]]
		if !ok || co.Status != CheckoutPaid || co.RefundFailed != "" || co.PaymentID == "" {
			continue // dropped long ago, or its refund failed before: the desk gives it back
		}
		if back := min(co.Amount-co.Refunded-co.RefundDue, credit); back > 0 {
			events = append(events, RefundDue{CheckoutID: co.ID, Amount: back, PaymentID: co.PaymentID, LoanID: c.LoanID})
			credit -= back
		}
	}
	return events, nil
}

// Lose is the account's part of a loan declared lost (books.Losses). An erased member's loan is
// closed too, and nothing charged.
func (s *Service) Lose(ctx context.Context, memberID, bookID, loanID string, charge int64) (aggregate.Also, error) {
	return s.also(ctx, memberID, Lose{BookID: bookID, LoanID: loanID, Charge: charge}.Decide)
}

// TakeBack is the account's part of a lost copy's return (books.Losses). Money paid is given
// back whatever became of the account since, as refunds are.
func (s *Service) TakeBack(ctx context.Context, memberID, bookID, loanID string) (aggregate.Also, error) {
	return s.also(ctx, memberID, TakeBack{BookID: bookID, LoanID: loanID}.Decide)
}
