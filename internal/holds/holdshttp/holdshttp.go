// Package holdshttp serves the holds view over HTTP: GET /holds, for staff, and
// GET /accounts/{memberId}/holds, for the member and staff.
package holdshttp

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"library/internal/holds"
	"library/internal/httpapi"
	"library/internal/validate"
)

// Routes are the view's endpoints of the HTTP API: GET /holds, for staff, and
// GET /accounts/{memberId}/holds, for the member and staff. Who may call them is the rules
// table's to say (package auth).
type Routes struct {
	View holds.View
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Get("/holds", httpapi.Handle(h.list))
	r.Get("/accounts/{memberId}/holds", httpapi.Handle(h.forMember))
}

// listView is the answer of GET /holds.
type listView struct {
	Holds []holds.HoldView `json:"holds"`
	// Next is the cursor of the next page, null on the last.
	Next *string `json:"next"`
	// Position is the position of the last event the view has handled.
	Position int64 `json:"position"`
}

// memberView is the answer of GET /accounts/{memberId}/holds.
type memberView struct {
	MemberID string           `json:"memberId"`
	Holds    []holds.HoldView `json:"holds"`
	// More is true when the member has more holds than holds.MaxPageSize, those of the last books.
	More     bool  `json:"more"`
	Position int64 `json:"position"`
}

// listParameters are the query parameters GET /holds takes.
var listParameters = []string{"status", "bookId", "cursor", "limit"}

func (h Routes) list(w http.ResponseWriter, r *http.Request) error {
	query, err := httpapi.QueryParams(r, listParameters, "GET /holds takes status, bookId, cursor and limit")
	if err != nil {
		return err
	}
	filter, err := holds.ParseFilter(query.Get("status"), query.Get("bookId"), query.Get("limit"), query.Get("cursor"))
	if err != nil {
		return err
	}
	page, pos, err := h.View.List(r.Context(), filter)
	if err != nil {
		return err
	}
	view := listView{Holds: holds.ViewsOf(page.Holds), Position: pos.Checkpoint.Position}
	if next := page.Next(); next != "" {
		view.Next = &next
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}

func (h Routes) forMember(w http.ResponseWriter, r *http.Request) error {
	memberID, err := httpapi.PathID(r, "memberId")
	if err != nil {
		return err
	}
	if err := validate.MemberID("memberId", memberID); err != nil {
		return err
	}
	if _, err := httpapi.QueryParams(r, nil, "GET /accounts/{memberId}/holds takes no query parameters"); err != nil {
		return err
	}
	page, pos, err := h.View.List(r.Context(), holds.Filter{MemberID: memberID, Limit: holds.MaxPageSize})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusOK, memberView{
		MemberID: memberID, Holds: holds.ViewsOf(page.Holds), More: page.More, Position: pos.Checkpoint.Position,
	})
	return nil
}
