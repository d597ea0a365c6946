package books

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/go-chi/chi/v5"

	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/httpapi"
)

// Routes are the book endpoints of the HTTP API. Who may call each is the rules table's to say
// (package auth); the reads show borrowers to staff only.
type Routes struct {
	Service *Service
	Catalog CatalogQuery
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Post("/books", httpapi.Command("", httpapi.KeyOptional, h.add))
	r.Get("/books", httpapi.Handle(h.list))
	r.Get("/books/{bookId}", httpapi.Handle(h.get))
	r.Post("/books/{bookId}/loans", httpapi.Command("bookId", httpapi.KeyOptional, h.lend))
	r.Post("/books/{bookId}/returns", httpapi.Command("bookId", httpapi.KeyOptional, h.giveBack))
}

// listView is the answer of GET /books.
type listView struct {
	Books []bookView `json:"books"`
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
	filter, err := ParseCatalogFilter(query.Get("status"), query.Get("q"), query.Get("limit"), query.Get("after"))
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
	page, pos, err := h.Catalog.List(r.Context(), filter, minPosition)
	if err != nil {
		return err
	}
	view := listView{Books: viewsFor(page.Books, auth.AccessFrom(r.Context())), Position: pos.Checkpoint.Position}
	if next := page.Next(); next != "" {
		view.Next = &next
	}
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}

func (h Routes) get(w http.ResponseWriter, r *http.Request) error {
	bookID, err := httpapi.PathID(r, "bookId")
	if err != nil {
		return err
	}
	book, version, err := h.Service.Get(r.Context(), bookID)
	if err != nil {
		return err
	}
	httpapi.WriteJSON(w, r, http.StatusOK, viewFor(CatalogBook{
		ID: book.ID, Title: book.Title, Author: book.Author, Status: book.Status(), Loan: book.Loan, Version: version,
	}, auth.AccessFrom(r.Context())))
	return nil
}

func (h Routes) add(ctx context.Context, _ string, body AddBook, o aggregate.Origin) (aggregate.Result, error) {
	return h.Service.Add(ctx, body, o)
}

// lendRequest is the body of POST /books/{bookId}/loans.
type lendRequest struct {
	LoanID   string  `json:"loanId"`
	MemberID string  `json:"memberId"`
	DueAt    *string `json:"dueAt"`
}

func (h Routes) lend(ctx context.Context, bookID string, body lendRequest, o aggregate.Origin) (aggregate.Result, error) {
	cmd := LendBook{LoanID: body.LoanID, MemberID: body.MemberID}
	if body.DueAt != nil {
		dueAt, err := time.Parse(time.RFC3339, *body.DueAt)
		if err != nil {
			return aggregate.Result{}, errs.E(errs.InvalidRequest, "dueAt must be an RFC 3339 time such as 2026-12-24T17:00:00Z")
		}
		dueAt = dueAt.UTC()
		cmd.DueAt = &dueAt
	}
	return h.Service.Lend(ctx, bookID, cmd, o)
}

func (h Routes) giveBack(ctx context.Context, bookID string, body ReturnBook, o aggregate.Origin) (aggregate.Result, error) {
	return h.Service.Return(ctx, bookID, body, o)
}
