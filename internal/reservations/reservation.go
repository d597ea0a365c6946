// Package reservations keeps a value unique among the aggregates that hold one (an ISBN among
// titles, a barcode among copies, a library card number among members) in the log itself, with
// no table or view that has to agree with it. It is the event-sourced answer to a unique
// constraint, and plain Go.
//
// Each value has a stream of its own, reservation-<kind>:<value> (reservation-isbn:9780441013593),
// whose events say which owner holds it: ValueReserved when one takes it, ValueReleased when it
// gives it up. An owner is a stream id ("title-dune"). An owner's command takes a value in the
// same append as its own event that names it (aggregate.Also, built by Service.Move), at the
// version of the value's stream it read: 0 for a value never reserved. So of two owners that take
// one value at once, whichever replica they run on, one append succeeds and the other fails on the
// value's version, is decided again, and finds the value taken: it is refused with the kind's
// code (errs.TitleAlreadyExists for an ISBN, errs.BarcodeTaken for a barcode, errs.CardTaken
// for a card number). The promises:
//
//   - at every moment, a value is held by at most one owner, and an owner's events and the
//     reservations agree: both are written, or neither;
//   - taking a value the owner holds already records nothing (a retry; a change that keeps it);
//   - an owner that moves to another value releases the old one in the same append, and from
//     that append on another owner may take it; releasing a value the owner does not hold
//     records nothing.
//
// Reservation streams record no command ids (events written through Also never do): a
// repeated command is answered from its owner's stream. Kinds, stream names and event names
// are stored data: never rename them.
package reservations

import (
	"library/internal/errs"
	"library/internal/validate"
)

// Kind is a kind of value kept unique. Its name is the prefix of the value in the stream id.
type Kind string

// The kinds of values kept unique, each with the code that refuses an owner one that another
// holds (Kind.taken): add a kind here, with its code.
const (
	// ISBN is a title's ISBN, as its 13 digits (package titles).
	ISBN Kind = "isbn"
	// Barcode is a copy's barcode, as the library keeps it (package books: letters in
	// capitals), owned by the copy's stream.
	Barcode Kind = "barcode"
	// Card is a member's library card number, as the library keeps it (package accounts:
	// letters in capitals), owned by the member's account stream.
	Card Kind = "card"
)

// taken is the code of the refusal of a value of kind k that another owner holds, and the
// name of the value in its detail.
func (k Kind) taken() (errs.Code, string) {
	switch k {
	case ISBN:
		return errs.TitleAlreadyExists, "ISBN"
	case Barcode:
		return errs.BarcodeTaken, "barcode"
	case Card:
		return errs.CardTaken, "card number"
	}
	return errs.Internal, string(k)
}

// Event is a reservation's event; the same type as aggregate.Event.
type Event = interface{ EventType() string }

// ValueReserved records that Owner, a stream id, holds the value.
type ValueReserved struct {
	Owner string `json:"owner"`
}

// ValueReleased records that Owner gave the value up: another owner may take it.
type ValueReleased struct {
	Owner string `json:"owner"`
}

// EventType names the event in the log; never rename it.
func (ValueReserved) EventType() string { return "ValueReserved" }

// EventType names the event in the log; never rename it.
func (ValueReleased) EventType() string { return "ValueReleased" }

// Reservation is the state of one value: who holds it, "" for nobody.
type Reservation struct {
	Owner string
}

// Apply returns the state after e.
func Apply(r Reservation, e Event) Reservation {
	switch e := e.(type) {
	case ValueReserved:
		r.Owner = e.Owner
	case ValueReleased:
		if r.Owner == e.Owner {
			r.Owner = ""
		}
	}
	return r
}

// Reserve asks that Owner hold Value, of Kind.
type Reserve struct {
	Kind  Kind
	Value string
	Owner string
}

// Decide takes a free value for the owner; one the owner holds already records nothing, and one
// another owner holds is refused with the kind's code.
func (c Reserve) Decide(r Reservation) ([]Event, error) {
	switch r.Owner {
	case c.Owner:
		return nil, nil
	case "":
		return []Event{ValueReserved{Owner: c.Owner}}, nil
	}
	code, name := c.Kind.taken()
	return nil, errs.E(code, "%s %s is already recorded for %s", name, c.Value, r.Owner)
}

// Release asks that Owner give up the value.
type Release struct {
	Owner string
}

// Decide gives the value up; a value the owner does not hold records nothing.
func (c Release) Decide(r Reservation) []Event {
	if r.Owner == "" || r.Owner != c.Owner {
		return nil
	}
	return []Event{ValueReleased(c)}
}

// checkValue refuses a value that can't name a stream: each owner checks its own values (an
// ISBN is 13 digits), and this holds every kind to an identifier's characters.
func checkValue(k Kind, value string) error {
	if !validate.IsID(value) {
		_, name := k.taken()
		return errs.E(errs.InvalidRequest, "a %s must be 1 to %d characters from A-Z a-z 0-9 . _ : @ + -, starting with a letter or digit",
			name, validate.MaxIDLength)
	}
	return nil
}
