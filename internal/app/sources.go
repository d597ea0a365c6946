package app

import (
	"context"

	"library/internal/accounts"
	"library/internal/books"
	"library/internal/notifications"
)

// bookTitles answers the outbox's questions about books and their loans from the books service.
type bookTitles struct{ books *books.Service }

var _ notifications.Books = bookTitles{}

// BookAt implements notifications.Books: a book as of its event at version is usually kept in
// memory.
func (b bookTitles) BookAt(ctx context.Context, bookID string, version int64) (notifications.Book, error) {
	book, _, err := b.books.GetAtLeast(ctx, bookID, version)
	return notifications.Book{Title: book.Title, Author: book.Author}, err
}

// Current implements notifications.Books: the book as it is now, read to the end of its stream.
func (b bookTitles) Current(ctx context.Context, bookID string) (notifications.Book, error) {
	book, _, err := b.books.Get(ctx, bookID)
	out := notifications.Book{Title: book.Title, Author: book.Author}
	if book.Loan != nil {
		out.Loan = &notifications.Loan{ID: book.Loan.LoanID, MemberID: book.Loan.MemberID, DueAt: book.Loan.DueAt}
	}
	return out, err
}

// memberAddresses answers the outbox's questions about members from the accounts service.
type memberAddresses struct{ accounts *accounts.Service }

var _ notifications.Members = memberAddresses{}

// Recipient implements notifications.Members.
func (m memberAddresses) Recipient(ctx context.Context, memberID string) (notifications.Recipient, error) {
	account, _, err := m.accounts.Get(ctx, memberID)
	return notifications.Recipient{Name: account.Name, Email: account.Email, Erased: account.Erased}, err
}
