package holds

import "time"

// HoldView is a hold as GET /holds and GET /accounts/{memberId}/holds show it.
type HoldView struct {
	// BookID is the copy the hold is for, or held on the shelf; null for a member waiting for
	// any copy of TitleID.
	BookID   *string `json:"bookId"`
	TitleID  string  `json:"titleId,omitempty"`
	Title    string  `json:"title"`
	MemberID string  `json:"memberId"`
	Status   string  `json:"status"`
	// Place is the member's place in the book's queue, from 1; null on the hold shelf.
	Place    *int      `json:"place"`
	PlacedAt time.Time `json:"placedAt"`
	// Until is when the book leaves the hold shelf unless picked up; null while waiting.
	Until *time.Time `json:"until"`
}

// ViewsOf shows holds.
func ViewsOf(holds []Hold) []HoldView {
	out := make([]HoldView, len(holds))
	for i, h := range holds {
		out[i] = HoldView{Title: h.Title, MemberID: h.MemberID, Status: h.Status(), PlacedAt: h.PlacedAt}
		if titleID, ok := titleOf(h.BookID); ok {
			out[i].TitleID = titleID
		} else {
			bookID := h.BookID
			out[i].BookID = &bookID
		}
		if h.Status() == Ready {
			until := h.Until
			out[i].Until = &until
		} else {
			place := h.Place
			out[i].Place = &place
		}
	}
	return out
}
