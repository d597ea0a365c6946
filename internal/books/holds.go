package books

import (
	"slices"
	"time"

	"library/internal/errs"
	"library/internal/validate"
)

// Holds: a member may wait for a book that is out. Members wait in a queue, in the order they
// asked. When the book comes back and someone waits, it goes to the hold shelf for the first
// of them (BookHeld), until a time; lent to them, the hold is fulfilled; not picked up by
// then, it expires and the book goes to the next in line, or back on the shelf. While held, the
// book is lent to its holder only. Everything is in the book's stream, so the queue and the
// shelf are decided with the loans, under one version: at most one holder, the queue in order.

// HoldPlaced records that a member joined the book's queue.
type HoldPlaced struct {
	MemberID string `json:"memberId"`
}

// HoldCancelled records that a member left the queue, or gave up the book held for them.
type HoldCancelled struct {
	MemberID string `json:"memberId"`
}

// BookHeld records that the book is on the hold shelf for a member until Until.
type BookHeld struct {
	MemberID string    `json:"memberId"`
	Until    time.Time `json:"until"`
}

// HoldExpired records that the member did not pick the book up by its hold's Until.
type HoldExpired struct {
	MemberID string    `json:"memberId"`
	Until    time.Time `json:"until"`
}

// HoldFulfilled records that the book held for a member was lent to them.
type HoldFulfilled struct {
	MemberID string `json:"memberId"`
}

// EventType names the event in the log; never rename it.
func (HoldPlaced) EventType() string { return "HoldPlaced" }

// EventType names the event in the log; never rename it.
func (HoldCancelled) EventType() string { return "HoldCancelled" }

// EventType names the event in the log; never rename it.
func (BookHeld) EventType() string { return "BookHeld" }

// EventType names the event in the log; never rename it.
func (HoldExpired) EventType() string { return "HoldExpired" }

// EventType names the event in the log; never rename it.
func (HoldFulfilled) EventType() string { return "HoldFulfilled" }

// Held is the book's place on the hold shelf: for whom, until when.
type Held struct {
	MemberID string    `json:"memberId"`
	Until    time.Time `json:"until"`
}

// Queue returns the members waiting for the book, first in line first (the holder of the
// shelf is not among them).
func (b Book) Queue() []string { return slices.Clone(b.queue) }

// Place returns a member's place in the queue, from 1; 0 when they are not in it.
func (b Book) Place(memberID string) int { return slices.Index(b.queue, memberID) + 1 }

// applyHold folds the events of holds; ok is false for any other event.
func applyHold(b Book, e Event) (Book, bool) {
	switch e := e.(type) {
	case HoldPlaced:
		b.queue = append(slices.Clone(b.queue), e.MemberID)
	case HoldCancelled:
		b.queue = slices.DeleteFunc(slices.Clone(b.queue), func(m string) bool { return m == e.MemberID })
		if b.Held != nil && b.Held.MemberID == e.MemberID {
			b.Held = nil
		}
	case BookHeld:
		b.queue = slices.DeleteFunc(slices.Clone(b.queue), func(m string) bool { return m == e.MemberID })
		b.Held = &Held{MemberID: e.MemberID, Until: e.Until}
	case HoldExpired, HoldFulfilled:
		b.Held = nil
	default:
		return b, false
	}
	return b, true
}

// HoldPolicy is how holds work: how many members may wait for one book (HOLDS_MAX), and how
// long a book waits on the hold shelf (HOLD_PICKUP).
type HoldPolicy struct {
	MaxQueue int
	Pickup   time.Duration
}

// nextOnShelf is what follows the shelf being freed at now: the next in line gets the book.
func nextOnShelf(b Book, now time.Time, pickup time.Duration, leaving string) []Event {
	for _, m := range b.queue {
		if m != leaving {
			return []Event{BookHeld{MemberID: m, Until: now.UTC().Truncate(time.Second).Add(pickup)}}
		}
	}
	return nil
}

// PlaceHold asks to join the book's queue.
type PlaceHold struct {
	MemberID string `json:"memberId"`
}

// Validate checks the fields.
func (c PlaceHold) Validate() error { return validate.MemberID("memberId", c.MemberID) }

// Decide joins the queue: refused for a book on the shelf and held for nobody (lend it instead),
// for one on no shelf (lost or claimed returned), for a member who waits already, holds it, or has it on loan, and for a full queue.
func (c PlaceHold) Decide(b Book, p HoldPolicy) ([]Event, error) {
	switch {
	case !b.Added:
		return nil, errs.E(errs.NotFound, "there is no such book")
	case b.Missing != nil:
		return nil, missing(b, "held")
	case b.Loan == nil && b.Held == nil:
		return nil, errs.E(errs.BookAvailable, "book %s is on the shelf: lend it instead of holding it", b.ID)
	case b.Place(c.MemberID) > 0:
		return nil, errs.E(errs.AlreadyHeld, "member %s is already waiting for book %s (place %d)", c.MemberID, b.ID, b.Place(c.MemberID))
	case b.Held != nil && b.Held.MemberID == c.MemberID:
		return nil, errs.E(errs.AlreadyHeld, "book %s is already held for member %s", b.ID, c.MemberID)
	case b.Loan != nil && b.Loan.MemberID == c.MemberID:
		return nil, errs.E(errs.AlreadyHeld, "book %s is on loan to member %s", b.ID, c.MemberID)
	case len(b.queue) >= p.MaxQueue:
		return nil, errs.E(errs.HoldQueueFull, "%s for book %s already, as many as may",
			errs.Count(len(b.queue), "member waits", "members wait"), b.ID)
	}
	return []Event{HoldPlaced(c)}, nil
}

// CancelHold asks to leave the queue, or to give up the book held for the member, which then
// goes to the next in line.
type CancelHold struct {
	MemberID string `json:"memberId"`
}

// Validate checks the fields.
func (c CancelHold) Validate() error { return validate.MemberID("memberId", c.MemberID) }

// Decide cancels the member's hold at now; a member with none is errs.NotFound.
func (c CancelHold) Decide(b Book, now time.Time, p HoldPolicy) ([]Event, error) {
	switch {
	case !b.Added:
		return nil, errs.E(errs.NotFound, "there is no such book")
	case b.Held != nil && b.Held.MemberID == c.MemberID:
		return append([]Event{HoldCancelled(c)}, nextOnShelf(b, now, p.Pickup, c.MemberID)...), nil
	case b.Place(c.MemberID) > 0:
		return []Event{HoldCancelled(c)}, nil
	}
	return nil, errs.E(errs.NotFound, "member %s has no hold on book %s", c.MemberID, b.ID)
}

// ExpireHold asks to end a hold on the shelf that was not picked up: the one for MemberID
// until Until, which a timer set when the book was held.
type ExpireHold struct {
	MemberID string    `json:"memberId"`
	Until    time.Time `json:"until"`
}

// Decide expires the hold at now, and hands the book to the next in line; a hold that ended
// otherwise (lent, cancelled, or a newer one) records nothing.
func (c ExpireHold) Decide(b Book, now time.Time, p HoldPolicy) ([]Event, error) {
	if b.Held == nil || b.Held.MemberID != c.MemberID || !b.Held.Until.Equal(c.Until) || now.Before(c.Until) {
		return nil, nil
	}
	return append([]Event{HoldExpired(c)}, nextOnShelf(b, now, p.Pickup, c.MemberID)...), nil
}
