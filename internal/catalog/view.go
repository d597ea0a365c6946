package catalog

import (
	"time"

	"library/internal/auth"
)

// BookView is a book as one caller may see it: who borrowed it is for staff only; a member sees
// whether a loan is theirs.
type BookView struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Author  string    `json:"author"`
	Status  string    `json:"status"`
	Loan    *loanView `json:"loan"`
	Version int64     `json:"version"`
}

type loanView struct {
	LoanID   string    `json:"loanId"`
	MemberID string    `json:"memberId,omitempty"`
	Mine     *bool     `json:"mine,omitempty"`
	LentAt   time.Time `json:"lentAt"`
	DueAt    time.Time `json:"dueAt"`
}

// ViewFor shows a book to the caller of access.
func ViewFor(b Book, access auth.Access) BookView {
	v := BookView{ID: b.ID, Title: b.Title, Author: b.Author, Status: b.Status, Version: b.Version}
	if b.Loan == nil {
		return v
	}
	v.Loan = &loanView{LoanID: b.Loan.LoanID, LentAt: b.Loan.LentAt, DueAt: b.Loan.DueAt}
	switch {
	case access.Staff():
		v.Loan.MemberID = b.Loan.MemberID
	case access.Caller.SignedIn():
		mine := access.Caller.MemberID != "" && b.Loan.MemberID == access.Caller.MemberID
		v.Loan.Mine = &mine
	}
	return v
}

// viewsFor shows a page of books to the caller of access.
func viewsFor(books []Book, access auth.Access) []BookView {
	out := make([]BookView, len(books))
	for i, b := range books {
		out[i] = ViewFor(b, access)
	}
	return out
}
