package notifications

import "context"

// Books tells what a loan email says of a book. internal/app answers it from books.Service.
type Books interface {
	// BookAt returns the book as of its event at version, or as of a later one: a book's
	// title and author never change once it is added. A book that was never added is
	// errs.NotFound.
	BookAt(ctx context.Context, bookID string, version int64) (Book, error)
}

// Book is a book as a loan email names it.
type Book struct {
	Title, Author string
}

// Members tells where a member's loan email goes. internal/app answers it from
// accounts.Service.
type Members interface {
	// Recipient returns the member's name and address as their account has them now; a member
	// without an account is errs.NotFound.
	Recipient(ctx context.Context, memberID string) (Recipient, error)
}

// Recipient is a member as a loan email addresses them.
type Recipient struct {
	Name string
	// Email is the member's address, "" when they have given none.
	Email string
	// Erased is true once the member's personal data is erased: they get no more email.
	Erased bool
}
