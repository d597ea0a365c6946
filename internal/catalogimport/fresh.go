package catalogimport

import (
	"context"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/reservations"
	"library/internal/titles"
)

// kinds are the aggregate types whose streams a new title writes, made once a batch.
type kinds struct {
	titles       aggregate.Type[titles.Title]
	books        aggregate.Type[books.Book]
	reservations []aggregate.Codec
}

func kindsNow() kinds {
	return kinds{titles: titles.Type(), books: books.Type(), reservations: reservations.Type().Events}
}

// streamsOf are the streams a fitted record writes when its title is new: its title's and its
// ISBN's (those a first look asks the log about), then its copies' and their barcodes'.
func (k kinds) streamsOf(f *fitted) (streams []string, firstLook int) {
	streams = []string{k.titles.StreamID(f.title.ID)}
	if f.title.ISBN != nil {
		streams = append(streams, reservations.StreamID(reservations.ISBN, *f.title.ISBN))
	}
	firstLook = len(streams)
	for _, c := range f.copies {
		streams = append(streams, k.books.StreamID(c.ID), reservations.StreamID(reservations.Barcode, c.Barcode))
	}
	return streams, firstLook
}

// fresh reports, for each fitted record, whether every stream it writes as a new title is new
// to the log, and claimed by no record before it in the batch: those are written together,
// through the log's bulk path. And whether one of its streams is claimed by a record before
// it (shared): such a record is recorded after the others.
//
// A first look (everything false) asks the log about the titles' and ISBNs' streams only, the
// streams that meet a library's own titles, and takes the copies' as new: in a first import
// they are, and a copy's stream that is there after all fails the bulk write, which then
// looks again at every stream. That spares the log a lookup of three streams a copy.
func (im *Importer) fresh(ctx context.Context, k kinds, fits []*fitted, everything bool) (fresh, shared []bool, err error) {
	streams := make([][]string, len(fits))
	var asked []string
	for j, f := range fits {
		var firstLook int
		streams[j], firstLook = k.streamsOf(f)
		if everything {
			firstLook = len(streams[j])
		}
		asked = append(asked, streams[j][:firstLook]...)
	}
	fresh, shared = make([]bool, len(fits)), make([]bool, len(fits))
	if len(asked) == 0 {
		return fresh, shared, nil
	}
	versions, err := im.Log.StreamVersions(ctx, asked)
	if err != nil {
		return nil, nil, err
	}
	claimed := make(map[string]bool, len(streams)*4)
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
func (im *Importer) partsOf(k kinds, f *fitted) ([]eventstore.StreamAppend, error) {
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
	titleStream := k.titles.StreamID(title.ID)
	part, err := encoded(titleStream, k.titles.Events, decided, meta)
	if err != nil {
		return nil, err
	}
	parts := []eventstore.StreamAppend{part}
	if title.ISBN != nil {
		reserved, err := reservation(k, reservations.ISBN, *title.ISBN, titleStream, also)
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
		bookStream := k.books.StreamID(c.ID)
		copyPart, err := encoded(bookStream, k.books.Events, added, meta)
		if err != nil {
			return nil, err
		}
		reserved, err := reservation(k, reservations.Barcode, c.Barcode, bookStream, also)
		if err != nil {
			return nil, err
		}
		parts = append(parts, copyPart, reserved)
	}
	return parts, nil
}

// reservation is the new stream that reserves value for owner.
func reservation(k kinds, kind reservations.Kind, value, owner string, meta eventstore.Metadata) (eventstore.StreamAppend, error) {
	decided, err := reservations.Reserve{Kind: kind, Value: value, Owner: owner}.Decide(reservations.Reservation{})
	if err != nil {
		return eventstore.StreamAppend{}, err
	}
	return encoded(reservations.StreamID(kind, value), k.reservations, decided, meta)
}

// encoded is a new stream's append of events, encoded by their aggregate type's codecs.
func encoded(streamID string, codecs []aggregate.Codec, events []aggregate.Event, meta eventstore.Metadata) (eventstore.StreamAppend, error) {
	encoded, err := aggregate.Encode(codecs, events, meta)
	return eventstore.StreamAppend{StreamID: streamID, Events: encoded}, err
}
