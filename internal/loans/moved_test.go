package loans_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/loans"
	"library/internal/loans/loanspg"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// movedStores are the stores of the view that keep why a due time moved, each of this code's
// version: in memory, and a build of this version in PostgreSQL that took over from the first
// (the migrations', of version 1) as a release's does.
var movedStores = []store{
	stores[0],
	{"postgres", func(t *testing.T) writable {
		pool := pgtest.NewPool(t)
		checkpoints := pgdriver.NewCheckpoints(pool)
		view := loanspg.New(pool, checkpoints)
		first := answering(t, view, checkpoints)
		b, model := drivertest.Rebuild(t, checkpoints, loans.Name, view)
		after, err := checkpoints.TakeOver(context.Background(), b)
		require.NoError(t, err)
		require.Equal(t, processor.BuildAnswering, after.State)
		first.ViewModel = model
		return first
	}},
}

// dueBetween is every loan EachDue hands over, and the position it returns.
func dueBetween(t *testing.T, v loans.View, from, to time.Time) ([]loans.Loan, processor.Position) {
	t.Helper()
	var found []loans.Loan
	pos, err := loans.EachDue(context.Background(), v, from, to, func(page []loans.Loan) error {
		found = append(found, page...)
		return nil
	})
	require.NoError(t, err)
	return found, pos
}

// A move of the current loan's due time (books.DueDateMoved) moves it in the view, keeps its
// renewals, and says why; a move of another loan is nothing; a renewal, or the next loan, shows
// no move any more. EachDue finds the loans due in a range.
func TestViewKeepsWhyADueTimeMoved(t *testing.T) {
	t.Parallel()
	for _, s := range movedStores {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			v := s.open(t)
			ctx := context.Background()
			eve := time.Date(2026, 12, 24, 15, 0, 0, 0, time.UTC)
			moved := time.Date(2026, 12, 26, 22, 59, 59, 0, time.UTC)
			require.NoError(t, v.Apply(ctx, processor.Position{}, at(6, 0), []eventstore.Event{
				recorded(t, "book-b1", 1, 1, books.BookAdded{ID: "b1", Title: "Dune", Author: "Frank Herbert"}),
				recorded(t, "book-b2", 1, 2, books.BookAdded{ID: "b2", Title: "Emma", Author: "Jane Austen"}),
				recorded(t, "book-b1", 2, 3, books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: t0, DueAt: eve}),
				recorded(t, "book-b2", 2, 4, books.BookLent{LoanID: "l2", MemberID: "m2", LentAt: t0, DueAt: eve.Add(time.Hour)}),
				recorded(t, "book-b1", 3, 5, books.DueDateMoved{LoanID: "l1", MemberID: "m1", From: eve, DueAt: moved, Reason: "closed", Date: "2026-12-24"}),
				recorded(t, "book-b2", 3, 6, books.DueDateMoved{LoanID: "not-l2", DueAt: moved, Reason: "closed", Date: "2026-12-24"}),
			}))
			why := &loans.DueMove{From: eve, Reason: "closed", Date: "2026-12-24"}
			b1 := loans.Loan{BookID: "b1", Title: "Dune", LoanID: "l1", MemberID: "m1", LentAt: t0, DueAt: moved, DueMoved: why}
			b2 := loans.Loan{BookID: "b2", Title: "Emma", LoanID: "l2", MemberID: "m2", LentAt: t0, DueAt: eve.Add(time.Hour)}
			requireLoans(t, v, loans.Filter{}, at(6, 0), b2, b1)

			day := time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)
			found, pos := dueBetween(t, v, day, day.Add(24*time.Hour))
			require.Equal(t, at(6, 0), pos)
			require.Equal(t, []loans.Loan{b2}, found, "the loans due that day: the moved one is not")
			found, _ = dueBetween(t, v, eve.Add(time.Hour), time.Time{})
			require.Equal(t, []loans.Loan{b2, b1}, found, "from a time on, that time included")
			found, _ = dueBetween(t, v, time.Time{}, eve.Add(time.Hour))
			require.Empty(t, found, "before a time, that time left out")

			require.NoError(t, v.Apply(ctx, at(6, 0), at(9, 0), []eventstore.Event{
				recorded(t, "book-b1", 4, 7, books.LoanRenewed{LoanID: "l1", MemberID: "m1", DueAt: moved.Add(7 * 24 * time.Hour)}),
				recorded(t, "book-b2", 4, 8, books.DueDateMoved{LoanID: "l2", MemberID: "m2", From: eve.Add(time.Hour), DueAt: moved, Reason: "closed", Date: "2026-12-24"}),
				recorded(t, "book-b2", 5, 9, books.BookReturned{LoanID: "l2", MemberID: "m2", ReturnedAt: t0}),
			}))
			b1.DueAt, b1.Renewals, b1.DueMoved = moved.Add(7*24*time.Hour), 1, nil
			requireLoans(t, v, loans.Filter{}, at(9, 0), b1)
			require.NoError(t, v.Apply(ctx, at(9, 0), at(10, 0), []eventstore.Event{
				recorded(t, "book-b2", 6, 10, books.BookLent{LoanID: "l3", MemberID: "m2", LentAt: t0, DueAt: eve}),
			}))
			requireLoans(t, v, loans.Filter{}, at(10, 0),
				loans.Loan{BookID: "b2", Title: "Emma", LoanID: "l3", MemberID: "m2", LentAt: t0, DueAt: eve}, b1)
		})
	}
}

// The first build in PostgreSQL, of the version before moves were kept, still answers while a
// release's build is made beside it: a move moves its due time, and a page shows no reason.
func TestViewOfTheVersionBeforeMovesMovesDueTimes(t *testing.T) {
	t.Parallel()
	v := stores[1].open(t)
	ctx := context.Background()
	eve := time.Date(2026, 12, 24, 15, 0, 0, 0, time.UTC)
	moved := time.Date(2026, 12, 26, 22, 59, 59, 0, time.UTC)
	require.NoError(t, v.Apply(ctx, processor.Position{}, at(3, 0), []eventstore.Event{
		recorded(t, "book-b1", 1, 1, books.BookAdded{ID: "b1", Title: "Dune", Author: "Frank Herbert"}),
		recorded(t, "book-b1", 2, 2, books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: t0, DueAt: eve}),
		recorded(t, "book-b1", 3, 3, books.DueDateMoved{LoanID: "l1", MemberID: "m1", From: eve, DueAt: moved, Reason: "closed", Date: "2026-12-24"}),
	}))
	requireLoans(t, v, loans.Filter{}, at(3, 0), loans.Loan{BookID: "b1", Title: "Dune", LoanID: "l1", MemberID: "m1", LentAt: t0, DueAt: moved})
}

// EachDue reads page after page: more loans due in the range than a page holds are each handed
// over once, in order, and those due outside it not at all.
func TestEachDuePagesThroughTheRange(t *testing.T) {
	t.Parallel()
	v := stores[0].open(t)
	ctx := context.Background()
	day := time.Date(2026, 12, 24, 0, 0, 0, 0, time.UTC)
	var batch []eventstore.Event
	const n = loans.MaxPageSize*4 + 1
	for i := range n {
		book := fmt.Sprintf("b%04d", i)
		due := day.Add(time.Duration(i%3-1) * 24 * time.Hour).Add(time.Duration(i%7) * time.Hour) // the day before, the day, the day after
		batch = append(batch,
			recorded(t, "book-"+book, 1, int64(2*i+1), books.BookAdded{ID: book, Title: "T", Author: "A"}),
			recorded(t, "book-"+book, 2, int64(2*i+2), books.BookLent{LoanID: "l", MemberID: "m", LentAt: t0, DueAt: due}))
	}
	require.NoError(t, v.Apply(ctx, processor.Position{}, at(2*n, 0), batch))
	var pages, handed int
	seen := map[string]bool{}
	var last loans.Key
	_, err := loans.EachDue(ctx, v, day, day.Add(24*time.Hour), func(page []loans.Loan) error {
		pages++
		for _, l := range page {
			require.False(t, seen[l.BookID], "%s handed over twice", l.BookID)
			seen[l.BookID] = true
			require.True(t, !l.DueAt.Before(day) && l.DueAt.Before(day.Add(24*time.Hour)), "%s due at %s", l.BookID, l.DueAt)
			k := loans.Key{DueAt: l.DueAt, BookID: l.BookID, LoanID: l.LoanID}
			require.True(t, last.Less(k), "in order")
			last = k
			handed++
		}
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, (n+1)/3, handed, "every loan due that day: those whose number leaves 1 divided by 3")
	require.Greater(t, pages, 1, "more than a page")
}
