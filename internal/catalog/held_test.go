package catalog_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/catalog"
	"library/internal/eventstore"
	"library/internal/processor"
)

// library is a log in memory with the books' commands on it, whose events a test hands to a
// catalog as its processor would.
type library struct {
	log   *eventstore.Memory
	books *books.Service
	now   time.Time
	pos   processor.Position
}

func newLibrary() *library {
	l := &library{log: eventstore.NewMemory(nil), now: nowUTC}
	l.books = books.NewService(l.log, aggregate.Options{}, func() time.Time { return l.now }, books.Policy{
		LoanPeriod: loanPeriod, MaxRenewals: 2, Holds: books.HoldPolicy{MaxQueue: 10, Pickup: 3 * 24 * time.Hour},
	}, nil)
	return l
}

// into hands the catalog every event it has not read.
func (l *library) into(t *testing.T, c writable) {
	t.Helper()
	ctx := context.Background()
	events, err := l.log.ReadAll(ctx, l.pos.Checkpoint, 0)
	require.NoError(t, err)
	if len(events) == 0 {
		return
	}
	to := processor.Position{Checkpoint: events[len(events)-1].Checkpoint()}
	require.NoError(t, c.Apply(ctx, l.pos, to, events))
	l.pos = to
}

// statuses is each book's status in the catalog, and the ids the status filter keeps for each.
func statuses(t *testing.T, c catalog.Catalog) (map[string]string, map[string][]string) {
	t.Helper()
	each := map[string]string{}
	kept := map[string][]string{}
	for _, status := range []string{"", "available", "lent", "held"} {
		page, _, err := c.List(context.Background(), catalog.Filter{Status: status})
		require.NoError(t, err)
		for _, b := range page.Books {
			if status == "" {
				each[b.ID] = b.Status
			} else {
				kept[status] = append(kept[status], b.ID)
				require.Equal(t, status, b.Status)
			}
		}
	}
	return each, kept
}

// A book on the hold shelf is held, in both catalogs, and the status filter finds it: from its
// return to a member who waits until it is lent to them, their hold expires with no one else
// waiting, or they give it up (the next in line's turn keeps it held). A waiting member's cancel
// leaves it held.
func TestCatalogHeld(t *testing.T) {
	t.Parallel()
	forEachCatalog(t, func(t *testing.T, c writable) {
		ctx, o := context.Background(), aggregate.Origin{}
		l := newLibrary()
		recorded := func(r aggregate.Result, err error) {
			t.Helper()
			require.NoError(t, err)
			require.True(t, r.Recorded())
		}
		requireStatus := func(dune string) {
			t.Helper()
			l.into(t, c)
			each, kept := statuses(t, c)
			require.Equal(t, map[string]string{"dune": dune, "emma": "available"}, each)
			want := map[string][]string{"available": {"emma"}}
			want[dune] = append([]string{"dune"}, want[dune]...)
			require.Equal(t, want, kept, "the books each status keeps")
		}
		lend := func(loanID, member string) {
			t.Helper()
			recorded(l.books.Lend(ctx, "dune", books.LendBook{LoanID: loanID, MemberID: member}, o))
		}
		giveBack := func(loanID string) {
			t.Helper()
			recorded(l.books.Return(ctx, "dune", books.ReturnBook{LoanID: loanID}, o))
		}
		place := func(member string) {
			t.Helper()
			recorded(l.books.PlaceHold(ctx, "dune", books.PlaceHold{MemberID: member}, o))
		}
		cancel := func(member string) {
			t.Helper()
			recorded(l.books.CancelHold(ctx, "dune", books.CancelHold{MemberID: member}, o))
		}
		recorded(l.books.Add(ctx, books.AddBook{ID: "dune", Title: "Dune", Author: "Frank Herbert"}, o))
		recorded(l.books.Add(ctx, books.AddBook{ID: "emma", Title: "Emma", Author: "Jane Austen"}, o))
		lend("l1", "zed")
		place("alice")
		place("bob")
		requireStatus("lent")

		giveBack("l1") // held for alice
		requireStatus("held")
		cancel("bob") // a waiting member's cancel
		requireStatus("held")
		place("carol")
		cancel("alice") // the holder gives it up: carol's turn
		requireStatus("held")
		cancel("carol") // and no one else waits
		requireStatus("available")

		lend("l2", "zed")
		place("dave")
		giveBack("l2")
		requireStatus("held")
		l.now = l.now.Add(4 * 24 * time.Hour)
		book, _, err := l.books.Get(ctx, "dune")
		require.NoError(t, err)
		recorded(l.books.ExpireHold(ctx, "dune", books.ExpireHold{MemberID: "dave", Until: book.Held.Until}, o))
		requireStatus("available")

		lend("l3", "zed")
		place("erin")
		giveBack("l3")
		requireStatus("held")
		lend("l4", "erin") // fulfilled
		requireStatus("lent")
		giveBack("l4")
		requireStatus("available")
	})
}
