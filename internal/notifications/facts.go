package notifications

import (
	"context"
	"time"
)

// Facts tells the outbox what an email says: a book's title and author, its loan now (for a
// reminder), and where a member's email goes. Package emailfacts answers it from the books and
// accounts services.
type Facts interface {
	// BookAt returns the book as of its event at version, or as of a later one: a book's
	// title and author never change once it is added. A book that was never added is
	// errs.NotFound.
	BookAt(ctx context.Context, bookID string, version int64) (Book, error)
	// Current returns the book as it is now, with its loan: a reminder goes only for the loan
	// it was scheduled for, at the due time it was scheduled for. A book that was never added
	// is errs.NotFound.
	Current(ctx context.Context, bookID string) (Book, error)
	// Recipient returns the member's name and address as their account has them now; a member
	// without an account is errs.NotFound.
	Recipient(ctx context.Context, memberID string) (Recipient, error)
}

// Book is a book as an email names it.
type Book struct {
	Title, Author string
	// Loan is the book's loan now, from Current; nil while the book is on the shelf, and from
	// BookAt.
	Loan *Loan
}

// Loan is a book's current loan, as a reminder needs it.
type Loan struct {
	ID       string
	MemberID string
	DueAt    time.Time
}

// Recipient is a member as a loan email addresses them.
type Recipient struct {
	Name string
	// Email is the member's address, "" when they have given none.
	Email string
	// Erased is true once the member's personal data is erased: they get no more email.
	Erased bool
}
