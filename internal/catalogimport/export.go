package catalogimport

import (
	"context"

	"library/internal/eventstore"
	"library/internal/titles"
)

// exportPage is how many titles' TitleAdded an export reads from the log at a time.
const exportPage = 500

// Export calls each with every title of the catalogue, with its copies, as a Record an import
// takes back: the same record imported into an empty library is the same title (its
// ControlNumber, or its id for a title added here) with the same copies. Titles come in the
// order they were added, one at a time, so that memory stays flat however large the catalogue.
func Export(ctx context.Context, log eventstore.TypeReader, ts Titles, bs Books, each func(Record) error) error {
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
			return nil
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
