package titles_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/titles"
)

// A member joins a title's queue only while no copy that could fill the hold is on the shelf,
// once: not while they wait already, nor with a copy of the title held for them or on loan to
// them; and not when the queue is full.
func TestPlaceHold(t *testing.T) {
	t.Parallel()
	copy1, copy2 := titles.CopyAdded{BookID: "dune-1"}, titles.CopyAdded{BookID: "dune-2"}
	out := []titles.Event{dune, copy1, copy2, titles.CopyLent{BookID: "dune-1", MemberID: "xan"}, titles.CopyLent{BookID: "dune-2", MemberID: "yul"}}
	waits := func(m string) titles.Event {
		return titles.TitleHoldPlaced{TitleID: "dune", MemberID: m, PlacedAt: now}
	}
	place := func(c titles.PlaceHold) func(titles.Title) ([]titles.Event, error) {
		return func(t titles.Title) ([]titles.Event, error) { return c.Decide(t, now, 2) }
	}
	ann := titles.PlaceHold{MemberID: "ann"}
	run(t, []decideCase{
		{name: "every copy out", given: out, when: place(ann), then: []titles.Event{waits("ann")}},
		{name: "a title never added", when: place(ann), err: errs.NotFound},
		{name: "a copy on the shelf", given: []titles.Event{dune, copy1, copy2, titles.CopyLent{BookID: "dune-1", MemberID: "xan"}},
			when: place(ann), err: errs.TitleAvailable},
		{name: "a member who waits already", given: append(out, waits("ann")), when: place(ann), err: errs.AlreadyHeld},
		{name: "a member with a copy held for them", given: []titles.Event{dune, copy1, copy2, titles.CopyLent{BookID: "dune-2", MemberID: "yul"},
			waits("ann"), titles.HoldTrapped{MemberID: "ann", BookID: "dune-1", Until: now}}, when: place(ann), err: errs.AlreadyHeld},
		{name: "a member with a copy on loan", given: out, when: place(titles.PlaceHold{MemberID: "xan"}), err: errs.AlreadyHeld},
		{name: "a full queue", given: append(out, waits("ben"), waits("cid")), when: place(ann), err: errs.HoldQueueFull},
		{name: "one copy, while another is on the shelf", given: []titles.Event{dune, copy1, copy2, titles.CopyLent{BookID: "dune-1", MemberID: "xan"}},
			when: place(titles.PlaceHold{MemberID: "ann", BookID: "dune-1"}),
			then: []titles.Event{titles.TitleHoldPlaced{TitleID: "dune", MemberID: "ann", BookID: "dune-1", PlacedAt: now}}},
		{name: "one copy, on the shelf", given: out[:3], when: place(titles.PlaceHold{MemberID: "ann", BookID: "dune-1"}), err: errs.BookAvailable},
		{name: "a copy the title does not list", given: out, when: place(titles.PlaceHold{MemberID: "ann", BookID: "emma-1"}), err: errs.NotFound},
	})
}

// Holds taken over from books added before titles go ahead of the holds placed on the title
// since, each behind those taken over before it; a hold placed now goes to the back; the next
// copy that comes back is for the first of them.
func TestHoldsTakenOverKeepTheirOrder(t *testing.T) {
	t.Parallel()
	placed := func(m string, adopted bool) titles.Event {
		return titles.TitleHoldPlaced{TitleID: "dune", MemberID: m, PlacedAt: now, Adopted: adopted}
	}
	title := fold(dune, titles.CopyAdded{BookID: "dune-1"}, titles.CopyLent{BookID: "dune-1", MemberID: "xan"},
		placed("ann", true), placed("zoe", false), placed("ben", true), placed("cid", false), placed("dot", true))
	var queue []string
	for _, h := range title.Holds {
		queue = append(queue, h.MemberID)
	}
	require.Equal(t, []string{"ann", "ben", "dot", "zoe", "cid"}, queue)
	require.Equal(t, 4, title.Place("zoe"))
	require.Equal(t, "ann", title.Next("dune-1"))
}
