// Package books is the library's catalogue of books and their loans: the Book aggregate (its
// events, commands and decisions, plain Go with no I/O), its snapshot codec, and the service
// that runs its commands through package aggregate. It imports no HTTP or database package:
// the catalog view model behind GET /books is package catalog, the HTTP handlers are package
// booksapi.
//
// A book is added once, lent under a loan id chosen by the client, and returned under that loan
// id. Loan ids make lending and returning idempotent in the domain itself: lending again under
// a loan the book has already had, or returning a loan already returned, records nothing,
// however long after the first request the repeat comes.
package books

import (
	"maps"
	"time"
)

// Event is a Book event; the same type as aggregate.Event.
type Event = interface{ EventType() string }

// BookAdded records that the book joined the catalogue.
type BookAdded struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Author string `json:"author"`
}

// BookLent records that the book was lent to a member until DueAt.
type BookLent struct {
	LoanID   string    `json:"loanId"`
	MemberID string    `json:"memberId"`
	LentAt   time.Time `json:"lentAt"`
	DueAt    time.Time `json:"dueAt"`
}

// BookReturned records that a loan ended. DaysLate counts whole days after the loan's due
// time.
type BookReturned struct {
	LoanID     string    `json:"loanId"`
	MemberID   string    `json:"memberId"`
	ReturnedAt time.Time `json:"returnedAt"`
	DaysLate   int       `json:"daysLate"`
}

// LoanRenewed records that a loan's due time moved to DueAt. MemberID is the borrower's.
type LoanRenewed struct {
	LoanID   string    `json:"loanId"`
	DueAt    time.Time `json:"dueAt"`
	MemberID string    `json:"memberId,omitempty"`
}

// EventType names the event in the log; never rename it.
func (LoanRenewed) EventType() string { return "LoanRenewed" }

// EventType names the event in the log; never rename it.
func (BookAdded) EventType() string { return "BookAdded" }

// EventType names the event in the log; never rename it.
func (BookLent) EventType() string { return "BookLent" }

// EventType names the event in the log; never rename it.
func (BookReturned) EventType() string { return "BookReturned" }

// Book is the state of one book, folded from its events.
type Book struct {
	Added  bool
	ID     string
	Title  string
	Author string
	// Loan is the current loan, nil while the book is on the shelf.
	Loan *Loan
	// loans holds every loan id the book has been lent under.
	loans map[string]bool
	// Held is the book's place on the hold shelf, nil when it is held for nobody.
	Held *Held
	// queue holds the members waiting for the book, first in line first.
	queue []string
}

// Loan is a book's current loan.
type Loan struct {
	LoanID   string    `json:"loanId"`
	MemberID string    `json:"memberId"`
	LentAt   time.Time `json:"lentAt"`
	DueAt    time.Time `json:"dueAt"`
	// Renewals counts the times the loan was renewed.
	Renewals int `json:"-"`
}

// NewBook returns the state of a book with no events.
func NewBook() Book { return Book{loans: make(map[string]bool)} }

// Clone returns a copy of b that Apply can change without changing b. A Loan is replaced, never
// changed, so it is shared.
func Clone(b Book) Book {
	b.loans = maps.Clone(b.loans)
	return b
}

// Apply returns the state after e.
func Apply(b Book, e Event) Book {
	switch e := e.(type) {
	case BookAdded:
		b.Added, b.ID, b.Title, b.Author = true, e.ID, e.Title, e.Author
	case BookLent:
		b.Loan = &Loan{LoanID: e.LoanID, MemberID: e.MemberID, LentAt: e.LentAt, DueAt: e.DueAt}
		b.loans[e.LoanID] = true
	case BookReturned:
		b.Loan = nil
	case LoanRenewed:
		if b.Loan != nil && b.Loan.LoanID == e.LoanID {
			renewed := *b.Loan // a Loan is shared between states: replaced, never changed
			renewed.DueAt, renewed.Renewals = e.DueAt, renewed.Renewals+1
			b.Loan = &renewed
		}
	default:
		b, _ = applyHold(b, e)
	}
	return b
}

// HadLoan reports whether the book has ever been lent under loanID.
func (b Book) HadLoan(loanID string) bool { return b.loans[loanID] }

// Status is "lent" while the book is on loan, "held" while it waits on the hold shelf for a
// member, "available" otherwise.
func (b Book) Status() string {
	switch {
	case b.Loan != nil:
		return "lent"
	case b.Held != nil:
		return "held"
	}
	return "available"
}
