package catalogimport

import (
	"context"
	"time"

	"library/internal/eventstore"
	"library/internal/titles"
)

// exportPage is how many titles' TitleAdded an export reads from the log at a time.
const exportPage = 500

// ExportLog is the log an export reads: its titles' TitleAdded, in order, up to its head.
type ExportLog interface {
	eventstore.TypeReader
	Head(ctx context.Context) (eventstore.Checkpoint, error)
}

// exportWait is how long an export waits before it reads again, while the read horizon holds
// back events it must export.
const exportWait = 50 * time.Millisecond

// Export calls each with every title of the catalogue, with its copies, as a Record an import
// takes back: the same record imported into an empty library is the same title (its
// ControlNumber, or its id for a title added here) with the same copies. Titles come in the
// order they were added, one at a time, so that memory stays flat however large the catalogue.
//
// It exports every title recorded before it began: it reads up to the log's head as it starts.
// A title written after a transaction still running elsewhere began is below the read horizon
// only once that transaction ends (see package eventstore); the export waits for it, until ctx
// ends, rather than leave it out.
func Export(ctx context.Context, log ExportLog, ts Titles, bs Books, each func(Record) error) error {
	head, err := log.Head(ctx)
	if err != nil {
		return err
	}
	after, place := eventstore.Checkpoint{}, 0
	for {
		page, err := log.ReadTypes(ctx, after, exportPage, []string{titles.TitleAdded{}.EventType()})
		if err != nil {
			return err
		}
		for _, e := range page.Events {
			id, ok := titles.TitleID(e)
			if !ok {
				continue
			}
			place++
			r, err := exported(ctx, ts, bs, id, place)
			if err != nil {
				return err
			}
			if err := each(r); err != nil {
				return err
			}
		}
		if len(page.Events) == 0 && page.Through == after {
			if !after.Before(head) {
				return nil
			}
			select { // the horizon is held back: waiting for it, bounded by ctx
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(exportWait):
			}
		}
		after = page.Through
	}
}

// exported is a title as a Record, with its copies.
func exported(ctx context.Context, ts Titles, bs Books, titleID string, place int) (Record, error) {
	t, _, err := ts.Get(ctx, titleID)
	if err != nil {
		return Record{}, err
	}
	r := Record{Place: place, ControlNumber: t.ControlNumber, Title: t.Title, Authors: t.Authors, ISBN: t.ISBN, Year: t.Year,
		Publisher: t.Publisher, Language: t.Language, Subjects: t.Subjects}
	if r.ControlNumber == "" {
		r.ControlNumber = t.ID
	}
	for _, c := range t.Copies {
		if c.Barcode == "" {
			continue // an import can't tell a copy without a barcode from another
		}
		b, _, err := bs.Get(ctx, c.BookID)
		if err != nil {
			return Record{}, err
		}
		r.Copies = append(r.Copies, Copy{Barcode: c.Barcode, MaterialType: b.MaterialType, CallNumber: b.CallNumber, Price: b.ReplacementPrice})
	}
	return r, nil
}
