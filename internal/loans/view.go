package loans

import (
	"time"

	"library/internal/books"
)

// LoanView is a loan as GET /loans and GET /accounts/{memberId}/loans show it, at the service's
// clock.
type LoanView struct {
	BookID   string    `json:"bookId"`
	Title    string    `json:"title"`
	MemberID string    `json:"memberId"`
	LoanID   string    `json:"loanId"`
	LentAt   time.Time `json:"lentAt"`
	DueAt    time.Time `json:"dueAt"`
	// RenewalsLeft is how many times the loan may still be renewed (what its terms allow, or
	// RENEWALS_MAX for a loan on none, less those made; never below 0).
	RenewalsLeft int `json:"renewalsLeft"`
	// DaysOverdue counts the whole days past the due time, as a return now would be fined: 0
	// until 24 hours after it.
	DaysOverdue int `json:"daysOverdue"`
	// DueMoved says why DueAt is not the lending's or the last renewal's; left out when it is.
	DueMoved *DueMovedView `json:"dueMoved,omitempty"`
}

// DueMovedView is why a loan's due time moved: from when, for what reason ("closed": the
// library closes on date).
type DueMovedView struct {
	From   time.Time `json:"from"`
	Reason string    `json:"reason"`
	Date   string    `json:"date"`
}

// Policy is what a loan's view needs besides the loan: how many renewals a loan may have
// (RENEWALS_MAX) and the service's clock.
type Policy struct {
	MaxRenewals int
	Now         func() time.Time
}

// ViewsAt shows loans as of now.
func (p Policy) ViewsAt(loans []Loan, now time.Time) []LoanView {
	out := make([]LoanView, len(loans))
	for i, l := range loans {
		out[i] = LoanView{
			BookID: l.BookID, Title: l.Title, MemberID: l.MemberID, LoanID: l.LoanID, LentAt: l.LentAt, DueAt: l.DueAt,
			RenewalsLeft: max(0, p.allowed(l)-l.Renewals),
			DaysOverdue:  books.DaysLate(l.DueAt, now),
		}
		if m := l.DueMoved; m != nil {
			out[i].DueMoved = &DueMovedView{From: m.From, Reason: m.Reason, Date: m.Date}
		}
	}
	return out
}

// allowed is how many renewals l may have: its terms', or MaxRenewals for a loan on none.
func (p Policy) allowed(l Loan) int {
	if l.RenewalsAllowed != nil {
		return *l.RenewalsAllowed
	}
	return p.MaxRenewals
}
