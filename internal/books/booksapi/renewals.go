package booksapi

import (
	"net/http"

	"library/internal/auth"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
)

// renew answers POST /books/{bookId}/loans/{loanId}/renewals: the borrower, or staff, moves a
// current loan's due time. The body is empty; the Idempotency-Key is required, so that a retry
// (a double click on Renew) renews once. A member renews their own loans only: the rules let
// any member in, and the decision refuses a loan that is someone else's.
func (h Routes) renew(w http.ResponseWriter, r *http.Request) error {
	bookID, err := httpapi.PathID(r, "bookId")
	if err != nil {
		return err
	}
	loanID, err := httpapi.PathID(r, "loanId")
	if err != nil {
		return err
	}
	origin, err := commandhttp.CommandOrigin(r)
	if err != nil {
		return err
	}
	if origin.CommandID == "" {
		return errs.E(errs.IdempotencyKeyMissing,
			"send an Idempotency-Key header, made once per click on Renew and kept across its retries, so that a retry renews once")
	}
	cmd := books.RenewLoan{LoanID: loanID}
	if access := auth.AccessFrom(r.Context()); access.Role == auth.Member {
		if access.Caller.MemberID == "" {
			return errs.E(errs.Forbidden, "your sign-in names no member id, so no loan is yours")
		}
		cmd.Borrower = access.Caller.MemberID
	}
	result, err := h.Service.Renew(r.Context(), bookID, cmd, origin)
	if err != nil {
		return err
	}
	commandhttp.WriteResult(w, r, result)
	return nil
}
