package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"

	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/titles"
)

// Name is the name of the catalog view model, and of its first build (its lease, its
// checkpoint); its later builds are catalog@2, catalog@3... Never rename it.
const Name = "catalog"

// Version is the version of the catalog's code. Bump it whenever the shape of its tables, or
// what the catalog writes in them, changes: the next release then builds the catalog anew,
// beside the one that answers, which it replaces once it has caught up (package processor).
//
// Version 2 added catalog_titles, the titles GET /titles lists, and kept catalog_books as
// version 1 has it. Version 3 (MissingFrom) keeps, in catalog_books' column missing, whether a
// copy is lost or claimed returned.
const Version = 3

// ReadsFrom is the oldest version of the catalog whose tables this code's reads can read. Keep
// it when a bump leaves catalog_books as the reads see it (what is written changed, not its
// shape), so that the new release reads the old build until its own takes over; raise it to
// Version otherwise.
//
// It stays 1 while version 2 builds: GET /books reads a build of version 1 as it reads its own,
// and GET /titles, which only a build from TitlesFrom has, answers NotCaughtUp meanwhile.
const ReadsFrom = 1

// TitlesFrom is the first version of the catalog that keeps titles (catalog_titles): a build
// of an older version has none to read.
const TitlesFrom = 2

// MissingFrom is the first version of the catalog that keeps copies on no shelf, lost or
// claimed returned (books.LoanLost, books.ClaimedReturned): a build of an older version shows
// such a copy as it was before its loss, and its reads find none lost. ReadsFrom stays below
// it, since its reads of an older build read no such column.
const MissingFrom = 3

// Versions are the catalog's: code, or Version when code is 0 (tests build other versions).
func Versions(code int) processor.Versions {
	if code == 0 {
		code = Version
	}
	return processor.Versions{Code: code, ReadsFrom: min(ReadsFrom, code)}
}

// Book is a book as GET /books and GET /books/{bookId} show it.
type Book struct {
	ID     string `json:"id"`
	Title  string `json:"title"`
	Author string `json:"author"`
	// Status is "lent" while the book is on loan, "held" while it waits on the hold shelf for
	// a member, "lost" or "claimedReturned" while it is on no shelf, and "available"
	// otherwise.
	Status  string      `json:"status"`
	Loan    *books.Loan `json:"loan"`
	Version int64       `json:"version"`
}

// Catalog is the catalog view model: every book, kept up to date from the log by the holder of
// its build's lease, and readable on every replica. Its reads go to the build that answers for
// this replica's code (processor.ReadBuild), so that a rebuild beside it changes nothing they
// see until the new build has caught up and takes over.
type Catalog interface {
	processor.View
	// List returns the page of books that filter chooses, ordered by id, with the catalog's
	// position, both as of one moment. The filter is one that ParseFilter could make.
	List(ctx context.Context, filter Filter) (Page, processor.Position, error)
	// Titles returns the page of titles that filter chooses, ordered by FoldCase of their
	// titles, then by id, with the catalog's position, both as of one moment; errs.NotCaughtUp
	// while the build that answers is older than TitlesFrom. The filter is one that
	// ParseTitleFilter could make.
	Titles(ctx context.Context, filter TitleFilter) (TitlePage, processor.Position, error)
	// Position is how far the catalog has read the log.
	Position(ctx context.Context) (processor.Position, error)
}

// Processor is the catalog as a processor to run.
func Processor(c Catalog) processor.Processor {
	// Every book event, and from TitlesFrom every title event, those it changes nothing for
	// too: a read that waits for the catalog to reach a command's position is not held up by an
	// event the catalog passed unread.
	types := books.Type().EventTypes()
	if c.Versions().Code >= TitlesFrom {
		types = append(types, titles.Type().EventTypes()...)
	}
	return processor.Processor{Name: Name, Kind: processor.KindViewModel, View: c, Types: types, DataOnly: true}
}

// Change is what one event does to the catalog.
type Change struct {
	BookID  string
	Version int64
	Event   books.Event // nil for an event that changes no book's fields, only its version
}

// Changes decodes the book events of a batch. Events of other streams are skipped.
func Changes(events []eventstore.Event) ([]Change, error) {
	var out []Change
	for _, e := range events {
		bookID, ok := books.BookID(e)
		if !ok {
			continue
		}
		event, err := books.Decode(e)
		if err != nil {
			return nil, fmt.Errorf("catalog: event %s at position %d: %w", e.Type, e.Position, err)
		}
		out = append(out, Change{BookID: bookID, Version: e.Version, Event: event})
	}
	return out, nil
}

// catalogStatus checks a status filter.
func catalogStatus(status string) error {
	switch status {
	case "", "available", "lent", "held", books.StatusLost, books.StatusClaimedReturned:
		return nil
	}
	return errs.E(errs.InvalidRequest, "status must be available, lent, held, lost or claimedReturned")
}

// HolderTag stands for the member a book is held for, in the catalog: a digest of their member
// id with the book's, not the id. It tells the holder's cancel (which takes the book off the
// hold shelf) from that of a member still waiting (which does not), while the catalog keeps no
// member id for a hold, and nothing that stands for the same member on another book.
func HolderTag(bookID, memberID string) string {
	sum := sha256.Sum256([]byte(bookID + "\x00" + memberID))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// Locator finds where an event is in the log's order, how far the log goes, and what of it the
// catalog has yet to read; eventstore.Store is one.
type Locator interface {
	Locate(ctx context.Context, position int64) (eventstore.Checkpoint, error)
	LastPosition(ctx context.Context) (int64, error)
	CountAfterUpTo(ctx context.Context, after eventstore.Checkpoint, atMost int64, types ...string) (int64, error)
}
