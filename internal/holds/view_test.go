package holds_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/holds"
	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// row is what a test checks of a hold: all of it but its Seq, which only orders.
type row struct {
	Book, Title, Member, Status string
	Place                       int
	PlacedAt, Until             time.Time
}

func rowsOf(page holds.Page) []row {
	out := []row{}
	for _, h := range page.Holds {
		out = append(out, row{Book: h.BookID, Title: h.Title, Member: h.MemberID, Status: h.Status(), Place: h.Place,
			PlacedAt: h.PlacedAt, Until: h.Until})
	}
	return out
}

// waiting and ready are the rows a test expects.
func (w *world) waiting(t *testing.T, book, title, member string, place int) row {
	return row{Book: book, Title: title, Member: member, Status: holds.Waiting, Place: place, PlacedAt: w.placedAt(t, book, member)}
}

func (w *world) ready(t *testing.T, book, title, member string, until time.Time) row {
	return row{Book: book, Title: title, Member: member, Status: holds.Ready, PlacedAt: w.placedAt(t, book, member), Until: until}
}

// requireRows lists the view with filter and wants exactly rows, in that order, on one page.
func (w *world) requireRows(t *testing.T, f holds.Filter, want ...row) {
	t.Helper()
	page := w.list(t, f)
	if want == nil {
		want = []row{}
	}
	assert.Equal(t, want, rowsOf(page), "%+v", f)
	assert.False(t, page.More)
}

// A book's holds through its life, on both stores: members wait in the order they asked, each
// with their place; a cancel moves everyone behind up; a return puts the book on the hold shelf
// for the first in line (ready, until the pickup time), and the rest move up; lent to them, the
// hold ends; one not picked up expires, and the book goes to the next in line; a holder who
// gives the book up hands it on. Each hold has its book's title and the time it was placed.
func TestViewFollowsTheQueue(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		w.add(t, "dune", "Dune")
		w.add(t, "emma", "Emma")
		w.lend(t, "dune", "l1", "zed")
		w.lend(t, "emma", "l2", "zed")
		w.place(t, "dune", "alice", "bob", "carol")
		w.place(t, "emma", "dave")
		w.catchUp(t)
		w.requireRows(t, holds.Filter{},
			w.waiting(t, "dune", "Dune", "alice", 1), w.waiting(t, "dune", "Dune", "bob", 2), w.waiting(t, "dune", "Dune", "carol", 3),
			w.waiting(t, "emma", "Emma", "dave", 1))

		w.cancel(t, "dune", "bob")
		w.catchUp(t)
		w.requireRows(t, holds.Filter{BookID: "dune"}, w.waiting(t, "dune", "Dune", "alice", 1), w.waiting(t, "dune", "Dune", "carol", 2))

		w.clock.Advance(time.Hour)
		w.giveBack(t, "dune", "l1")
		aliceUntil := w.untilOf()
		w.catchUp(t)
		w.requireRows(t, holds.Filter{BookID: "dune"}, w.ready(t, "dune", "Dune", "alice", aliceUntil), w.waiting(t, "dune", "Dune", "carol", 1))
		w.requireRows(t, holds.Filter{Status: holds.Ready}, w.ready(t, "dune", "Dune", "alice", aliceUntil))
		w.requireRows(t, holds.Filter{Status: holds.Waiting},
			w.waiting(t, "dune", "Dune", "carol", 1), w.waiting(t, "emma", "Emma", "dave", 1))
		w.requireRows(t, holds.Filter{MemberID: "alice"}, w.ready(t, "dune", "Dune", "alice", aliceUntil))

		// Lent to the holder: the hold is fulfilled, and leaves the view.
		w.lend(t, "dune", "l3", "alice")
		w.catchUp(t)
		w.requireRows(t, holds.Filter{BookID: "dune"}, w.waiting(t, "dune", "Dune", "carol", 1))
		w.requireRows(t, holds.Filter{MemberID: "alice"})

		// Back, held for carol, not picked up: it expires, and nobody else waits.
		w.giveBack(t, "dune", "l3")
		carolUntil := w.untilOf()
		w.catchUp(t)
		w.requireRows(t, holds.Filter{BookID: "dune"}, w.ready(t, "dune", "Dune", "carol", carolUntil))
		w.clock.Advance(pickup)
		w.expire(t, "dune", "carol", carolUntil)
		w.catchUp(t)
		w.requireRows(t, holds.Filter{BookID: "dune"})

		// A holder who gives the book up hands it to the next in line.
		w.giveBack(t, "emma", "l2")
		daveUntil := w.untilOf()
		w.place(t, "emma", "erin", "fred")
		w.catchUp(t)
		w.requireRows(t, holds.Filter{}, w.ready(t, "emma", "Emma", "dave", daveUntil),
			w.waiting(t, "emma", "Emma", "erin", 1), w.waiting(t, "emma", "Emma", "fred", 2))
		w.cancel(t, "emma", "dave")
		erinUntil := w.untilOf()
		w.catchUp(t)
		w.requireRows(t, holds.Filter{}, w.ready(t, "emma", "Emma", "erin", erinUntil), w.waiting(t, "emma", "Emma", "fred", 1))
		w.requireRows(t, holds.Filter{Status: holds.Ready, MemberID: "fred"})
	})
}

// A member's erasure takes their holds out of the view at once, and those behind them move up;
// when the book is later held for them (the book's queue still had them), nothing shows it,
// and when that hold ends the next in line's shows as the book's own queue has it. No member id
// of theirs is anywhere in the view.
func TestViewForgetsErasedMembers(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		w.add(t, "dune", "Dune")
		w.add(t, "emma", "Emma")
		w.lend(t, "dune", "l1", "zed")
		w.lend(t, "emma", "l2", "zed")
		w.place(t, "dune", "alice", "bob", "carol")
		w.place(t, "emma", "bob", "alice")
		w.erase(t, "alice")
		w.catchUp(t)
		w.requireRows(t, holds.Filter{}, w.waiting(t, "dune", "Dune", "bob", 1), w.waiting(t, "dune", "Dune", "carol", 2),
			w.waiting(t, "emma", "Emma", "bob", 1))
		w.requireRows(t, holds.Filter{MemberID: "alice"})

		w.giveBack(t, "dune", "l1") // held for alice, whom the book's queue still has
		aliceUntil := w.untilOf()
		w.catchUp(t)
		w.requireRows(t, holds.Filter{BookID: "dune"}, w.waiting(t, "dune", "Dune", "bob", 1), w.waiting(t, "dune", "Dune", "carol", 2))
		w.requireRows(t, holds.Filter{Status: holds.Ready})

		w.clock.Advance(pickup)
		w.expire(t, "dune", "alice", aliceUntil)
		bobUntil := w.untilOf()
		w.catchUp(t)
		w.requireRows(t, holds.Filter{BookID: "dune"}, w.ready(t, "dune", "Dune", "bob", bobUntil), w.waiting(t, "dune", "Dune", "carol", 1))
		for _, status := range []string{"", holds.Waiting, holds.Ready} {
			for _, h := range w.list(t, holds.Filter{Status: status}).Holds {
				assert.NotEqual(t, "alice", h.MemberID)
			}
		}
	})
}

// The checkpoint moves with the rows, on both stores: a holder that read the log from an older
// checkpoint is fenced and writes nothing; a reset empties the view, and the next generation
// rebuilds the same rows from the start of the log.
func TestViewFencesAndResets(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, w *world) {
		ctx := context.Background()
		w.add(t, "dune", "Dune")
		w.lend(t, "dune", "l1", "zed")
		w.place(t, "dune", "alice")
		w.catchUp(t)
		before := rowsOf(w.list(t, holds.Filter{}))
		require.Len(t, before, 1)

		w.place(t, "dune", "bob")
		w.cancel(t, "dune", "alice")
		events, err := w.log.ReadAll(ctx, eventstore.Checkpoint{}, 0)
		require.NoError(t, err)
		last := processor.Position{Checkpoint: events[len(events)-1].Checkpoint()}
		require.ErrorIs(t, w.model.Apply(ctx, processor.Position{}, last, events), processor.ErrFenced)
		assert.Equal(t, before, rowsOf(w.list(t, holds.Filter{})), "a stale batch writes nothing")

		w.catchUp(t)
		after := rowsOf(w.list(t, holds.Filter{}))
		assert.Equal(t, []row{w.waiting(t, "dune", "Dune", "bob", 1)}, after)

		// A rebuild reads the log from the start in tables of its own; the build that answers
		// goes on answering until it takes over.
		w.build, w.model = drivertest.Rebuild(t, w.builds, holds.Name, w.view)
		w.pos = processor.Position{}
		w.catchUp(t)
		assert.Equal(t, after, rowsOf(w.list(t, holds.Filter{})), "the first build answers")
		took, err := w.builds.TakeOver(ctx, w.build)
		require.NoError(t, err)
		require.Equal(t, processor.BuildAnswering, took.State)
		assert.Equal(t, after, rowsOf(w.list(t, holds.Filter{})), "rebuilt from the start of the log")
	})
}
