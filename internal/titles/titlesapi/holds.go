package titlesapi

import (
	"context"
	"net/http"
	"time"

	"library/internal/aggregate"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
	"library/internal/titles"
)

// Holders ends a member's hold on a title, waiting or on the hold shelf (shelves.Holds is one).
type Holders interface {
	Cancel(ctx context.Context, titleID, memberID string, o aggregate.Origin) (aggregate.Result, error)
}

// placeHold answers POST /titles/{titleId}/holds: a member for themself, staff for anyone.
func (h Routes) placeHold(ctx context.Context, titleID string, body titles.PlaceHold, o aggregate.Origin) (aggregate.Result, error) {
	if err := httpapi.OwnMember(ctx, body.MemberID, "place holds"); err != nil {
		return aggregate.Result{}, err
	}
	body.BookID = "" // a hold on one copy is placed on the copy: POST /books/{bookId}/holds
	return h.Service.PlaceHold(ctx, titleID, body, o)
}

// cancelHold answers DELETE /titles/{titleId}/holds/{memberId}: the member leaves the queue,
// or gives up the copy held for them. The rules let the member themself and librarians in.
func (h Routes) cancelHold(w http.ResponseWriter, r *http.Request) error {
	titleID, err := httpapi.PathID(r, "titleId")
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
	result, err := h.Holders.Cancel(r.Context(), titleID, memberID, origin)
	if err != nil {
		return err
	}
	commandhttp.WriteResult(w, r, result)
	return nil
}

// queueView is GET /titles/{titleId}/holds: the members waiting, first in line first, and the
// copies held for members on the hold shelf.
type queueView struct {
	TitleID string        `json:"titleId"`
	Version int64         `json:"version"`
	Waiting []waitingHold `json:"waiting"`
	Ready   []readyHold   `json:"ready"`
}

type waitingHold struct {
	MemberID string    `json:"memberId"`
	Place    int       `json:"place"`
	BookID   *string   `json:"bookId"`
	PlacedAt time.Time `json:"placedAt"`
}

type readyHold struct {
	MemberID string    `json:"memberId"`
	BookID   string    `json:"bookId"`
	Until    time.Time `json:"until"`
}

// queue answers GET /titles/{titleId}/holds, for librarians: the title's queue as its stream
// holds it now.
func (h Routes) queue(w http.ResponseWriter, r *http.Request) error {
	titleID, err := httpapi.PathID(r, "titleId")
	if err != nil {
		return err
	}
	title, version, err := h.Service.Get(r.Context(), titleID)
	if err != nil {
		return err
	}
	view := queueView{TitleID: title.ID, Version: version, Waiting: []waitingHold{}, Ready: []readyHold{}}
	for i, hold := range title.Holds {
		view.Waiting = append(view.Waiting, waitingHold{MemberID: hold.MemberID, Place: i + 1, BookID: given(hold.BookID), PlacedAt: hold.PlacedAt})
	}
	for _, c := range title.Copies {
		if c.State == titles.Held {
			view.Ready = append(view.Ready, readyHold{MemberID: c.MemberID, BookID: c.BookID, Until: c.Until})
		}
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}
