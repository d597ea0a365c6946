package shelves

import (
	"context"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/titles"
)

// Holds ends members' holds on titles, wherever each is: in the title's queue, or on the hold
// shelf, where the copy held for the member is given up and goes to the next in line.
type Holds struct {
	Titles *titles.Service
	Books  *books.Service
}

// Cancel ends a member's hold on a title: a member waiting leaves the queue (the title's
// command); a member with a copy held for them gives it up (the copy's, which writes the title
// in its append). Should a copy be held for them between the look and the command, the title
// refuses (they wait no more), and it looks again, once. A member with no hold is
// errs.NotFound.
func (h Holds) Cancel(ctx context.Context, titleID, memberID string, o aggregate.Origin) (aggregate.Result, error) {
	for attempt := 0; ; attempt++ {
		title, _, err := h.Titles.Get(ctx, titleID)
		if err != nil {
			return aggregate.Result{}, err
		}
		if bookID := title.HeldFor(memberID); bookID != "" {
			return h.Books.CancelHold(ctx, bookID, books.CancelHold{MemberID: memberID}, o)
		}
		result, err := h.Titles.CancelHold(ctx, titleID, titles.CancelHold{MemberID: memberID}, o)
		if attempt == 0 && errs.Is(err, errs.NotFound) {
			continue
		}
		return result, err
	}
}
