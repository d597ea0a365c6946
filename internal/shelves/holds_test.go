package shelves_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/reservations"
	"library/internal/shelves"
	"library/internal/titles"
)

// shelf is the title dune, with copies of the given ids each lent to a reader of its own, on a
// log in memory.
type shelf struct {
	titles *titles.Service
	books  *books.Service
	holds  shelves.Holds
}

func newShelf(t *testing.T, copies ...string) shelf {
	t.Helper()
	ctx := context.Background()
	now := func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
	log := eventstore.NewMemory(nil)
	opts := aggregate.Options{}
	s := shelf{titles: titles.NewService(log, opts, now, reservations.NewService(log, opts)).WithHolds(titles.HoldPolicy{MaxQueue: 10}, nil)}
	s.books = books.NewService(log, opts, now, books.Policy{LoanPeriod: 14 * 24 * time.Hour, MaxRenewals: 2,
		Holds: books.HoldPolicy{MaxQueue: 10, Pickup: pickup}}, nil).WithTitles(shelves.Shelves{Titles: s.titles})
	s.holds = shelves.Holds{Titles: s.titles, Books: s.books}
	_, err := s.titles.Add(ctx, titles.AddTitle{ID: "dune", Title: "Dune", Authors: []string{"Frank Herbert"}}, aggregate.Origin{})
	require.NoError(t, err)
	for _, id := range copies {
		_, err := s.books.AddCopy(ctx, books.AddCopy{ID: id, TitleID: "dune", Barcode: "B" + id}, aggregate.Origin{})
		require.NoError(t, err)
		_, err = s.books.Lend(ctx, id, books.LendBook{LoanID: "loan-" + id, MemberID: "reader-" + id}, aggregate.Origin{})
		require.NoError(t, err)
	}
	return s
}

// giveBack returns the copy's first loan.
func (s shelf) giveBack(t *testing.T, bookID string) {
	t.Helper()
	_, err := s.books.Return(context.Background(), bookID, books.ReturnBook{LoanID: "loan-" + bookID}, aggregate.Origin{})
	require.NoError(t, err)
}

// where is the copy as its title lists it, and the hold the copy itself says it is held for
// (nil for none).
func (s shelf) where(t *testing.T, bookID string) (titles.Copy, *books.Held) {
	t.Helper()
	title, _, err := s.titles.Get(context.Background(), "dune")
	require.NoError(t, err)
	c, ok := title.Copy(bookID)
	require.True(t, ok, "the title lists %s", bookID)
	b, _, err := s.books.Get(context.Background(), bookID)
	require.NoError(t, err)
	return c, b.Held
}

// A hold on one copy (POST /books/{bookId}/holds) is filled by that copy alone: another copy
// that comes back goes to the member behind, who waits for any copy, and the copy held for goes
// to its member when it comes back.
func TestAHoldOnOneCopyIsFilledByThatCopy(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newShelf(t, "dune-1", "dune-2")
	_, err := s.books.PlaceHold(ctx, "dune-1", books.PlaceHold{MemberID: "ann"}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = s.titles.PlaceHold(ctx, "dune", titles.PlaceHold{MemberID: "ben"}, aggregate.Origin{})
	require.NoError(t, err)

	s.giveBack(t, "dune-2")
	c, held := s.where(t, "dune-2")
	require.Equal(t, titles.Held, c.State)
	require.Equal(t, "ben", c.MemberID, "ann waits for dune-1 alone: dune-2 goes to ben, behind her")
	require.Equal(t, "ben", held.MemberID)

	s.giveBack(t, "dune-1")
	c, held = s.where(t, "dune-1")
	require.Equal(t, titles.Held, c.State)
	require.Equal(t, "ann", c.MemberID, "the copy ann waits for")
	require.Equal(t, "ann", held.MemberID)
}

// A member gives up the copy held for them through the title (DELETE
// /titles/{titleId}/holds/{memberId}, and an erasure): the copy goes to the next in line, and,
// with nobody else waiting, back on the shelf, on its title as on itself; a hold placed then is
// refused, the copy being there to lend.
func TestGivingUpAHeldCopyThroughTheTitle(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := newShelf(t, "dune-1")
	for _, m := range []string{"ann", "ben"} {
		_, err := s.titles.PlaceHold(ctx, "dune", titles.PlaceHold{MemberID: m}, aggregate.Origin{})
		require.NoError(t, err)
	}
	s.giveBack(t, "dune-1")
	c, held := s.where(t, "dune-1")
	require.Equal(t, "ann", c.MemberID)
	require.Equal(t, "ann", held.MemberID)

	_, err := s.holds.Cancel(ctx, "dune", "ann", aggregate.Origin{})
	require.NoError(t, err, "ann gives up the copy held for her")
	c, held = s.where(t, "dune-1")
	require.Equal(t, titles.Held, c.State)
	require.Equal(t, "ben", c.MemberID, "the next in line")
	require.Equal(t, "ben", held.MemberID)

	_, err = s.holds.Cancel(ctx, "dune", "ben", aggregate.Origin{})
	require.NoError(t, err, "ben gives it up too")
	c, held = s.where(t, "dune-1")
	require.Equal(t, titles.OnShelf, c.State, "nobody waits: the title has it on the shelf")
	require.Empty(t, c.MemberID)
	require.Nil(t, held, "and so does the copy")
	_, err = s.titles.PlaceHold(ctx, "dune", titles.PlaceHold{MemberID: "cid"}, aggregate.Origin{})
	require.True(t, errs.Is(err, errs.TitleAvailable), "the copy is there to lend: %v", err)

	_, err = s.holds.Cancel(ctx, "dune", "ann", aggregate.Origin{})
	require.True(t, errs.Is(err, errs.NotFound), "ann has no hold left: %v", err)
}
