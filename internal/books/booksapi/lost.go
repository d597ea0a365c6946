package booksapi

import (
	"context"

	"library/internal/aggregate"
	"library/internal/books"
)

// loanRequest is the body of POST /books/{bookId}/lost and POST /books/{bookId}/claimed-returned:
// the loan whose copy is missing.
type loanRequest struct {
	LoanID string `json:"loanId"`
}

// declareLost answers POST /books/{bookId}/lost: a librarian declares the loan lost at once, and
// its borrower is charged the copy's replacement price.
func (h Routes) declareLost(ctx context.Context, bookID string, body loanRequest, o aggregate.Origin) (aggregate.Result, error) {
	return h.Service.DeclareLost(ctx, bookID, books.DeclareLost{LoanID: body.LoanID}, o)
}

// claimReturned answers POST /books/{bookId}/claimed-returned: the borrower says the copy is
// back, though it is on no shelf; the loan ends with no charge, and the copy is flagged.
func (h Routes) claimReturned(ctx context.Context, bookID string, body loanRequest, o aggregate.Origin) (aggregate.Result, error) {
	return h.Service.ClaimReturned(ctx, bookID, books.ClaimReturned{LoanID: body.LoanID}, o)
}
