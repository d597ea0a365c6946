package titles

import (
	"time"

	"library/internal/errs"
	"library/internal/validate"
)

// PlaceHold asks to join the title's queue: for any copy, or for the copy BookID alone (a
// volume of a set, say: POST /books/{bookId}/holds).
type PlaceHold struct {
	MemberID string `json:"memberId"`
	BookID   string `json:"bookId,omitempty"`
}

// Validate checks the fields.
func (c PlaceHold) Validate() error {
	err := validate.MemberID("memberId", c.MemberID)
	if c.BookID != "" {
		err = validate.All(err, validate.ID("bookId", c.BookID))
	}
	return err
}

// Decide joins the queue at now: refused while a copy that could fill the hold is on the shelf
// for anyone (lend it instead), for a member who waits already, has a copy held for them or on
// loan, and for a queue of maxQueue members.
func (c PlaceHold) Decide(t Title, now time.Time, maxQueue int) ([]Event, error) {
	if !t.Added {
		return nil, errs.E(errs.NotFound, "there is no such title")
	}
	if c.BookID != "" {
		wanted, ok := t.Copy(c.BookID)
		switch {
		case !ok:
			return nil, errs.E(errs.NotFound, "title %s has no copy %s", t.ID, c.BookID)
		case wanted.State == OnShelf:
			return nil, errs.E(errs.BookAvailable, "book %s is on the shelf: lend it instead of holding it", c.BookID)
		}
	} else if n := t.OnShelf(); n > 0 {
		return nil, errs.E(errs.TitleAvailable, "%s of title %s on the shelf: lend one instead of holding it",
			errs.Count(n, "copy is", "copies are"), t.ID)
	}
	if err := t.mayWait(c.MemberID); err != nil {
		return nil, err
	}
	if len(t.Holds) >= maxQueue {
		return nil, errs.E(errs.HoldQueueFull, "%s for title %s already, as many as may",
			errs.Count(len(t.Holds), "member waits", "members wait"), t.ID)
	}
	return []Event{TitleHoldPlaced{TitleID: t.ID, MemberID: c.MemberID, BookID: c.BookID, PlacedAt: now.UTC()}}, nil
}

// mayWait refuses a member who waits for the title already, or has a copy of it held for them
// or on loan.
func (t Title) mayWait(memberID string) error {
	if place := t.Place(memberID); place > 0 {
		return errs.E(errs.AlreadyHeld, "member %s is already waiting for title %s (place %d)", memberID, t.ID, place)
	}
	for _, c := range t.Copies {
		switch {
		case c.MemberID != memberID:
		case c.State == Held:
			return errs.E(errs.AlreadyHeld, "copy %s of title %s is already held for member %s", c.BookID, t.ID, memberID)
		case c.State == Lent:
			return errs.E(errs.AlreadyHeld, "copy %s of title %s is on loan to member %s", c.BookID, t.ID, memberID)
		}
	}
	return nil
}

// CancelHold asks to take a member out of the title's queue.
type CancelHold struct {
	MemberID string `json:"memberId"`
}

// Validate checks the fields.
func (c CancelHold) Validate() error { return validate.MemberID("memberId", c.MemberID) }

// Decide takes the member out of the queue; a member with no hold waiting is errs.NotFound. A
// member with a copy held for them gives it up through the copy (books.CancelHold), which the
// service finds with HeldFor.
func (c CancelHold) Decide(t Title) ([]Event, error) {
	if !t.Added {
		return nil, errs.E(errs.NotFound, "there is no such title")
	}
	place := t.Place(c.MemberID)
	if place == 0 {
		return nil, errs.E(errs.NotFound, "member %s has no hold on title %s", c.MemberID, t.ID)
	}
	return []Event{TitleHoldCancelled{MemberID: c.MemberID, For: t.Holds[place-1].BookID}}, nil
}

// HeldFor returns the copy held for a member, "" for none.
func (t Title) HeldFor(memberID string) string {
	for _, c := range t.Copies {
		if c.State == Held && c.MemberID == memberID {
			return c.BookID
		}
	}
	return ""
}
