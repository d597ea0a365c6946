package kiosk

import (
	"context"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/holds"
	"library/internal/loans"
	"library/internal/processor"
	"library/internal/titles"
)

// Services are what the kiosk reaches: the same services the HTTP API runs commands through,
// each seen through the little of it the kiosk needs.
type Services struct {
	Terminals Terminals
	Members   Members
	Books     Books
	Titles    Titles
	Loans     LoansView
	Holds     HoldsView
}

// Terminals checks a terminal's login (package terminals).
type Terminals interface {
	// Login is nil for a terminal's name and password, errs.Unauthorized otherwise.
	Login(ctx context.Context, name, password string) error
}

// Members are members' accounts (package accounts).
type Members interface {
	CardHolder(ctx context.Context, cardNumber string) (string, error)
	CheckPIN(ctx context.Context, memberID, pin string, o aggregate.Origin) error
	Get(ctx context.Context, memberID string) (accounts.Account, int64, error)
	Pay(ctx context.Context, memberID string, c accounts.Pay, o aggregate.Origin) (aggregate.Result, error)
}

// Books are copies and their loans and holds (package books).
type Books interface {
	FindByBarcode(ctx context.Context, barcode string) (books.Book, int64, error)
	Get(ctx context.Context, bookID string) (books.Book, int64, error)
	Lend(ctx context.Context, bookID string, c books.LendBook, o aggregate.Origin) (aggregate.Result, error)
	Return(ctx context.Context, bookID string, c books.ReturnBook, o aggregate.Origin) (aggregate.Result, error)
	Renew(ctx context.Context, bookID string, c books.RenewLoan, o aggregate.Origin) (aggregate.Result, error)
	PlaceHold(ctx context.Context, bookID string, c books.PlaceHold, o aggregate.Origin) (aggregate.Result, error)
	CancelHold(ctx context.Context, bookID string, c books.CancelHold, o aggregate.Origin) (aggregate.Result, error)
}

// Titles reads a title's hold queue (package titles).
type Titles interface {
	ReadQueue(ctx context.Context, titleID string) (titles.Title, int64, error)
}

// LoansView lists a member's loans (package loans).
type LoansView interface {
	List(ctx context.Context, filter loans.Filter) (loans.Page, processor.Position, error)
}

// HoldsView lists a member's holds (package holds).
type HoldsView interface {
	List(ctx context.Context, filter holds.Filter) (holds.Page, processor.Position, error)
}
