// Package adoption is the saga that gives every book added before books were copies of titles
// a title that records it: the upgrade to titles and copies, done by the service itself, with
// no manual step, and never by rewriting what the log holds.
//
// A BookAdded written by the release before (schema version 1: {id, title, author}) reads as a
// copy of the title its title and author make (books.TitleIDOf, by its upcaster), so that three
// "Dune" by Frank Herbert are three copies of one title; but no title was ever added under that
// id, nor records those copies. The saga reads the books' BookAdded events under the "adoption"
// lease (package processor), and for each one written before titles it runs the book's Adopt
// command: the book records CopyAdopted, and its title, in the same append, TitleAdded (the
// book's title, and its author as the title's one author) when it has no record yet, CopyAdded
// and where the copy is (lent, or held for a member), and the book's own queue as holds on the
// title, ahead of any placed on the title since: the members wanted the book, not that copy. A
// copy held for a member before stays held for them, and its pickup email is not sent again.
//
// It promises each such book adopted once, however often it runs, a replay of the whole log
// included, and that a replay writes nothing at all: it looks at the book first and runs no
// command for a book its title records already; the command's id is "adopt:<bookId>", and a
// book is adopted once whatever the command id, so a command repeated after a failover records
// nothing twice either. A BookAdded written since titles was recorded on its title in its own
// append, and is passed over.
package adoption

import (
	"context"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/titles"
)

// Name is the saga's name: its lease, its checkpoint. Never rename it.
const Name = "adoption"

// Books is what the saga needs of books (books.Service is one): a look at the book, so that a
// replay runs no command, and the command that has its title adopt it.
type Books interface {
	Get(ctx context.Context, bookID string) (books.Book, int64, error)
	Adopt(ctx context.Context, bookID string, o aggregate.Origin) (aggregate.Result, error)
	Offer(ctx context.Context, bookID string, o aggregate.Origin) (aggregate.Result, error)
}

// Titles reads titles (titles.Service is one).
type Titles interface {
	Get(ctx context.Context, titleID string) (titles.Title, int64, error)
}

// Saga adopts the books added before titles.
type Saga struct {
	Books  Books
	Titles Titles
}

// Processor is the saga as a processor to run.
func (s Saga) Processor() processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindSaga, Handler: s, Types: []string{books.BookAdded{}.EventType()},
		SchemaBelow: books.AddedSinceTitles}
}

// actor is who the log says recorded what the saga did.
var actor = eventstore.Actor{Subject: Name, Role: "system"}

// Selects implements processor.Selector: the saga has nothing to do with a book added since
// titles, which its title recorded in the same append. The log passes those over before the
// saga reads them (Processor.SchemaBelow), so that the copies of an import cost it a look at
// their metadata in the database; a log that can't is read whole, and they are passed over here.
func (Saga) Selects(e eventstore.Event) bool { return books.AddedBeforeTitles(e) }

// Handle implements processor.Handler.
func (s Saga) Handle(ctx context.Context, e eventstore.Event) error {
	if !books.AddedBeforeTitles(e) {
		return nil
	}
	decoded, err := books.Decode(e)
	if err != nil {
		return processor.Unreadable(e, err)
	}
	added, _ := decoded.(books.BookAdded)
	if err := s.adopt(ctx, added, e.Metadata.CorrelationID); err != nil {
		return err
	}
	return s.offer(ctx, added.TitleID, e.Metadata.CorrelationID)
}

// adopt runs the book's Adopt command, unless its title records it already: checking first
// keeps a replay of the saga from writing anything, not even the marker of a repeated command.
func (s Saga) adopt(ctx context.Context, added books.BookAdded, correlation string) error {
	book, _, err := s.Books.Get(ctx, added.ID)
	if err != nil || book.OnTitle {
		return err
	}
	origin := aggregate.Origin{CommandID: "adopt:" + added.ID, CorrelationID: correlation, Actor: actor}
	_, err = s.Books.Adopt(ctx, added.ID, origin)
	switch {
	case errs.Is(err, errs.IdempotencyKeyReused):
		// The command id is taken on this book by another command (a client that chose it as
		// an Idempotency-Key): the title records the copy once all the same, so adopt it under
		// an id of its own.
		origin.CommandID = ""
		_, err = s.Books.Adopt(ctx, added.ID, origin)
	case errs.Is(err, errs.InvalidRequest):
		// A book whose title or author no title may have: staff look at it.
		return processor.Park(err.Error())
	}
	return err
}

// offer has each copy of the title on the shelf held for the next in line, while members wait:
// holds a title took over from a book it adopted may be filled by copies it adopted before
// them. A title with nobody waiting, or no copy on the shelf, needs no command at all.
func (s Saga) offer(ctx context.Context, titleID, correlation string) error {
	title, _, err := s.Titles.Get(ctx, titleID)
	if errs.Is(err, errs.NotFound) {
		return nil // its book was parked: no title to offer copies to
	}
	if err != nil || len(title.Holds) == 0 {
		return err
	}
	for _, c := range title.Copies {
		if c.State != titles.OnShelf {
			continue
		}
		origin := aggregate.Origin{CorrelationID: correlation, Actor: actor}
		if _, err := s.Books.Offer(ctx, c.BookID, origin); err != nil {
			return err
		}
	}
	return nil
}
