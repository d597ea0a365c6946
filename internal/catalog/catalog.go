package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"time"

	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
)

// Name is the name of the catalog view model, and of its first build (its lease, its
// checkpoint); its later builds are catalog@2, catalog@3... Never rename it.
const Name = "catalog"

// Version is the version of the catalog's code. Bump it whenever the shape of catalog_books,
// or what the catalog writes in it, changes: the next release then builds the catalog anew,
// beside the one that answers, which it replaces once it has caught up (package processor).
const Version = 1

// ReadsFrom is the oldest version of the catalog whose tables this code's reads can read. Keep
// it when a bump leaves catalog_books as the reads see it (what is written changed, not its
// shape), so that the new release reads the old build until its own takes over; raise it to
// Version otherwise.
const ReadsFrom = 1

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
	// a member, and "available" otherwise.
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
	// Position is how far the catalog has read the log.
	Position(ctx context.Context) (processor.Position, error)
}

// Processor is the catalog as a processor to run.
func Processor(c Catalog) processor.Processor {
	// Every book event, those it changes nothing for too: a read that waits for the catalog to
	// reach a book command's position is not held up by an event the catalog passed unread.
	return processor.Processor{Name: Name, Kind: processor.KindViewModel, View: c, Types: books.Type().EventTypes()}
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
	case "", "available", "lent", "held":
		return nil
	}
	return errs.E(errs.InvalidRequest, "status must be available, lent or held")
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
	CountAfter(ctx context.Context, after eventstore.Checkpoint, types ...string) (int64, error)
}

// Query answers GET /books, waiting for the catalog to reach a position when asked.
type Query struct {
	Catalog Catalog
	Log     Locator
	// Wait is how long a read waits for the catalog to reach minPosition (default 5 s).
	Wait time.Duration
	// PollInterval is how soon a waiting read looks at the catalog's position again (default
	// 10 ms, growing to ten times that).
	PollInterval time.Duration
	// Waits bounds the reads that wait at once, in all and per client (NewWaitLimit); nil: no
	// bound.
	Waits *WaitLimit
}

// List returns the page of books that filter chooses once the catalog has handled the event
// at minPosition (0: at once). It waits on the shared checkpoint, so it works on every replica,
// whichever one runs the catalog. After Wait it gives up with errs.NotCaughtUp, and so it does
// at once when it would have to wait while Waits are all taken, or while client holds its
// share of them. A minPosition past the log's last event is no position the service returned:
// it is errs.InvalidRequest, at once.
//
// client is who the read counts as among the waiting (httpapi.ClientKey: the person signed
// in, or the address); an opaque key, never shown.
func (q Query) List(ctx context.Context, filter Filter, minPosition int64, client string) (Page, processor.Position, error) {
	if err := filter.Check(); err != nil {
		return Page{}, processor.Position{}, err
	}
	if minPosition <= 0 {
		return q.Catalog.List(ctx, filter)
	}
	wait := q.Wait
	if wait <= 0 {
		wait = 5 * time.Second
	}
	waitCtx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	place := &waitPlace{limit: q.Waits, client: client}
	defer place.release()
	target, err := q.locate(ctx, waitCtx, minPosition, place)
	if err != nil {
		return Page{}, processor.Position{}, err
	}
	for {
		if err := q.waitFor(ctx, waitCtx, minPosition, target, place); err != nil {
			return Page{}, processor.Position{}, err
		}
		page, pos, err := q.Catalog.List(ctx, filter)
		if err != nil {
			return page, pos, err
		}
		if there, err := q.caughtUp(ctx, pos, target); err != nil || there {
			return page, pos, err
		}
		// A new build took over between the wait and the read, and has not reached the
		// target yet (it took over once it had caught up, but the log went on): wait for it
		// again, within the same time.
	}
}

// locate finds where the event at minPosition is in the log's order, waiting for it to appear
// when the log has gone past it (a position an append took but has not committed yet, or never
// will: a gap). A position the log has not reached is no position the service returned (they
// are recorded before they are answered): InvalidRequest, before any wait.
func (q Query) locate(ctx, waitCtx context.Context, minPosition int64, place *waitPlace) (eventstore.Checkpoint, error) {
	var target eventstore.Checkpoint
	reached := false // the log's last position is minPosition or past it
	err := q.poll(ctx, waitCtx, minPosition, place, func() (bool, error) {
		c, err := q.Log.Locate(waitCtx, minPosition)
		if errs.Is(err, errs.NotFound) {
			if !reached {
				if err := q.reached(waitCtx, minPosition); err != nil {
					return false, err
				}
				reached = true
			}
			return false, nil
		}
		target = c
		return err == nil, err
	})
	return target, err
}

// reached is nil when the log's last position is minPosition or past it, and else an
// InvalidRequest.
func (q Query) reached(ctx context.Context, minPosition int64) error {
	last, err := q.Log.LastPosition(ctx)
	if err != nil {
		return err
	}
	if minPosition > last {
		return errs.E(errs.InvalidRequest, "minPosition is past the last event in the log: send a position that the service "+
			"returned (a command's, or a page's)")
	}
	return nil
}

// waitFor waits until the catalog has handled the event at target.
func (q Query) waitFor(ctx, waitCtx context.Context, minPosition int64, target eventstore.Checkpoint, place *waitPlace) error {
	return q.poll(ctx, waitCtx, minPosition, place, func() (bool, error) {
		pos, err := q.Catalog.Position(waitCtx)
		if err != nil {
			return false, err
		}
		return q.caughtUp(waitCtx, pos, target)
	})
}

// caughtUp reports whether the catalog at pos has read the log to target. The catalog passes
// events of other types without moving its checkpoint for each (package processor), so it is
// there too when no book event is left after pos for it to read.
func (q Query) caughtUp(ctx context.Context, pos processor.Position, target eventstore.Checkpoint) (bool, error) {
	if !pos.Checkpoint.Before(target) {
		return true, nil
	}
	left, err := q.Log.CountAfter(ctx, pos.Checkpoint, books.Type().EventTypes()...)
	return err == nil && left == 0, err
}

// poll calls done until it reports true, starting every PollInterval and backing off to ten
// times that, so that many waiting requests don't keep the database busy. Before it first
// waits, it takes a place among the waiting reads, or gives up at once.
func (q Query) poll(ctx, waitCtx context.Context, minPosition int64, place *waitPlace, done func() (bool, error)) error {
	interval := q.PollInterval
	if interval <= 0 {
		interval = 10 * time.Millisecond
	}
	longest := 10 * interval
	for {
		ok, err := done()
		switch {
		case err != nil:
			return q.waitError(ctx, waitCtx, minPosition, err)
		case ok:
			return nil
		}
		if refused := place.take(); refused != "" {
			return errs.E(errs.NotCaughtUp, "the catalog has not reached position %d yet, and %s; try again shortly", minPosition, refused)
		}
		timer := time.NewTimer(interval)
		select {
		case <-waitCtx.Done():
			timer.Stop()
			return q.waitError(ctx, waitCtx, minPosition, waitCtx.Err())
		case <-timer.C:
		}
		interval = min(2*interval, longest)
	}
}

// waitError tells a wait that ran out of time (NotCaughtUp) from the request ending or the store
// failing.
func (q Query) waitError(ctx, waitCtx context.Context, minPosition int64, err error) error {
	if ctx.Err() == nil && waitCtx.Err() != nil {
		return errs.E(errs.NotCaughtUp, "the catalog has not reached position %d yet; try again shortly", minPosition)
	}
	return err
}
