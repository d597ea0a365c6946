// Package cataloghttp serves the catalog over HTTP: GET /books, its filters and pages, and its
// wait for a position (catalog.Query), each book shown as its caller may see it (catalogview).
package cataloghttp

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"

	"library/internal/auth"
	"library/internal/catalog"
	"library/internal/catalog/catalogview"
	"library/internal/errs"
	"library/internal/httpapi"
)

// Routes are the catalog's endpoint of the HTTP API: GET /books. Who may call it is the rules
// table's to say (package auth); it shows borrowers to staff only.
type Routes struct {
	Query catalog.Query
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Get("/books", httpapi.Handle(h.list))
}

// listView is the answer of GET /books.
type listView struct {
	Books []catalogview.BookView `json:"books"`
	// Position is the position of the last event the catalog has handled.
	Position int64 `json:"position"`
	// Next is the cursor of the next page, null on the last.
	Next *string `json:"next"`
}

// listParameters are the query parameters GET /books takes.
var listParameters = []string{"status", "q", "limit", "after", "minPosition"}

func (h Routes) list(w http.ResponseWriter, r *http.Request) error {
	// URL.Query would drop a pair it can't decode (a bad %-escape, a semicolon) without a word,
	// and a search left out would list every book.
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return errs.E(errs.InvalidRequest, "the query string is malformed: use & between parameters and %%XX escapes")
	}
	for name, values := range query {
		switch {
		case !slices.Contains(listParameters, name):
			return errs.E(errs.InvalidRequest, "unknown query parameter; GET /books takes status, q, limit, after and minPosition")
		case len(values) > 1:
			return errs.E(errs.InvalidRequest, "%s may be given once", name)
		}
	}
	filter, err := catalog.ParseFilter(query.Get("status"), query.Get("q"), query.Get("limit"), query.Get("after"))
	if err != nil {
		return err
	}
	var minPosition int64
	if s := query.Get("minPosition"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 0 {
			return errs.E(errs.InvalidRequest, "minPosition must be a whole number, 0 or more")
		}
		minPosition = n
	}
	page, pos, err := h.Query.List(r.Context(), filter, minPosition, httpapi.ClientKey(r))
	if err != nil {
		return err
	}
	view := listView{Books: catalogview.ForPage(page.Books, auth.AccessFrom(r.Context())), Position: pos.Checkpoint.Position}
	if next := page.Next(); next != "" {
		view.Next = &next
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}
