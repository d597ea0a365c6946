package titles

import (
	"slices"
	"time"
)

// Holds on a title: members wait for the title, in the order they asked, and any copy that
// comes free fills the next hold it can (a hold on one copy, BookID, is filled by that copy
// alone). The queue lives in the title's stream; what happens to each copy (lent, back on the
// shelf, held for a member) is recorded on the title too, in the same append as the copy's own
// event (package books, through aggregate Prepare and Also), so the title knows at every version
// which copies are on the shelf, and a hold placed while one is, is refused. Two copies that
// come back at once, on any replicas, read the title at one version: one append wins, the other
// is decided again on what it did. So a hold is trapped once, a copy held for one member.

// TitleHoldPlaced records that a member joined the title's queue: for any copy, or for the copy
// BookID alone. PlacedAt is when they asked, or when their hold was taken over; Adopted marks a
// hold placed on a copy before books were copies of titles, taken over by the title when it
// adopted the copy: placed before the upgrade, it goes ahead of every hold placed on the title
// since (those not Adopted), behind those taken over before it; a hold placed now goes to the
// back.
type TitleHoldPlaced struct {
	TitleID  string    `json:"titleId"`
	MemberID string    `json:"memberId"`
	BookID   string    `json:"bookId,omitempty"`
	PlacedAt time.Time `json:"placedAt"`
	Adopted  bool      `json:"adopted,omitempty"`
}

// TitleHoldCancelled records that a member left the queue (For: the copy their hold was for,
// "" for any), or gave up the copy held for them (BookID: the copy, which the next event of the
// append gives to the next in line, or puts back on the shelf).
type TitleHoldCancelled struct {
	MemberID string `json:"memberId"`
	BookID   string `json:"bookId,omitempty"`
	For      string `json:"for,omitempty"`
}

// HoldTrapped records that a copy came free and was held for a waiting member until Until: the
// copy's BookHeld is in the same append. Adopted marks one that was held before books were
// copies of titles, recorded here by the adoption saga: its copy's BookHeld is long written,
// and its pickup email long sent.
type HoldTrapped struct {
	MemberID string    `json:"memberId"`
	BookID   string    `json:"bookId"`
	Until    time.Time `json:"until"`
	Adopted  bool      `json:"adopted,omitempty"`
}

// TrapExpired records that the member a copy was held for did not pick it up by Until.
type TrapExpired struct {
	MemberID string    `json:"memberId"`
	BookID   string    `json:"bookId"`
	Until    time.Time `json:"until"`
}

// TrapFulfilled records that the copy held for a member was lent to them: their hold is
// fulfilled.
type TrapFulfilled struct {
	MemberID string `json:"memberId"`
	BookID   string `json:"bookId"`
}

// CopyLent records that a copy on the shelf was lent to a member.
type CopyLent struct {
	BookID   string `json:"bookId"`
	MemberID string `json:"memberId"`
}

// CopyShelved records that a copy is on the shelf again, free for anyone: returned, or no
// longer held, with nobody waiting whose hold it could fill.
type CopyShelved struct {
	BookID string `json:"bookId"`
}

// EventType names the event in the log; never rename it.
func (TitleHoldPlaced) EventType() string { return "TitleHoldPlaced" }

// EventType names the event in the log; never rename it.
func (TitleHoldCancelled) EventType() string { return "TitleHoldCancelled" }

// EventType names the event in the log; never rename it.
func (HoldTrapped) EventType() string { return "HoldTrapped" }

// EventType names the event in the log; never rename it.
func (TrapExpired) EventType() string { return "TrapExpired" }

// EventType names the event in the log; never rename it.
func (TrapFulfilled) EventType() string { return "TrapFulfilled" }

// EventType names the event in the log; never rename it.
func (CopyLent) EventType() string { return "CopyLent" }

// EventType names the event in the log; never rename it.
func (CopyShelved) EventType() string { return "CopyShelved" }

// Hold is a member waiting for the title, or for one copy of it (BookID).
type Hold struct {
	MemberID string    `json:"memberId"`
	BookID   string    `json:"bookId,omitempty"`
	PlacedAt time.Time `json:"placedAt"`
	Adopted  bool      `json:"adopted,omitempty"`
}

// The states of a copy, as its title knows them.
const (
	OnShelf = "available"
	Lent    = "lent"
	Held    = "held"
)

// Place returns a member's place in the queue, from 1; 0 when they are not in it.
func (t Title) Place(memberID string) int {
	return slices.IndexFunc(t.Holds, func(h Hold) bool { return h.MemberID == memberID }) + 1
}

// Next returns the first member waiting whose hold the copy can fill, "" for none.
func (t Title) Next(bookID string) string {
	for _, h := range t.Holds {
		if h.BookID == "" || h.BookID == bookID {
			return h.MemberID
		}
	}
	return ""
}

// Waiting counts the members waiting whose holds the copy bookID can fill.
func (t Title) Waiting(bookID string) int {
	n := 0
	for _, h := range t.Holds {
		if h.BookID == "" || h.BookID == bookID {
			n++
		}
	}
	return n
}

// OnShelf counts the copies on the shelf, free for anyone.
func (t Title) OnShelf() int {
	n := 0
	for _, c := range t.Copies {
		if c.State == OnShelf {
			n++
		}
	}
	return n
}

// Copy returns the title's copy bookID, and whether it lists it.
func (t Title) Copy(bookID string) (Copy, bool) {
	i := slices.IndexFunc(t.Copies, func(c Copy) bool { return c.BookID == bookID })
	if i < 0 {
		return Copy{}, false
	}
	return t.Copies[i], true
}

// applyHold folds the events of holds and of copies' moves; ok is false for any other event.
func applyHold(t Title, e Event) (Title, bool) {
	switch e := e.(type) {
	case TitleHoldPlaced:
		t.Holds = placed(t.Holds, Hold{MemberID: e.MemberID, BookID: e.BookID, PlacedAt: e.PlacedAt, Adopted: e.Adopted})
	case TitleHoldCancelled:
		t.Holds = leave(t.Holds, e.MemberID)
		if e.BookID != "" {
			t = setCopy(t, e.BookID, OnShelf, "", time.Time{})
		}
	case HoldTrapped:
		t.Holds = leave(t.Holds, e.MemberID)
		t = setCopy(t, e.BookID, Held, e.MemberID, e.Until)
	case TrapExpired:
		t = setCopy(t, e.BookID, OnShelf, "", time.Time{})
	case TrapFulfilled:
		t = setCopy(t, e.BookID, Lent, e.MemberID, time.Time{})
	case CopyLent:
		t = setCopy(t, e.BookID, Lent, e.MemberID, time.Time{})
		if i := slices.IndexFunc(t.Holds, func(h Hold) bool { return h.MemberID == e.MemberID }); i >= 0 &&
			(t.Holds[i].BookID == "" || t.Holds[i].BookID == e.BookID) {
			t.Holds = leave(t.Holds, e.MemberID) // lent a copy that fills their hold: they wait no more
		}
	case CopyShelved:
		t = setCopy(t, e.BookID, OnShelf, "", time.Time{})
	case CopyMissing:
		t = setCopy(t, e.BookID, Missing, "", time.Time{})
	default:
		return t, false
	}
	return t, true
}

// placed is the queue with h in it: at the back, or, adopted, ahead of every hold that was not.
// The queue is copied, never changed in place.
func placed(queue []Hold, h Hold) []Hold {
	at := len(queue)
	if h.Adopted {
		if i := slices.IndexFunc(queue, func(q Hold) bool { return !q.Adopted }); i >= 0 {
			at = i
		}
	}
	return slices.Insert(slices.Clip(queue), at, h)
}

// leave is the queue without the member's hold, copied when it had one.
func leave(queue []Hold, memberID string) []Hold {
	i := slices.IndexFunc(queue, func(h Hold) bool { return h.MemberID == memberID })
	if i < 0 {
		return queue
	}
	return slices.Delete(slices.Clone(queue), i, i+1)
}

// setCopy is the title with the copy bookID in a state; the list is copied.
func setCopy(t Title, bookID, state, memberID string, until time.Time) Title {
	i := slices.IndexFunc(t.Copies, func(c Copy) bool { return c.BookID == bookID })
	if i < 0 {
		return t
	}
	t.Copies = slices.Clone(t.Copies)
	c := &t.Copies[i]
	c.State, c.MemberID, c.Until = state, memberID, until
	return t
}
