// Package adoption is the saga that gives every book added before books were copies of titles
// a title that records it: the upgrade to titles and copies, done by the service itself, with
// no manual step, and never by rewriting what the log holds.
//
// A BookAdded written by the release before (schema version 1: {id, title, author}) reads as a
// copy of the title its title and author make (books.TitleIDOf, by its upcaster), so that three
// "Dune" by Frank Herbert are three copies of one title; but no title was ever added under that
// id, nor records those copies. The saga reads the books' BookAdded events under the "adoption"
// lease (package processor), and for each one written before titles it runs the title's Adopt
// command: TitleAdded (the book's title, and its author as the title's one author) when the title
// has no record yet, and CopyAdded for the book, in the title's stream, as new events.
//
// It promises each such book listed once on its title, however often it runs, a replay of the
// whole log included, and that a replay writes nothing at all: it looks at the title first and
// runs no command for a book the title lists already; the command's id is
// "adopt:<bookId>", and the title lists a copy once whatever the command id, so a command
// repeated after a failover records nothing twice either. A BookAdded written since titles
// was recorded on its title in its own append, and is passed over.
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

// Titles is what the saga needs of titles (titles.Service is one): a look at the title, so that
// a replay runs no command, and the command that lists a copy on it.
type Titles interface {
	Get(ctx context.Context, titleID string) (titles.Title, int64, error)
	Adopt(ctx context.Context, titleID string, c titles.ShelveCopy, o aggregate.Origin) (aggregate.Result, error)
}

// Saga adopts the books added before titles.
type Saga struct {
	Titles Titles
}

// Processor is the saga as a processor to run.
func (s Saga) Processor() processor.Processor {
	return processor.Processor{Name: Name, Kind: processor.KindSaga, Handler: s, Types: []string{books.BookAdded{}.EventType()}}
}

// actor is who the log says recorded what the saga did.
var actor = eventstore.Actor{Subject: Name, Role: "system"}

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
	// A book its title lists already needs no command at all: checking first keeps a replay
	// of the saga from writing anything, not even the marker of a repeated command.
	title, _, err := s.Titles.Get(ctx, added.TitleID)
	switch {
	case errs.Is(err, errs.NotFound):
	case err != nil:
		return err
	case title.HasCopy(added.ID):
		return nil
	}
	adopt := titles.ShelveCopy{BookID: added.ID, Record: &titles.AddTitle{ID: added.TitleID, Title: added.Title, Authors: []string{added.Author}}}
	origin := aggregate.Origin{CommandID: "adopt:" + added.ID, CorrelationID: e.Metadata.CorrelationID, Actor: actor}
	_, err = s.Titles.Adopt(ctx, added.TitleID, adopt, origin)
	switch {
	case errs.Is(err, errs.IdempotencyKeyReused):
		// The command id is taken on this title by another command (a client that chose it as
		// an Idempotency-Key): the title lists the copy once all the same, so list it under an
		// id of its own.
		origin.CommandID = ""
		_, err = s.Titles.Adopt(ctx, added.TitleID, adopt, origin)
	case errs.Is(err, errs.InvalidRequest):
		// A book whose title or author no title may have: staff look at it.
		return processor.Park(err.Error())
	}
	return err
}
