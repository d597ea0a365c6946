package titles

import (
	"fmt"

	"library/internal/eventstore"
)

// Decode reads one of the log's title events as the typed event it is, for the readers of the
// log (a view of the catalogue's titles): an event of another stream is an error, a
// NothingChanged marker decodes to nil.
func Decode(e eventstore.Event) (Event, error) {
	t := Type()
	if !t.Owns(e) {
		return nil, fmt.Errorf("%s at position %d is not a title's event", e.Type, e.Position)
	}
	return t.Decode(e)
}

// TitleID is the id of the title whose stream holds e, and whether a title's stream does.
func TitleID(e eventstore.Event) (string, bool) {
	t := Type()
	if !t.Owns(e) {
		return "", false
	}
	return t.ID(e.StreamID), true
}
