package books

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"strings"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/validate"
)

// Copies: a book is a copy of a title. A copy is added in one append with its title's part (a
// CopyAdded on the title's stream, and the title's TitleAdded first when the copy brings the
// title's record: a book added through POST /books) and its barcode's reservation, each at the
// version of its stream it was decided on. So a title and its copies agree at every append: a
// title lists every copy that names it, and no other; and two copies given one barcode at once,
// on any replicas, end with one of them added and the other refused (errs.BarcodeTaken).

// Titles is what copies need of their titles, which package titles keeps and this package does
// not import (internal/app fills it with titles.Service).
type Titles interface {
	// Record returns a title's title and authors, for its copies' BookAdded; errs.NotFound for a
	// title never added.
	Record(ctx context.Context, titleID string) (title string, authors []string, err error)
	// WithISBN returns the id of the title that holds an ISBN (its 13 digits) now, "" for none.
	WithISBN(ctx context.Context, isbn13 string) (string, error)
	// Shelve returns the title's part of a copy's append: CopyAdded, decided on the title as the
	// log holds it now (nothing for a copy it lists already). A title never added is
	// errs.NotFound, unless the copy brings its record (Shelving.Record): then TitleAdded comes
	// first, and the title's ISBN is reserved in the same part.
	Shelve(ctx context.Context, s Shelving) (aggregate.Also, error)
	// Shelf: what copies' commands need of their title's queue (shelf.go).
	Shelf
	// HoldCopy puts a member in the title's queue for the copy bookID alone; LeaveQueue takes
	// them out of it.
	HoldCopy(ctx context.Context, titleID, bookID, memberID string, o aggregate.Origin) (aggregate.Result, error)
	LeaveQueue(ctx context.Context, titleID, memberID string, o aggregate.Origin) (aggregate.Result, error)
	// Adopting returns the title's part of a book's adoption, at version (adopt.go): the title's
	// record when it has none, the copy and where it is, and the holds of its queue.
	Adopting(ctx context.Context, titleID string, version int64, a Adoption) (aggregate.Also, error)
}

// Shelving is a copy joining its title.
type Shelving struct {
	TitleID string
	BookID  string
	Barcode string
	// Record, when set, is the title to add first when it has no record yet: the one made for
	// a book added on its own. Nil: the title must have been added (POST /titles).
	Record *TitleRecord
}

// TitleRecord is the record of a title made for a book added on its own: the book's title and
// author, and the ISBN it was added with ("" for none).
type TitleRecord struct {
	Title  string
	Author string
	ISBN   string
}

// AddCopy asks to add a copy of a title (POST /titles/{titleId}/copies): a book with a barcode.
type AddCopy struct {
	ID      string `json:"id"`
	TitleID string `json:"titleId"`
	Barcode string `json:"barcode"`
	// MaterialType and ReplacementPrice (cents) are optional: a copy without a type is a
	// circulation.DefaultMaterialType, and one without a price caps no fine at it.
	MaterialType     string `json:"materialType,omitempty"`
	ReplacementPrice int64  `json:"replacementPrice,omitempty"`
	// CallNumber is optional: where the copy stands on the shelves.
	CallNumber string `json:"callNumber,omitempty"`
}

// MaxCallNumberLength is the longest call number a copy keeps, in characters.
const MaxCallNumberLength = 100

// Checked checks the fields and returns the command with its barcode as the book keeps it.
func (c AddCopy) Checked() (AddCopy, error) {
	if err := validate.All(validate.ID("id", c.ID), validate.ID("titleId", c.TitleID)); err != nil {
		return AddCopy{}, err
	}
	barcode, err := Barcode("barcode", c.Barcode)
	if err != nil {
		return AddCopy{}, err
	}
	c.Barcode = barcode
	if c.CallNumber != "" {
		if err := validate.Text("callNumber", c.CallNumber, MaxCallNumberLength); err != nil {
			return AddCopy{}, err
		}
	}
	c.MaterialType, err = checkMaterial(c.MaterialType, c.ReplacementPrice)
	return c, err
}

// Decide adds the copy, with the title and author of its title; a book is added once.
func (c AddCopy) Decide(b Book, title, author string) ([]Event, error) {
	if b.Added {
		return nil, errs.E(errs.BookAlreadyExists, "book %s already exists", c.ID)
	}
	return []Event{BookAdded{ID: c.ID, TitleID: c.TitleID, Barcode: c.Barcode, Title: title, Author: author,
		MaterialType: c.MaterialType, ReplacementPrice: c.ReplacementPrice, CallNumber: c.CallNumber}}, nil
}

// IDFor is the id of the copy that a caller adds without choosing one, under an
// Idempotency-Key: the same key from the same caller (their issuer and subject) makes the same
// id, so a retry finds the copy its first attempt added, and answers with that attempt's result.
func IDFor(issuer, subject, idempotencyKey string) string {
	sum := sha256.Sum256([]byte("copy\x00" + issuer + "\x00" + subject + "\x00" + idempotencyKey))
	return "b_" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(sum[:15]))
}

// AuthorOf is the author a copy of a title with these authors keeps in its BookAdded: their
// names, in order, separated by commas.
func AuthorOf(authors []string) string { return strings.Join(authors, ", ") }
