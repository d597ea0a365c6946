package booksapi

import (
	"context"
	"net/http"

	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
)

// placeHold answers POST /books/{bookId}/holds: a member joins the book's queue, for themself,
// or a librarian puts them in it. The Idempotency-Key is required, so that a double click on
// Place hold places one. The rules let any member in; a hold for someone else is refused here.
func (h Routes) placeHold(ctx context.Context, bookID string, body books.PlaceHold, o aggregate.Origin) (aggregate.Result, error) {
	if err := ownMember(ctx, body.MemberID, "place holds"); err != nil {
		return aggregate.Result{}, err
	}
	return h.Service.PlaceHold(ctx, bookID, body, o)
}

// cancelHold answers DELETE /books/{bookId}/holds/{memberId}: the member leaves the queue, or
// gives up the book held for them, which goes to the next in line. The rules let the member
// themself and librarians in.
func (h Routes) cancelHold(w http.ResponseWriter, r *http.Request) error {
	bookID, err := httpapi.PathID(r, "bookId")
	if err != nil {
		return err
	}
	memberID, err := httpapi.PathID(r, "memberId")
	if err != nil {
		return err
	}
	origin, err := commandhttp.CommandOrigin(r)
	if err != nil {
		return err
	}
	result, err := h.Service.CancelHold(r.Context(), bookID, books.CancelHold{MemberID: memberID}, origin)
	if err != nil {
		return err
	}
	commandhttp.WriteResult(w, r, result)
	return nil
}

// ownMember refuses a member acting for another member; staff act for anyone.
func ownMember(ctx context.Context, memberID, what string) error {
	access := auth.AccessFrom(ctx)
	if access.Role != auth.Member {
		return nil
	}
	if access.Caller.MemberID == "" {
		return errs.E(errs.Forbidden, "your sign-in names no member id, so you can't %s", what)
	}
	if access.Caller.MemberID != memberID {
		return errs.E(errs.Forbidden, "a member may %s for themself only", what)
	}
	return nil
}
