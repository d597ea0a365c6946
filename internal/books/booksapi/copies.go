package booksapi

import (
	"context"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
)

// copyRequest is the body of POST /titles/{titleId}/copies. The id may be left out or null.
type copyRequest struct {
	ID               *string `json:"id"`
	Barcode          string  `json:"barcode"`
	MaterialType     string  `json:"materialType"`
	ReplacementPrice int64   `json:"replacementPrice"`
}

// addCopy answers POST /titles/{titleId}/copies: a copy of a title, with its barcode, recorded
// on the title and its barcode reserved in the copy's append (books.Service.AddCopy). A copy
// added without an id gets the one derived from the Idempotency-Key and the caller
// (books.IDFor), so that a retry lands on the copy its first attempt added and is answered as
// that attempt was; without a key, a retry would add a second copy, so the key is then required.
func (h Routes) addCopy(ctx context.Context, titleID string, body copyRequest, o aggregate.Origin) (aggregate.Result, error) {
	c := books.AddCopy{TitleID: titleID, Barcode: body.Barcode, MaterialType: body.MaterialType, ReplacementPrice: body.ReplacementPrice}
	switch {
	case body.ID != nil:
		c.ID = *body.ID
	case o.CommandID == "":
		return aggregate.Result{}, errs.E(errs.IdempotencyKeyMissing,
			"send an id, or an Idempotency-Key header from which the copy's id is made, so that a retry cannot add the copy twice")
	default:
		c.ID = books.IDFor(o.Actor.Issuer, o.Actor.Subject, o.CommandID)
	}
	return h.Service.AddCopy(ctx, c, o)
}

// materialRequest is the body of PUT /books/{bookId}/material-type.
type materialRequest struct {
	MaterialType     string `json:"materialType"`
	ReplacementPrice *int64 `json:"replacementPrice"`
}

// putMaterial sets a copy's material type, and its replacement price when given.
func (h Routes) putMaterial(ctx context.Context, bookID string, body materialRequest, o aggregate.Origin) (aggregate.Result, error) {
	return h.Service.SetMaterialType(ctx, bookID, books.SetMaterialType(body), o)
}
