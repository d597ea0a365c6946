// Package catalogview shows a book of the catalog as one caller may see it: who borrowed it is
// for staff only; a member sees whether a loan is theirs. GET /books and GET /books/{bookId}
// show books the same way.
package catalogview

import (
	"time"

	"library/internal/auth"
	"library/internal/books"
	"library/internal/catalog"
)

// BookView is a book as one caller may see it: who borrowed it is for staff only; a member sees
// whether a loan is theirs.
type BookView struct {
	ID string `json:"id"`
	// TitleID is the title the book is a copy of: shown where the book is read from its own
	// stream (GET /books/{bookId}), which knows it; the catalog's pages leave it out.
	TitleID string    `json:"titleId,omitempty"`
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

// For shows a book to the caller of access.
func For(b catalog.Book, access auth.Access) BookView {
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

// ForPage shows a page of books to the caller of access.
func ForPage(books []catalog.Book, access auth.Access) []BookView {
	out := make([]BookView, len(books))
	for i, b := range books {
		out[i] = For(b, access)
	}
	return out
}

// ForBook shows a book read from its own stream, at its version, to the caller of access, as
// the catalog shows it (GET /books/{bookId}, and GET /books?barcode=).
func ForBook(b books.Book, version int64, access auth.Access) BookView {
	v := For(catalog.Book{ID: b.ID, Title: b.Title, Author: b.Author, Status: b.Status(), Loan: b.Loan, Version: version}, access)
	v.TitleID = b.TitleID
	return v
}
