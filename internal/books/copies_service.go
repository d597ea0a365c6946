package books

import (
	"context"
	"strings"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/reservations"
	"library/internal/validate"
)

// Add adds a book on its own (POST /books), as clients added books before titles: a copy of the
// title that holds its ISBN, or else of the title made for it (its title and author, and its
// ISBN; TitleIDOf, or TitleIDForISBN with an ISBN), which is added in the same append when it
// has no record yet. Its barcode, when it has one, is reserved in that append too.
func (s *Service) Add(ctx context.Context, c AddBook, o aggregate.Origin) (aggregate.Result, error) {
	c, err := c.Checked()
	if err != nil {
		return aggregate.Result{}, err
	}
	if c.TitleID, err = s.titleFor(ctx, c); err != nil {
		return aggregate.Result{}, err
	}
	var title func(context.Context) (aggregate.Also, error)
	if s.titles != nil {
		shelving := Shelving{TitleID: c.TitleID, BookID: c.ID, Barcode: c.Barcode,
			Record: &TitleRecord{Title: c.Title, Author: c.Author, ISBN: c.ISBN}}
		title = func(ctx context.Context) (aggregate.Also, error) { return s.titles.Shelve(ctx, shelving) }
	}
	return s.repo.Execute(ctx, c.ID, s.shelved(aggregate.Command[Book]{
		Name: "addBook", Origin: o, Payload: c,
		Decide: c.Decide,
	}, c.ID, c.TitleID, s.shelve(c.ID, c.Barcode, title)))
}

// titleFor is the title a book added on its own joins: the holder of its ISBN, or the title
// made for it. (Should another title take the ISBN between this read and the append, the
// title made for the book can't have it: the append is refused errs.TitleAlreadyExists, and
// a retry joins that title.)
func (s *Service) titleFor(ctx context.Context, c AddBook) (string, error) {
	if c.ISBN == "" {
		return TitleIDOf(c.Title, c.Author), nil
	}
	if s.titles != nil {
		holder, err := s.titles.WithISBN(ctx, c.ISBN)
		if err != nil || holder != "" {
			return holder, err
		}
	}
	return TitleIDForISBN(c.ISBN), nil
}

// AddCopy adds a copy of a title that was added (POST /titles/{titleId}/copies), with the
// title and authors the title has now, and records it on the title and reserves its barcode in
// the same append. A title never added is errs.NotFound; a barcode another copy has,
// errs.BarcodeTaken.
func (s *Service) AddCopy(ctx context.Context, c AddCopy, o aggregate.Origin) (aggregate.Result, error) {
	c, err := c.Checked()
	if err != nil {
		return aggregate.Result{}, err
	}
	if s.titles == nil {
		return aggregate.Result{}, errs.E(errs.Internal, "copies of titles need titles (WithTitles)")
	}
	title, authors, err := s.titles.Record(ctx, c.TitleID)
	if err != nil {
		return aggregate.Result{}, err
	}
	shelving := Shelving{TitleID: c.TitleID, BookID: c.ID, Barcode: c.Barcode}
	return s.repo.Execute(ctx, c.ID, s.shelved(aggregate.Command[Book]{
		Name: "addCopy", Origin: o, Payload: c,
		Decide: func(b Book) ([]Event, error) { return c.Decide(b, title, AuthorOf(authors)) },
	}, c.ID, c.TitleID, s.shelve(c.ID, c.Barcode, func(ctx context.Context) (aggregate.Also, error) {
		return s.titles.Shelve(ctx, shelving)
	})))
}

// shelve is the Also of the commands that add a copy: its title's part (title; nil for none)
// and its barcode's reservation ("" for none), in the copy's append. Nil when there is neither,
// so that such a command is decided in a group with others, as books were added before copies.
func (s *Service) shelve(bookID, barcode string, title func(context.Context) (aggregate.Also, error)) func(context.Context, []Event) (aggregate.Also, error) {
	if title == nil && barcode == "" {
		return nil
	}
	return func(ctx context.Context, _ []Event) (aggregate.Also, error) {
		var part aggregate.Also
		if title != nil {
			var err error
			if part, err = title(ctx); err != nil {
				return aggregate.Also{}, err
			}
		}
		if barcode != "" {
			reserved, err := s.barcodes.Move(ctx, reservations.Barcode, Type().StreamID(bookID), "", barcode)
			if err != nil {
				return aggregate.Also{}, err
			}
			part.More = append(part.More[:len(part.More):len(part.More)], reserved)
		}
		return part, nil
	}
}

// FindByBarcode returns the copy that has a barcode, as written (Barcode), and its stream
// version; errs.NotFound when no copy has it.
func (s *Service) FindByBarcode(ctx context.Context, written string) (Book, int64, error) {
	barcode, err := Barcode("barcode", written)
	if err != nil {
		return Book{}, 0, err
	}
	owner, err := s.barcodes.Holder(ctx, reservations.Barcode, barcode)
	if err != nil {
		return Book{}, 0, err
	}
	bookID, ok := strings.CutPrefix(owner, Type().Name+"-")
	if !ok {
		return Book{}, 0, errs.E(errs.NotFound, "no copy has this barcode")
	}
	return s.Get(ctx, bookID)
}

// SetMaterialType sets a copy's material type, and its replacement price when c has one.
func (s *Service) SetMaterialType(ctx context.Context, bookID string, c SetMaterialType, o aggregate.Origin) (aggregate.Result, error) {
	if err := validate.ID("bookId", bookID); err != nil {
		return aggregate.Result{}, err
	}
	c, err := c.Checked()
	if err != nil {
		return aggregate.Result{}, err
	}
	return s.repo.Execute(ctx, bookID, aggregate.Command[Book]{Name: "setMaterialType", Origin: o, Payload: c, Decide: c.Decide})
}
