// Package cataloghttp serves the catalog over HTTP: GET /books, its filters and pages, and its
// wait for a position (catalog.Query), each book shown as its caller may see it (catalogview);
// GET /titles, the catalog's titles, their search, pages and counts, the same for everyone;
// and GET /books?barcode=, the copy that has a barcode, read from the log through its barcode's
// reservation rather than from the catalog, which may be behind (the rules table lets only
// librarians ask it).
package cataloghttp

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/go-chi/chi/v5"

	"library/internal/auth"
	"library/internal/books"
	"library/internal/catalog"
	"library/internal/catalog/catalogview"
	"library/internal/errs"
	"library/internal/httpapi"
)

// Routes are the catalog's endpoints of the HTTP API: GET /books and GET /titles. Who may call
// them is the rules table's to say (package auth); GET /books shows borrowers to staff only.
type Routes struct {
	Query catalog.Query
	// Copies finds a copy by its barcode (GET /books?barcode=).
	Copies Copies
}

// Copies finds a copy by its barcode (books.Service is one).
type Copies interface {
	FindByBarcode(ctx context.Context, barcode string) (books.Book, int64, error)
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Get("/books", httpapi.Handle(h.list))
	r.Get("/titles", httpapi.Handle(h.titles))
}

// listView is the answer of GET /books.
type listView struct {
	Books []catalogview.BookView `json:"books"`
	// Position is the position of the last event the catalog has handled.
	Position int64 `json:"position"`
	// Next is the cursor of the next page, null on the last.
	Next *string `json:"next"`
}

// listParameters are the query parameters GET /books takes; barcode is taken alone.
var listParameters = []string{"status", "q", "limit", "after", "minPosition", "barcode"}

func (h Routes) list(w http.ResponseWriter, r *http.Request) error {
	query, err := parseQuery(r, listParameters, "GET /books takes status, q, limit, after and minPosition, or barcode alone")
	if err != nil {
		return err
	}
	if query.Has("barcode") {
		return h.copyWith(w, r, query)
	}
	filter, err := catalog.ParseFilter(query.Get("status"), query.Get("q"), query.Get("limit"), query.Get("after"))
	if err != nil {
		return err
	}
	minPosition, err := parseMinPosition(query)
	if err != nil {
		return err
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

// parseQuery reads a request's query string, each parameter one of those allowed, given once;
// usage says which a refusal of another.
func parseQuery(r *http.Request, allowed []string, usage string) (url.Values, error) {
	// URL.Query would drop a pair it can't decode (a bad %-escape, a semicolon) without a word,
	// and a search left out would list everything.
	query, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errs.E(errs.InvalidRequest, "the query string is malformed: use & between parameters and %%XX escapes")
	}
	for name, values := range query {
		switch {
		case !slices.Contains(allowed, name):
			return nil, errs.E(errs.InvalidRequest, "unknown query parameter; %s", usage)
		case len(values) > 1:
			return nil, errs.E(errs.InvalidRequest, "%s may be given once", name)
		}
	}
	return query, nil
}

// parseMinPosition reads minPosition: 0 when left out.
func parseMinPosition(query url.Values) (int64, error) {
	s := query.Get("minPosition")
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errs.E(errs.InvalidRequest, "minPosition must be a whole number, 0 or more")
	}
	return n, nil
}

// copyWith answers GET /books?barcode=: the copy that has the barcode, as GET /books/{bookId}
// shows it, read from its stream.
func (h Routes) copyWith(w http.ResponseWriter, r *http.Request, query url.Values) error {
	if len(query) > 1 {
		return errs.E(errs.InvalidRequest, "barcode is given alone: it finds one copy, not a page of the catalog")
	}
	book, version, err := h.Copies.FindByBarcode(r.Context(), query.Get("barcode"))
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusOK, catalogview.ForBook(book, version, auth.AccessFrom(r.Context())))
	return nil
}
