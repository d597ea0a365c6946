package books

import (
	"fmt"

	"library/internal/eventstore"
)

// bookType is Type(), built once for Decode: read-only after package initialisation.
var bookType = Type()

// Decode reads one of the log's book events as the typed event it is. Every reader of book
// events (the views, the outbox, the sagas, a member's loans for export and erasure) decodes
// through it, so that a book event is read in one place, by the codecs that wrote it. An event
// of another stream is an error; a NothingChanged marker decodes to nil.
func Decode(e eventstore.Event) (Event, error) {
	if !bookType.Owns(e) {
		return nil, fmt.Errorf("%s at position %d is not a book's event", e.Type, e.Position)
	}
	return bookType.Decode(e)
}

// BookID is the id of the book whose stream holds e, and whether a book's stream does.
func BookID(e eventstore.Event) (string, bool) {
	if !bookType.Owns(e) {
		return "", false
	}
	return bookType.ID(e.StreamID), true
}

// AddedBeforeTitles reports whether e is a BookAdded written before books were copies of
// titles (schema version 1, with no title id): its title id is the one its title and author
// make (TitleIDOf, by its upcaster), and no title records it as a copy until the adoption saga
// does. A BookAdded written since was recorded on its title in its own append.
func AddedBeforeTitles(e eventstore.Event) bool {
	return e.Type == (BookAdded{}).EventType() && eventstore.Older(e, AddedSinceTitles) && bookType.Owns(e)
}

// AddedSinceTitles is the schema version of BookAdded from which a book is a copy of a title,
// recorded on it in the same append: the versions below are those AddedBeforeTitles reports.
const AddedSinceTitles = 2
