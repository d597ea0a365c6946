package holds

import (
	"net/http"
	"net/url"
	"slices"

	"github.com/go-chi/chi/v5"

	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/validate"
)

// Routes are the view's endpoints of the HTTP API: GET /holds, for staff, and
// GET /accounts/{memberId}/holds, for the member and staff. Who may call them is the rules
// table's to say (package auth).
type Routes struct {
	View View
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Get("/holds", httpapi.Handle(h.list))
	r.Get("/accounts/{memberId}/holds", httpapi.Handle(h.forMember))
}

// listView is the answer of GET /holds.
type listView struct {
	Holds []HoldView `json:"holds"`
	// Next is the cursor of the next page, null on the last.
	Next *string `json:"next"`
	// Position is the position of the last event the view has handled.
	Position int64 `json:"position"`
}

// memberView is the answer of GET /accounts/{memberId}/holds.
type memberView struct {
	MemberID string     `json:"memberId"`
	Holds    []HoldView `json:"holds"`
	// More is true when the member has more holds than MaxPageSize, those of the last books.
	More     bool  `json:"more"`
	Position int64 `json:"position"`
}

// listParameters are the query parameters GET /holds takes.
var listParameters = []string{"status", "bookId", "cursor", "limit"}

func (h Routes) list(w http.ResponseWriter, r *http.Request) error {
	query, err := parseQuery(r, listParameters, "GET /holds takes status, bookId, cursor and limit")
	if err != nil {
		return err
	}
	filter, err := ParseFilter(query.Get("status"), query.Get("bookId"), query.Get("limit"), query.Get("cursor"))
	if err != nil {
		return err
	}
	page, pos, err := h.View.List(r.Context(), filter)
	if err != nil {
		return err
	}
	view := listView{Holds: viewsOf(page.Holds), Position: pos.Checkpoint.Position}
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
	if _, err := parseQuery(r, nil, "GET /accounts/{memberId}/holds takes no query parameters"); err != nil {
		return err
	}
	page, pos, err := h.View.List(r.Context(), Filter{MemberID: memberID, Limit: MaxPageSize})
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusOK, memberView{
		MemberID: memberID, Holds: viewsOf(page.Holds), More: page.More, Position: pos.Checkpoint.Position,
	})
	return nil
}

// parseQuery reads the query string, refusing one that does not decode, a parameter not in
// allowed (unknown says which are), and one given twice. URL.Query would drop a pair it can't
// decode without a word, and a filter left out would list more than was asked.
func parseQuery(r *http.Request, allowed []string, unknown string) (url.Values, error) {
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "the query string is malformed: use & between parameters and %%XX escapes")
	}
	for name, values := range query {
		switch {
		case !slices.Contains(allowed, name):
			return nil, errs.E(errs.InvalidRequest, "unknown query parameter; %s", unknown)
		case len(values) > 1:
			return nil, errs.E(errs.InvalidRequest, "%s may be given once", name)
		}
	}
	return query, nil
}
