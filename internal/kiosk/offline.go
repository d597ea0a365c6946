package kiosk

import (
	"time"

	"library/internal/books"
	"library/internal/sip2"
)

// offline reads a no-block checkout (11 with no block Y): the kiosk lent the book while it could
// not reach the service, at its transaction date, and reports it now. The loan is recorded at
// that time, due at the kiosk's nb due date when it gave one, even if a rule would refuse it
// now: the log says which rules it overrode.
func (s *session) offline(m sip2.Message, lend books.LendBook) (books.LendBook, *refusal) {
	lentAt, err := sip2.ParseDate(m.FixedField("transaction date"), time.UTC)
	if err != nil || lentAt.IsZero() {
		return lend, refuse(outcomeRefused, "The time of this offline checkout could not be read: please see a librarian.")
	}
	lend.Offline = &books.Offline{LentAt: lentAt, Reason: "reported by the kiosk with no block"}
	if due, err := sip2.ParseDate(m.FixedField("nb due date"), time.UTC); err == nil && !due.IsZero() {
		lend.DueAt = &due
	}
	return lend, nil
}
