// Package titlesapi is the HTTP face of package titles: POST /titles, PATCH /titles/{titleId}
// and GET /titles/{titleId}, each command run through titles.Service and answered in the API's
// result shape (docs/api.md). Who may call each route is the rules table's to say (package
// auth).
//
// It promises that a title added without an id gets one derived from the request's
// Idempotency-Key (then required), so that a retry adds nothing twice; that PATCH reads a JSON
// merge patch (RFC 7396), a member left out left as it is and one set to null removed; and
// that GET answers the record with its copies, each read from its own stream, and their counts,
// showing who borrowed a copy, or waits for it on the hold shelf, to staff only (a member sees
// whether it is theirs), as GET /books/{bookId} shows a borrower. Copies are added to a title
// by package booksapi (POST /titles/{titleId}/copies), since each is a book.
package titlesapi

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/httpapi"
	"library/internal/httpapi/commandhttp"
	"library/internal/titles"
)

// Routes are the title endpoints of the HTTP API.
type Routes struct {
	Service *titles.Service
	// Copies reads a title's copies.
	Copies Copies
	// Holders gives up copies held for members.
	Holders Holders
}

// Routes implements httpapi.Module.
func (h Routes) Routes(r chi.Router) {
	r.Post("/titles", commandhttp.Command("", commandhttp.KeyOptional, h.add))
	r.Get("/titles/{titleId}", httpapi.Handle(h.get))
	r.Patch("/titles/{titleId}", mergePatchOnly(commandhttp.Command("titleId", commandhttp.KeyOptional, h.change)))
	r.Post("/titles/{titleId}/holds", commandhttp.Command("titleId", commandhttp.KeyRequired, h.placeHold))
	r.Delete("/titles/{titleId}/holds/{memberId}", httpapi.Handle(h.cancelHold))
	r.Get("/titles/{titleId}/holds", httpapi.Handle(h.queue))
}

// addRequest is the body of POST /titles. An optional member may be left out or null.
type addRequest struct {
	ID        *string  `json:"id"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	ISBN      *string  `json:"isbn"`
	Year      *int     `json:"year"`
	Publisher *string  `json:"publisher"`
	Language  *string  `json:"language"`
	Subjects  []string `json:"subjects"`
}

// add answers POST /titles. A title added without an id gets the one derived from the
// Idempotency-Key and the caller (titles.IDFor), so that a retry lands on the title its first
// attempt added and is answered as that attempt was; without a key, a retry would add a second
// title, so the key is then required.
func (h Routes) add(ctx context.Context, _ string, body addRequest, o aggregate.Origin) (aggregate.Result, error) {
	c := titles.AddTitle{Title: body.Title, Authors: body.Authors, ISBN: body.ISBN, Year: body.Year,
		Publisher: body.Publisher, Language: body.Language, Subjects: body.Subjects}
	switch {
	case body.ID != nil:
		c.ID = *body.ID
	case o.CommandID == "":
		return aggregate.Result{}, errs.E(errs.IdempotencyKeyMissing,
			"send an id, or an Idempotency-Key header from which the title's id is made, so that a retry cannot add the title twice")
	default:
		c.ID = titles.IDFor(o.Actor.Issuer, o.Actor.Subject, o.CommandID)
	}
	return h.Service.Add(ctx, c, o)
}

func (h Routes) get(w http.ResponseWriter, r *http.Request) error {
	titleID, err := httpapi.PathID(r, "titleId")
	if err != nil {
		return err
	}
	title, version, err := h.Service.Get(r.Context(), titleID)
	if err != nil {
		return err
	}
	copies, err := readCopies(r.Context(), h.Copies, title.Copies)
	if err != nil {
		return err
	}
	view := viewOf(title, version)
	view.Copies, view.Counts = copiesFor(copies, auth.AccessFrom(r.Context()))
	view.Counts.HoldsWaiting += len(title.Holds)
	httpapi.WriteJSON(w, r, http.StatusOK, view)
	return nil
}

// titleView is a title as GET /titles/{titleId} shows it: its record, an optional field null
// when the title has none, and its copies and their counts.
type titleView struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	Authors   []string `json:"authors"`
	ISBN      *string  `json:"isbn"`
	Year      *int     `json:"year"`
	Publisher *string  `json:"publisher"`
	Language  *string  `json:"language"`
	Subjects  []string `json:"subjects"`
	// Copies are the title's copies, in the order they were added.
	Copies []copyView `json:"copies"`
	Counts copyCounts `json:"counts"`
	// Version is the title's stream's version.
	Version int64 `json:"version"`
}

func viewOf(t titles.Title, version int64) titleView {
	subjects := t.Subjects
	if subjects == nil {
		subjects = []string{}
	}
	return titleView{ID: t.ID, Title: t.Title, Authors: t.Authors, ISBN: given(t.ISBN), Year: given(t.Year),
		Publisher: given(t.Publisher), Language: given(t.Language), Subjects: subjects, Version: version}
}

// given is nil for a field's zero value, which is its absence, and the value otherwise.
func given[T comparable](v T) *T {
	var zero T
	if v == zero {
		return nil
	}
	return &v
}
