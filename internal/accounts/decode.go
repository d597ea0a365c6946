package accounts

import (
	"fmt"

	"library/internal/eventstore"
)

// accountType is Type(), built once for Decode: read-only after package initialisation.
var accountType = Type()

// Decode reads one of the log's account events as the typed event it is. Every reader of
// account events (the views, the outbox, the sagas) decodes through it, so that an account
// event is read in one place, by the codecs that wrote it. Personal values stay as they are
// stored (sealed). An event of another stream is an error; a NothingChanged
// marker decodes to nil.
func Decode(e eventstore.Event) (Event, error) {
	if !accountType.Owns(e) {
		return nil, fmt.Errorf("%s at position %d is not an account's event", e.Type, e.Position)
	}
	return accountType.Decode(e)
}

// MemberID is the id of the member whose account's stream holds e, and whether an account's
// stream does.
func MemberID(e eventstore.Event) (string, bool) {
	if !accountType.Owns(e) {
		return "", false
	}
	return accountType.ID(e.StreamID), true
}
