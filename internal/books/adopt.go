package books

import (
	"context"

	"library/internal/aggregate"
	"library/internal/errs"
)

// Adoption is a book added before books were copies of titles, as its title adopts it: the
// title it is a copy of (the one its title and author make), and where it is now, with the
// members waiting in its own queue, first in line first, whose holds the title takes over.
type Adoption struct {
	BookID  string
	TitleID string
	Barcode string
	Title   string
	Author  string
	// LentTo is the member the book is lent to; Held, the hold it waits on the shelf for.
	LentTo  string
	Held    *Held
	Waiting []string
}

// Adopt has the title of a book added before books were copies of titles record it (the
// adoption saga): the book records CopyAdopted, and its title, in the same append, the copy and
// where it is, and the holds of the book's queue, which become holds on the title ahead of any
// placed since (the members wanted the book, not this copy). A book that comes free in the
// append (one on the shelf, adopted by a title whose members wait) is held for the first of
// them. A book its title records already records nothing.
func (s *Service) Adopt(ctx context.Context, bookID string, o aggregate.Origin) (aggregate.Result, error) {
	if s.titles == nil {
		return aggregate.Result{}, errs.E(errs.Internal, "books are adopted by titles: no titles (WithTitles)")
	}
	var on *onShelf
	var adoption Adoption
	return s.repo.Execute(ctx, bookID, aggregate.Command[Book]{
		Name: "adoptCopy", Origin: o, Payload: bookID,
		Prepare: func(ctx context.Context, b Book) error {
			on = nil
			if !b.Added || b.OnTitle {
				return nil
			}
			q, version, err := s.titles.ReadQueue(ctx, b.TitleID)
			if err == nil {
				on = &onShelf{titleID: b.TitleID, queue: q, version: version}
			}
			return err
		},
		Decide: func(b Book) ([]Event, error) {
			if !b.Added {
				return nil, errs.E(errs.NotFound, "there is no book %s", bookID)
			}
			if b.OnTitle || on == nil {
				return nil, nil
			}
			adoption = adoptionOf(b)
			return s.fillNext(b, bookID, []Event{CopyAdopted{TitleID: b.TitleID, Moved: b.Queue()}}, on), nil
		},
		Also: func(ctx context.Context, decided []Event) (aggregate.Also, error) {
			adopted, err := s.titles.Adopting(ctx, on.titleID, on.version, adoption)
			if err != nil {
				return aggregate.Also{}, err
			}
			moved, err := s.shelf.Moved(ctx, on.titleID, on.version, bookID, decided)
			if err != nil {
				return aggregate.Also{}, err
			}
			return join(moved, adopted), nil
		},
	})
}

// adoptionOf is the book as its title adopts it.
func adoptionOf(b Book) Adoption {
	a := Adoption{BookID: b.ID, TitleID: b.TitleID, Barcode: b.Barcode, Title: b.Title, Author: b.Author, Held: b.Held, Waiting: b.Queue()}
	if b.Loan != nil {
		a.LentTo = b.Loan.MemberID
	}
	return a
}

// Offer holds a copy on the shelf for the first member waiting for its title whose hold it can
// fill: for a title that took over holds from a book it adopted (Adopt) while other copies of
// it were on the shelf. A copy lent, held, on no title, or wanted by nobody records nothing.
func (s *Service) Offer(ctx context.Context, bookID string, o aggregate.Origin) (aggregate.Result, error) {
	if s.titles == nil {
		return aggregate.Result{}, errs.E(errs.Internal, "copies are offered to their titles' queues: no titles (WithTitles)")
	}
	var on *onShelf
	return s.repo.Execute(ctx, bookID, aggregate.Command[Book]{
		Name: "offerCopy", Origin: o, Payload: bookID,
		Prepare: func(ctx context.Context, b Book) error {
			on = nil
			if !b.Added || !b.OnTitle || b.Loan != nil || b.Held != nil {
				return nil
			}
			q, version, err := s.titles.ReadQueue(ctx, b.TitleID)
			if err == nil {
				on = &onShelf{titleID: b.TitleID, queue: q, version: version}
			}
			return err
		},
		Decide: func(b Book) ([]Event, error) {
			if on == nil || b.Loan != nil || b.Held != nil {
				return nil, nil
			}
			return s.fillNext(b, bookID, nil, on), nil
		},
		Also: func(ctx context.Context, decided []Event) (aggregate.Also, error) {
			return s.shelf.Moved(ctx, on.titleID, on.version, bookID, decided)
		},
	})
}
