package catalogimport

import (
	"context"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/reservations"
	"library/internal/titles"
)

// fresh reports, for each fitted record, whether every stream it writes as a new title is new
// to the log, and claimed by no record before it in the batch: those are written together,
// through the log's bulk path. And whether one of its streams is claimed by a record before
// it (shared): such a record is recorded after the others.
func (im *Importer) fresh(ctx context.Context, fits []*fitted) (fresh, shared []bool, err error) {
	streams := make([][]string, len(fits))
	var all []string
	for j, f := range fits {
		streams[j] = streamsOf(f)
		all = append(all, streams[j]...)
	}
	fresh, shared = make([]bool, len(fits)), make([]bool, len(fits))
	if len(all) == 0 {
		return fresh, shared, nil
	}
	versions, err := im.Log.StreamVersions(ctx, all)
	if err != nil {
		return nil, nil, err
	}
	claimed := make(map[string]bool, len(all))
	for j := range fits {
		for _, s := range streams[j] {
			shared[j] = shared[j] || claimed[s]
		}
		fresh[j] = !shared[j]
		for _, s := range streams[j] {
			fresh[j] = fresh[j] && versions[s] == 0
			claimed[s] = true
		}
	}
	return fresh, shared, nil
}

// partsOf are the appends that record a fitted record as a new title, as the commands that
// add a title and its copies would decide them: TitleAdded and a CopyAdded per copy on the
// title's stream, a BookAdded on each copy's, and the reservations of the ISBN and the
// barcodes. Every stream is new.
func (im *Importer) partsOf(f *fitted) ([]eventstore.StreamAppend, error) {
	title := f.title
	decided, err := title.Decide(titles.Title{})
	if err != nil {
		return nil, err
	}
	for _, c := range f.copies {
		decided = append(decided, titles.CopyAdded{BookID: c.ID, Barcode: c.Barcode})
	}
	meta := eventstore.Metadata{CommandID: "import:" + title.ID, Command: "importTitle", CorrelationID: im.CorrelationID, Actor: im.Actor}
	also := eventstore.Metadata{Command: meta.Command, CorrelationID: im.CorrelationID, Actor: im.Actor}
	titleStream := titles.Type().StreamID(title.ID)
	part, err := encoded(titleStream, titles.Type().Events, decided, meta)
	if err != nil {
		return nil, err
	}
	parts := []eventstore.StreamAppend{part}
	if title.ISBN != nil {
		reserved, err := reservation(reservations.ISBN, *title.ISBN, titleStream, also)
		if err != nil {
			return nil, err
		}
		parts = append(parts, reserved)
	}
	author := books.AuthorOf(title.Authors)
	for _, c := range f.copies {
		added, err := c.Decide(books.Book{}, title.Title, author)
		if err != nil {
			return nil, err
		}
		bookStream := books.Type().StreamID(c.ID)
		copyPart, err := encoded(bookStream, books.Type().Events, added, meta)
		if err != nil {
			return nil, err
		}
		reserved, err := reservation(reservations.Barcode, c.Barcode, bookStream, also)
		if err != nil {
			return nil, err
		}
		parts = append(parts, copyPart, reserved)
	}
	return parts, nil
}

// reservation is the new stream that reserves value for owner.
func reservation(k reservations.Kind, value, owner string, meta eventstore.Metadata) (eventstore.StreamAppend, error) {
	decided, err := reservations.Reserve{Kind: k, Value: value, Owner: owner}.Decide(reservations.Reservation{})
	if err != nil {
		return eventstore.StreamAppend{}, err
	}
	return encoded(reservations.StreamID(k, value), reservations.Type().Events, decided, meta)
}

// encoded is a new stream's append of events, encoded by their aggregate type's codecs.
func encoded(streamID string, codecs []aggregate.Codec, events []aggregate.Event, meta eventstore.Metadata) (eventstore.StreamAppend, error) {
	encoded, err := aggregate.Encode(codecs, events, meta)
	return eventstore.StreamAppend{StreamID: streamID, Events: encoded}, err
}
