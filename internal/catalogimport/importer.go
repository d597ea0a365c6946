package catalogimport

import (
	"context"
	"errors"
	"time"

	"golang.org/x/sync/errgroup"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/titles"
)

// Log is where a batch of new titles is written at once (eventstore.Bulk), and which says
// which of a batch's streams are there already.
type Log interface {
	eventstore.Bulk
}

// Titles adds, reads and changes titles (titles.Service is one).
type Titles interface {
	Get(ctx context.Context, titleID string) (titles.Title, int64, error)
	Add(ctx context.Context, c titles.AddTitle, o aggregate.Origin) (aggregate.Result, error)
	Change(ctx context.Context, titleID string, c titles.ChangeTitle, o aggregate.Origin) (aggregate.Result, error)
	WithISBN(ctx context.Context, isbn13 string) (string, error)
}

// Books adds and reads copies (books.Service is one).
type Books interface {
	Get(ctx context.Context, bookID string) (books.Book, int64, error)
	AddCopy(ctx context.Context, c books.AddCopy, o aggregate.Origin) (aggregate.Result, error)
	FindByBarcode(ctx context.Context, barcode string) (books.Book, int64, error)
}

// Importer records records, a batch at a time.
type Importer struct {
	Log    Log
	Titles Titles
	Books  Books
	// Actor is who the log says imported: an operator.
	Actor eventstore.Actor
	// CorrelationID ties the events of one import together in the log ("" for none).
	CorrelationID string
	// DryRun decides every record and records nothing.
	DryRun bool
	// Now is the clock a year of publication is checked against. Default time.Now.
	Now func() time.Time
	// Writes, when not nil, is shared by the batches imported at once: each holds a place in it
	// while the log writes it, so that at most cap(Writes) are written at once, and the others
	// are decided meanwhile (a write is the database's work, a decision this process's).
	Writes chan struct{}
}

// Import records a batch of records and says what came of each, in their order. A batch's new
// titles are written in one transaction; an error is the log's, and the batch may be imported
// again, whole: what was written records nothing the second time.
func (im *Importer) Import(ctx context.Context, records []Record) ([]Outcome, error) {
	outcomes := make([]Outcome, len(records))
	var fits []*fitted
	var places []int
	for i, r := range records {
		f, reason, message := fit(r, im.now())
		outcomes[i] = Outcome{Place: r.Place, ControlNumber: r.ControlNumber, TitleID: f.title.ID, Warnings: f.warnings}
		if reason != "" {
			outcomes[i].Outcome, outcomes[i].Reason, outcomes[i].Message = Refused, reason, message
			continue
		}
		fits, places = append(fits, &f), append(places, i)
	}
	k := kindsNow()
	fresh, shared, err := im.writeNew(ctx, k, fits)
	if err != nil {
		return nil, err
	}
	var alone, after []int // the records that meet the log, apart and after the others
	for j, f := range fits {
		switch {
		case fresh[j]:
			outcomes[places[j]].Outcome, outcomes[places[j]].Copies = Recorded, len(f.copies)
		case shared[j]:
			after = append(after, j)
		default:
			alone = append(alone, j)
		}
	}
	alone, err = im.known(ctx, k, fits, alone, func(j int) {
		outcomes[places[j]].Outcome = Unchanged
	})
	if err != nil {
		return nil, err
	}
	record := func(j int) error {
		o := &outcomes[places[j]]
		err := im.one(ctx, fits[j], o)
		o.Warnings = fits[j].warnings
		return err
	}
	if err := apart(alone, record); err != nil {
		return nil, err
	}
	for _, j := range after {
		if err := record(j); err != nil {
			return nil, err
		}
	}
	return outcomes, nil
}

// oneAtATime is how many records that meet the log are recorded at once, each through the
// commands: their reads and appends are round trips, which overlap.
const oneAtATime = 8

// apart records records that share no stream, oneAtATime at once, and returns the first error.
func apart(records []int, record func(int) error) error {
	var g errgroup.Group
	g.SetLimit(oneAtATime)
	for _, j := range records {
		g.Go(func() error { return record(j) })
	}
	return g.Wait()
}

// writeNew writes the batch's new titles in one transaction, and says which records it wrote
// (fresh), and which share a stream with a record before them (shared). It looks first at the
// titles' streams only (fresh); should one of the copies' streams be there after all, it looks
// at every stream and writes again; should another writer have made one of the streams
// meanwhile, none is fresh any more: each is then recorded on its own. A dry run, which
// writes nothing to find out, looks at every stream at once.
func (im *Importer) writeNew(ctx context.Context, k kinds, fits []*fitted) (fresh, shared []bool, err error) {
	looks := []bool{false, true}
	if im.DryRun {
		looks = looks[1:]
	}
	for _, everything := range looks {
		fresh, shared, err = im.fresh(ctx, k, fits, everything)
		if err != nil {
			return nil, nil, err
		}
		written, err := im.writeFresh(ctx, k, fits, fresh)
		if err != nil || written {
			return fresh, shared, err
		}
	}
	clear(fresh)
	return fresh, shared, nil
}

// writeFresh writes the fresh titles in one transaction, and reports false when another
// stream was there already (written by another writer, or one the first look did not ask
// about): then nothing was written.
func (im *Importer) writeFresh(ctx context.Context, k kinds, fits []*fitted, fresh []bool) (bool, error) {
	var parts []eventstore.StreamAppend
	for j, f := range fits {
		if fresh[j] {
			more, err := im.partsOf(k, f)
			if err != nil {
				return false, err
			}
			parts = append(parts, more...)
		}
	}
	if len(parts) == 0 || im.DryRun {
		return true, nil
	}
	err := im.appendBulk(ctx, parts)
	var conflict *eventstore.ConflictError
	if errors.As(err, &conflict) {
		return false, nil
	}
	return err == nil, err
}

// appendBulk writes parts through the log's bulk path once a place in Writes is free.
func (im *Importer) appendBulk(ctx context.Context, parts []eventstore.StreamAppend) error {
	if im.Writes != nil {
		select {
		case im.Writes <- struct{}{}:
			defer func() { <-im.Writes }()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return im.Log.AppendBulk(ctx, parts)
}

// origin is the origin of a command of the import, under a command id made from what it is.
func (im *Importer) origin(commandID string) aggregate.Origin {
	return aggregate.Origin{CommandID: commandID, CorrelationID: im.CorrelationID, Actor: im.Actor}
}

func (im *Importer) now() time.Time {
	if im.Now == nil {
		return time.Now()
	}
	return im.Now()
}
