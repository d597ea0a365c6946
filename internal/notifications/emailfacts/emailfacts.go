// Package emailfacts answers the outbox's questions (notifications.Facts) from the books and
// accounts services: a book's title and author, its loan now, and a member's name, address and
// whether they were erased, each as its service has it, with the services' errors (a book or
// account that does not exist is errs.NotFound).
package emailfacts

import (
	"context"

	"library/internal/accounts"
	"library/internal/books"
	"library/internal/notifications"
)

// Services answers notifications.Facts from the books and accounts services.
type Services struct {
	Books    *books.Service
	Accounts *accounts.Service
}

var _ notifications.Facts = Services{}

// BookAt implements notifications.Facts: a book as of its event at version is usually kept in
// memory.
func (s Services) BookAt(ctx context.Context, bookID string, version int64) (notifications.Book, error) {
	book, _, err := s.Books.GetAtLeast(ctx, bookID, version)
	return notifications.Book{Title: book.Title, Author: book.Author}, err
}

// Current implements notifications.Facts: the book as it is now, read to the end of its stream.
func (s Services) Current(ctx context.Context, bookID string) (notifications.Book, error) {
	book, _, err := s.Books.Get(ctx, bookID)
	out := notifications.Book{Title: book.Title, Author: book.Author}
	if book.Loan != nil {
		out.Loan = &notifications.Loan{ID: book.Loan.LoanID, MemberID: book.Loan.MemberID, DueAt: book.Loan.DueAt}
	}
	return out, err
}

// Recipient implements notifications.Facts: the account as it is now.
func (s Services) Recipient(ctx context.Context, memberID string) (notifications.Recipient, error) {
	account, _, err := s.Accounts.Get(ctx, memberID)
	return notifications.Recipient{Name: account.Name, Email: account.Email, Erased: account.Erased}, err
}
