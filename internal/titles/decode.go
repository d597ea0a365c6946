package titles

import (
	"fmt"

	"library/internal/eventstore"
)

// titleType is Type(), built once for Decode and TitleID: read-only after package
// initialisation (building it for each event was a twentieth of a view's time catching up).
var titleType = Type()

// Decode reads one of the log's title events as the typed event it is, for the readers of the
// log (a view of the catalogue's titles): an event of another stream is an error, a
// NothingChanged marker decodes to nil.
func Decode(e eventstore.Event) (Event, error) {
	if !titleType.Owns(e) {
		return nil, fmt.Errorf("%s at position %d is not a title's event", e.Type, e.Position)
	}
	return titleType.Decode(e)
}

// TitleID is the id of the title whose stream holds e, and whether a title's stream does.
func TitleID(e eventstore.Event) (string, bool) {
	if !titleType.Owns(e) {
		return "", false
	}
	return titleType.ID(e.StreamID), true
}
