package booksapi

import (
	"context"
	"net/http"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
)

// placeHold answers POST /books/{bookId}/holds: a member joins the book's queue, for themself,
// or a librarian puts them in it. The Idempotency-Key is required, so that a double click on
// Place hold places one. The rules let any member in; a hold for someone else is refused here.
func (h Routes) placeHold(ctx context.Context, bookID string, body books.PlaceHold, o aggregate.Origin) (aggregate.Result, error) {
	if err := httpapi.OwnMember(ctx, body.MemberID, "place holds"); err != nil {
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
