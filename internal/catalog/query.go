package catalog

import (
	"context"
	"time"

	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/titles"
)

// Query answers GET /books and GET /titles, waiting for the catalog to reach a position when asked.
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
	var page Page
	pos, err := q.readAfter(ctx, minPosition, client, books.Type().EventTypes(), func() (processor.Position, error) {
		var (
			pos processor.Position
			err error
		)
		page, pos, err = q.Catalog.List(ctx, filter)
		return pos, err
	})
	if err != nil {
		return Page{}, processor.Position{}, err
	}
	return page, pos, nil
}

// Titles returns the page of titles that filter chooses once the catalog has handled the event
// at minPosition (0: at once), waiting as List does. While the build of the catalog that
// answers is older than TitlesFrom (a release before titles answers, until this release's
// build takes over), it is errs.NotCaughtUp at once, whatever minPosition.
func (q Query) Titles(ctx context.Context, filter TitleFilter, minPosition int64, client string) (TitlePage, processor.Position, error) {
	if err := filter.Check(); err != nil {
		return TitlePage{}, processor.Position{}, err
	}
	// Read once first: a build without titles refuses at once, rather than after a wait that
	// its checkpoint could never end, since it reads no title event.
	page, pos, err := q.Catalog.Titles(ctx, filter)
	if err != nil || minPosition <= 0 {
		return page, pos, err
	}
	pos, err = q.readAfter(ctx, minPosition, client, titles.Type().EventTypes(), func() (processor.Position, error) {
		var (
			pos processor.Position
			err error
		)
		page, pos, err = q.Catalog.Titles(ctx, filter)
		return pos, err
	})
	if err != nil {
		return TitlePage{}, processor.Position{}, err
	}
	return page, pos, nil
}

// readAfter calls read once the catalog has handled the event at minPosition, and returns
// read's position. types are the event types what read reads depends on: the catalog has
// reached minPosition when none of them is left before it.
func (q Query) readAfter(ctx context.Context, minPosition int64, client string, types []string,
	read func() (processor.Position, error)) (processor.Position, error) {
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
		return processor.Position{}, err
	}
	for {
		if err := q.waitFor(ctx, waitCtx, minPosition, target, types, place); err != nil {
			return processor.Position{}, err
		}
		pos, err := read()
		if err != nil {
			return pos, err
		}
		if there, err := q.caughtUp(ctx, pos, target, types); err != nil || there {
			return pos, err
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
func (q Query) waitFor(ctx, waitCtx context.Context, minPosition int64, target eventstore.Checkpoint, types []string,
	place *waitPlace) error {
	return q.poll(ctx, waitCtx, minPosition, place, func() (bool, error) {
		pos, err := q.Catalog.Position(waitCtx)
		if err != nil {
			return false, err
		}
		return q.caughtUp(waitCtx, pos, target, types)
	})
}

// caughtUp reports whether the catalog at pos has read the log to target, as far as events of
// types go. The catalog passes events of other types without moving its checkpoint for each
// (package processor), so it is there too when no event of types is left after pos for it to
// read: a read of books waits for no title's event, nor a read of titles for a book's.
func (q Query) caughtUp(ctx context.Context, pos processor.Position, target eventstore.Checkpoint, types []string) (bool, error) {
	if !pos.Checkpoint.Before(target) {
		return true, nil
	}
	left, err := q.Log.CountAfterUpTo(ctx, pos.Checkpoint, 1, types...) // whether any is left, not how many
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
