package titles

import (
	"context"
	"strings"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/reservations"
	"library/internal/validate"
)

// ShelveCopy asks that a title list a copy of it, the book BookID with its Barcode ("" for
// none). Record, when set, is the title to add first when it has no record yet: the one made
// for a book added on its own (POST /books), or for a book added before books were copies of
// titles (the adoption saga); its ID is the title's.
type ShelveCopy struct {
	BookID  string    `json:"bookId"`
	Barcode string    `json:"barcode,omitempty"`
	Record  *AddTitle `json:"record,omitempty"`
}

// checked checks the copy and the record, a year against the service's clock, and returns the
// command with its record as the title keeps it.
func (c ShelveCopy) checked(s *Service, titleID string) (ShelveCopy, error) {
	if err := validate.All(validateID(titleID), validate.ID("bookId", c.BookID)); err != nil {
		return ShelveCopy{}, err
	}
	if c.Record == nil {
		return c, nil
	}
	record, err := c.Record.Checked(s.now())
	if err != nil {
		return ShelveCopy{}, err
	}
	if record.ID != titleID {
		return ShelveCopy{}, errs.E(errs.Internal, "the record of title %s is given for title %s", record.ID, titleID)
	}
	c.Record = &record
	return c, nil
}

// Decide lists the copy: CopyAdded, after TitleAdded when the title has no record yet and the
// command brings one. A copy the title lists already records nothing; a title never added with
// no record given is errs.NotFound.
func (c ShelveCopy) Decide(t Title) ([]Event, error) {
	var events []Event
	switch {
	case !t.Added && c.Record == nil:
		return nil, errs.E(errs.NotFound, "there is no such title")
	case !t.Added:
		added, err := c.Record.Decide(t)
		if err != nil {
			return nil, err
		}
		events = added
	case t.HasCopy(c.BookID):
		return nil, nil
	}
	return append(events, CopyAdded{BookID: c.BookID, Barcode: c.Barcode}), nil
}

// Shelve is a copy's title's part of the copy's append (aggregate.Also; books.Titles): the
// title's events that ShelveCopy decides on the title as the log holds it now, at that version,
// and the reservation of the ISBN of a title added with them.
func (s *Service) Shelve(ctx context.Context, titleID string, c ShelveCopy) (aggregate.Also, error) {
	c, err := c.checked(s, titleID)
	if err != nil {
		return aggregate.Also{}, err
	}
	loaded, err := s.repo.Load(ctx, titleID)
	if err != nil {
		return aggregate.Also{}, err
	}
	events, err := c.Decide(loaded.State)
	if err != nil {
		return aggregate.Also{}, err
	}
	part := aggregate.Also{StreamID: Type().StreamID(titleID), ExpectedVersion: loaded.Version, Events: events, Codecs: Type().Events}
	reserved, err := s.reserveAdded(ctx, titleID, events)
	if err != nil {
		return aggregate.Also{}, err
	}
	part.More = []aggregate.Also{reserved}
	return part, nil
}

// reserveAdded is the reservation of the ISBN of a title that decided events add, in their
// append; nothing when they add no title, or one without an ISBN.
func (s *Service) reserveAdded(ctx context.Context, titleID string, decided []Event) (aggregate.Also, error) {
	for _, e := range decided {
		if added, ok := e.(TitleAdded); ok {
			return s.reservations.Move(ctx, reservations.ISBN, Type().StreamID(titleID), "", added.ISBN)
		}
	}
	return aggregate.Also{}, nil
}

// WithISBN returns the id of the title that holds an ISBN (its 13 digits) now, "" for none.
func (s *Service) WithISBN(ctx context.Context, isbn13 string) (string, error) {
	owner, err := s.reservations.Holder(ctx, reservations.ISBN, isbn13)
	if err != nil || owner == "" {
		return "", err
	}
	titleID, ok := strings.CutPrefix(owner, Type().Name+"-")
	if !ok {
		return "", errs.E(errs.Internal, "ISBN %s is held by %s, which is no title", isbn13, owner)
	}
	return titleID, nil
}
