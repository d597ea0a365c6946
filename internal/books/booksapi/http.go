package booksapi

import (
	"context"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"

	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/books"
	"library/internal/catalog/catalogview"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
)

// Routes are the book endpoints of the HTTP API but GET /books, the catalog's (package
// catalog). Who may call each is the rules table's to say (package auth); the reads show
// borrowers to staff only.
type Routes struct {
	Service *books.Service
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Post("/books", commandhttp.Command("", commandhttp.KeyOptional, h.add))
	r.Post("/titles/{titleId}/copies", commandhttp.Command("titleId", commandhttp.KeyOptional, h.addCopy))
	r.Get("/books/{bookId}", httpapi.Handle(h.get))
	r.Put("/books/{bookId}/material-type", commandhttp.Command("bookId", commandhttp.KeyOptional, h.putMaterial))
	r.Post("/books/{bookId}/loans", commandhttp.Command("bookId", commandhttp.KeyOptional, h.lend))
	r.Post("/books/{bookId}/returns", commandhttp.Command("bookId", commandhttp.KeyOptional, h.giveBack))
	r.Post("/books/{bookId}/lost", commandhttp.Command("bookId", commandhttp.KeyOptional, h.declareLost))
	r.Post("/books/{bookId}/claimed-returned", commandhttp.Command("bookId", commandhttp.KeyOptional, h.claimReturned))
	r.Post("/books/{bookId}/loans/{loanId}/renewals", httpapi.Handle(h.renew))
	r.Post("/books/{bookId}/holds", commandhttp.Command("bookId", commandhttp.KeyRequired, h.placeHold))
	r.Delete("/books/{bookId}/holds/{memberId}", httpapi.Handle(h.cancelHold))
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
	httpapi.WriteJSON(w, r, http.StatusOK, catalogview.ForBook(book, version, auth.AccessFrom(r.Context())))
	return nil
}

// addRequest is the body of POST /books. An optional member may be left out or null.
type addRequest struct {
	ID               string  `json:"id"`
	Title            string  `json:"title"`
	Author           string  `json:"author"`
	ISBN             *string `json:"isbn"`
	Barcode          *string `json:"barcode"`
	MaterialType     string  `json:"materialType"`
	ReplacementPrice int64   `json:"replacementPrice"`
}

// add answers POST /books: a book on its own, as clients added books before titles, now a copy
// of the title that holds its ISBN or of the one made for it (books.Service.Add).
func (h Routes) add(ctx context.Context, _ string, body addRequest, o aggregate.Origin) (aggregate.Result, error) {
	c := books.AddBook{ID: body.ID, Title: body.Title, Author: body.Author, MaterialType: body.MaterialType, ReplacementPrice: body.ReplacementPrice}
	if body.ISBN != nil {
		if *body.ISBN == "" {
			return aggregate.Result{}, errs.E(errs.InvalidRequest, "isbn must be an ISBN-10 or ISBN-13, or be left out")
		}
		c.ISBN = *body.ISBN
	}
	if body.Barcode != nil {
		if *body.Barcode == "" {
			return aggregate.Result{}, errs.E(errs.InvalidRequest, "barcode must be a barcode, or be left out")
		}
		c.Barcode = *body.Barcode
	}
	return h.Service.Add(ctx, c, o)
}

// lendRequest is the body of POST /books/{bookId}/loans.
type lendRequest struct {
	LoanID   string  `json:"loanId"`
	MemberID string  `json:"memberId"`
	DueAt    *string `json:"dueAt"`
}

func (h Routes) lend(ctx context.Context, bookID string, body lendRequest, o aggregate.Origin) (aggregate.Result, error) {
	cmd := books.LendBook{LoanID: body.LoanID, MemberID: body.MemberID}
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

// returnRequest is the body of POST /books/{bookId}/returns: the loan to end, by id (a kiosk
// returns the current loan, which HTTP clients don't).
type returnRequest struct {
	LoanID string `json:"loanId"`
}

func (h Routes) giveBack(ctx context.Context, bookID string, body returnRequest, o aggregate.Origin) (aggregate.Result, error) {
	return h.Service.Return(ctx, bookID, books.ReturnBook{LoanID: body.LoanID}, o)
}
