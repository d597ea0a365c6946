// Package loanshttp serves the loans view over HTTP: GET /loans, for staff, and
// GET /accounts/{memberId}/loans, each loan shown at the service's clock (loans.Policy).
package loanshttp

import (
	"net/http"

	"github.com/go-chi/chi/v5"

	"library/internal/httpapi"
	"library/internal/loans"
	"library/internal/validate"
)

// Routes are the view's endpoints of the HTTP API: GET /loans, for staff, and
// GET /accounts/{memberId}/loans, for the member and staff. Who may call them is the rules
// table's to say (package auth).
type Routes struct {
	View   loans.View
	Policy loans.Policy
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Get("/loans", httpapi.Handle(h.list))
	r.Get("/accounts/{memberId}/loans", httpapi.Handle(h.forMember))
}

// listView is the answer of GET /loans.
type listView struct {
	Loans []loans.LoanView `json:"loans"`
	// Next is the cursor of the next page, null on the last.
	Next *string `json:"next"`
	// Position is the position of the last event the view has handled.
	Position int64 `json:"position"`
}

// memberView is the answer of GET /accounts/{memberId}/loans.
type memberView struct {
	MemberID string           `json:"memberId"`
	Loans    []loans.LoanView `json:"loans"`
	// More is true when the member has more current loans than MaxPageSize, those due last.
	More     bool  `json:"more"`
	Position int64 `json:"position"`
}

// listParameters are the query parameters GET /loans takes.
var listParameters = []string{"memberId", "overdue", "cursor", "limit"}

func (h Routes) list(w http.ResponseWriter, r *http.Request) error {
	query, err := httpapi.QueryParams(r, listParameters, "GET /loans takes memberId, overdue, cursor and limit")
	if err != nil {
		return err
	}
	now := h.Policy.Now()
	filter, err := loans.ParseFilter(query.Get("memberId"), query.Get("overdue"), query.Get("limit"), query.Get("cursor"), now)
	if err != nil {
		return err
	}
	page, pos, err := h.View.List(r.Context(), filter)
	if err != nil {
		return err
	}
	view := listView{Loans: h.Policy.ViewsAt(page.Loans, now), Position: pos.Checkpoint.Position}
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
	if _, err := httpapi.QueryParams(r, nil, "GET /accounts/{memberId}/loans takes no query parameters"); err != nil {
		return err
	}
	now := h.Policy.Now()
	page, pos, err := h.View.List(r.Context(), loans.Filter{MemberID: memberID, Limit: loans.MaxPageSize})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusOK, memberView{
		MemberID: memberID, Loans: h.Policy.ViewsAt(page.Loans, now), More: page.More, Position: pos.Checkpoint.Position,
	})
	return nil
}
