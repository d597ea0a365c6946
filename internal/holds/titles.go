package holds

import (
	"fmt"

	"library/internal/eventstore"
	"library/internal/titles"
)

// Holds on titles. A member waiting for any copy of a title waits in the title's queue, which
// the view keeps as the queue of the key TitleKey(titleId), with the title's name; a member
// waiting for one copy (POST /books/{bookId}/holds) waits in that copy's queue. A hold that
// traps a copy becomes that copy's hold on the hold shelf: the title's HoldTrapped ends the
// waiting hold and places the member on the copy, held; its end (the copy's HoldFulfilled,
// HoldExpired or HoldCancelled) is the copy's, as a book's hold's always was. A book of the
// release before, adopted by its title, moves its waiting holds to the title's queue
// (books.CopyAdopted, and the title's TitleHoldPlaced in the same append).

// titlePrefix begins the keys of titles' queues; no book's id begins with it (a book's id
// holds no "/").
const titlePrefix = "title/"

// TitleKey is the key of a title's queue in the view.
func TitleKey(titleID string) string { return titlePrefix + titleID }

// titleOf returns the title whose queue key is the given one, and whether it is a title's.
func titleOf(key string) (string, bool) {
	if len(key) > len(titlePrefix) && key[:len(titlePrefix)] == titlePrefix {
		return key[len(titlePrefix):], true
	}
	return "", false
}

// titleChanges is what one title event, recorded as e, does to the view.
func titleChanges(titleID string, e eventstore.Event) ([]Change, error) {
	decoded, err := titles.Decode(e)
	if err != nil {
		return nil, fmt.Errorf("holds: event %s at position %d: %w", e.Type, e.Position, err)
	}
	key := TitleKey(titleID)
	switch ev := decoded.(type) {
	case titles.TitleAdded:
		return []Change{Titled{BookID: key, Title: ev.Title}}, nil
	case titles.TitleChanged:
		if ev.Title == "" {
			return nil, nil // the name stayed
		}
		return []Change{Renamed{BookID: key, Title: ev.Title}}, nil
	case titles.TitleHoldPlaced:
		if ev.BookID != "" {
			key = ev.BookID
		}
		return []Change{Placed{Hold: Hold{BookID: key, MemberID: ev.MemberID, Seq: e.Version, PlacedAt: stored(e.RecordedAt)}}}, nil
	case titles.TitleHoldCancelled:
		switch {
		case ev.BookID != "":
			return nil, nil // the copy's HoldCancelled ends it
		case ev.For != "":
			key = ev.For
		}
		return []Change{Ended{BookID: key, MemberID: ev.MemberID}}, nil
	case titles.HoldTrapped:
		return []Change{
			Ended{BookID: key, MemberID: ev.MemberID},
			Ended{BookID: ev.BookID, MemberID: ev.MemberID},
			Placed{Hold: Hold{BookID: ev.BookID, MemberID: ev.MemberID, Seq: e.Version, PlacedAt: stored(e.RecordedAt)}},
			Held{BookID: ev.BookID, MemberID: ev.MemberID, Until: stored(ev.Until)},
		}, nil
	case titles.CopyLent:
		return []Change{Ended{BookID: key, MemberID: ev.MemberID}}, nil // lent a copy, they wait no more
	}
	return nil, nil
}
