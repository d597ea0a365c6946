package loans_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/loans"
	"library/internal/loans/loanspg"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// A store of the view, as a test makes one: in memory, or on a database of its own.
type store struct {
	name string
	open func(t *testing.T) writable
}

var stores = []store{
	{"memory", func(t *testing.T) writable {
		checkpoints := memdriver.NewCheckpoints(nil)
		return answering(t, loans.NewMemory(checkpoints), checkpoints)
	}},
	{"postgres", func(t *testing.T) writable {
		pool := pgtest.NewPool(t)
		checkpoints := pgdriver.NewCheckpoints(pool)
		return answering(t, loanspg.New(pool, checkpoints), checkpoints)
	}},
}

// writable is the view with the read model of its build that answers, which the tests hand
// events to as the view's processor would, and where its builds are kept.
type writable struct {
	loans.View
	processor.ViewModel
	builds processor.Builds
}

func answering(t *testing.T, v loans.View, builds processor.Builds) writable {
	t.Helper()
	_, vm := drivertest.Answering(t, builds, loans.Name, v)
	return writable{View: v, ViewModel: vm, builds: builds}
}

func forEachStore(t *testing.T, test func(t *testing.T, v writable)) {
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			test(t, s.open(t))
		})
	}
}

// recorded is an event as the log returns it, at the given position.
func recorded(t *testing.T, stream string, version, position int64, e interface{ EventType() string }) eventstore.Event {
	t.Helper()
	data, err := json.Marshal(e)
	require.NoError(t, err)
	return eventstore.Event{StreamID: stream, Version: version, Position: position, TransactionID: uint64(position),
		Type: e.EventType(), Data: data}
}

func at(position, generation int64) processor.Position {
	return processor.Position{Generation: generation, Checkpoint: eventstore.Checkpoint{TransactionID: uint64(position), Position: position}}
}

var (
	t0 = time.Date(2026, 3, 10, 14, 30, 15, 0, time.UTC)
	// due is to the nanosecond, which PostgreSQL does not keep: the view keeps microseconds in
	// both stores.
	due = t0.Add(14*24*time.Hour + 1500*time.Nanosecond)
)

// What each event does, on both stores alike: a loan takes its book's title; a renewal of the
// current loan moves it and counts, one of another loan is nothing; a return ends it; a
// member's erasure ends theirs; other streams and events that changed nothing are skipped. The
// checkpoint moves with the rows, a stale batch is fenced and writes nothing, and a rebuild has
// tables of its own, which answer only once they are as far on as the build that answers.
func TestViewApplies(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, v writable) {
		ctx := context.Background()
		batch := []eventstore.Event{
			recorded(t, "book-b1", 1, 1, books.BookAdded{ID: "b1", Title: "Dune", Author: "Frank Herbert"}),
			recorded(t, "book-b2", 1, 2, books.BookAdded{ID: "b2", Title: "Emma", Author: "Jane Austen"}),
			recorded(t, "book-b3", 1, 3, books.BookAdded{ID: "b3", Title: "Ulysses", Author: "James Joyce"}),
			recorded(t, "account-m1", 1, 4, accounts.AccountOpened{Name: "not a book"}),
			recorded(t, "book-b1", 2, 5, books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: t0, DueAt: due}),
			recorded(t, "book-b2", 2, 6, books.BookLent{LoanID: "l2", MemberID: "m2", LentAt: t0, DueAt: due.Add(time.Hour)}),
			recorded(t, "book-b3", 2, 7, books.BookLent{LoanID: "l3", MemberID: "m2", LentAt: t0, DueAt: due.Add(-time.Hour)}),
			{StreamID: "book-b3", Version: 3, Position: 8, TransactionID: 8, Type: "NothingChanged", Data: json.RawMessage(`{}`)},
			recorded(t, "book-b1", 3, 9, books.LoanRenewed{LoanID: "not-l1", DueAt: due.Add(100 * time.Hour)}),
			recorded(t, "book-b1", 4, 10, books.LoanRenewed{LoanID: "l1", DueAt: due.Add(2 * time.Hour)}),
		}
		require.NoError(t, v.Apply(ctx, processor.Position{}, at(10, 0), batch))

		dueMicro := due.Truncate(time.Microsecond)
		b1 := loans.Loan{BookID: "b1", Title: "Dune", LoanID: "l1", MemberID: "m1", LentAt: t0, DueAt: dueMicro.Add(2 * time.Hour), Renewals: 1}
		b2 := loans.Loan{BookID: "b2", Title: "Emma", LoanID: "l2", MemberID: "m2", LentAt: t0, DueAt: dueMicro.Add(time.Hour)}
		b3 := loans.Loan{BookID: "b3", Title: "Ulysses", LoanID: "l3", MemberID: "m2", LentAt: t0, DueAt: dueMicro.Add(-time.Hour)}
		requireLoans(t, v, loans.Filter{}, at(10, 0), b3, b2, b1)
		requireLoans(t, v, loans.Filter{MemberID: "m2"}, at(10, 0), b3, b2)
		requireLoans(t, v, loans.Filter{DueBefore: dueMicro.Add(time.Hour)}, at(10, 0), b3)
		requireLoans(t, v, loans.Filter{DueBefore: dueMicro.Add(time.Hour + time.Microsecond)}, at(10, 0), b3, b2)

		// A holder that read the start of the log is too late: nothing of its batch is applied.
		stale := []eventstore.Event{recorded(t, "book-b1", 5, 11, books.BookReturned{LoanID: "l1", MemberID: "m1", ReturnedAt: t0})}
		require.ErrorIs(t, v.Apply(ctx, processor.Position{}, at(11, 0), stale), processor.ErrFenced)
		requireLoans(t, v, loans.Filter{}, at(10, 0), b3, b2, b1)

		require.NoError(t, v.Apply(ctx, at(10, 0), at(12, 0), []eventstore.Event{
			stale[0],
			recorded(t, "account-m2", 2, 12, accounts.MemberErased{}),
		}))
		requireLoans(t, v, loans.Filter{}, at(12, 0))

		// Lent again after its return: the title stays, renewals start again.
		require.NoError(t, v.Apply(ctx, at(12, 0), at(13, 0), []eventstore.Event{
			recorded(t, "book-b1", 6, 13, books.BookLent{LoanID: "l4", MemberID: "m3", LentAt: t0, DueAt: due}),
		}))
		requireLoans(t, v, loans.Filter{}, at(13, 0),
			loans.Loan{BookID: "b1", Title: "Dune", LoanID: "l4", MemberID: "m3", LentAt: t0, DueAt: dueMicro})

		rebuild, model := drivertest.Rebuild(t, v.builds, loans.Name, v.View)
		require.NoError(t, model.Apply(ctx, processor.Position{}, at(12, 0), nil))
		after, err := v.builds.TakeOver(ctx, rebuild)
		require.NoError(t, err)
		require.Equal(t, processor.BuildBuilding, after.State, "behind the build that answers")
		requireLoans(t, v, loans.Filter{}, at(13, 0),
			loans.Loan{BookID: "b1", Title: "Dune", LoanID: "l4", MemberID: "m3", LentAt: t0, DueAt: dueMicro})
		require.NoError(t, model.Apply(ctx, at(12, 0), at(13, 0), nil))
		after, err = v.builds.TakeOver(ctx, rebuild)
		require.NoError(t, err)
		require.Equal(t, processor.BuildAnswering, after.State)
		requireLoans(t, v, loans.Filter{}, at(13, 0)) // its own tables, empty: nothing was applied to them
	})
}

// A book added again, under a new title, ends its loan and takes the new title, whether the
// batch adds it alone or beside books that are new.
func TestViewAddsABookAgain(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, v writable) {
		ctx := context.Background()
		require.NoError(t, v.Apply(ctx, processor.Position{}, at(2, 0), []eventstore.Event{
			recorded(t, "book-b1", 1, 1, books.BookAdded{ID: "b1", Title: "Dune", Author: "Frank Herbert"}),
			recorded(t, "book-b1", 2, 2, books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: t0, DueAt: due}),
		}))
		require.NoError(t, v.Apply(ctx, at(2, 0), at(4, 0), []eventstore.Event{
			recorded(t, "book-b2", 1, 3, books.BookAdded{ID: "b2", Title: "Emma", Author: "Jane Austen"}),
			recorded(t, "book-b1", 3, 4, books.BookAdded{ID: "b1", Title: "Dune Messiah", Author: "Frank Herbert"}),
		}))
		requireLoans(t, v, loans.Filter{}, at(4, 0))
		require.NoError(t, v.Apply(ctx, at(4, 0), at(6, 0), []eventstore.Event{
			recorded(t, "book-b1", 4, 5, books.BookLent{LoanID: "l2", MemberID: "m1", LentAt: t0, DueAt: due}),
			recorded(t, "book-b2", 2, 6, books.BookLent{LoanID: "l3", MemberID: "m2", LentAt: t0, DueAt: due}),
		}))
		dueMicro := due.Truncate(time.Microsecond)
		requireLoans(t, v, loans.Filter{}, at(6, 0),
			loans.Loan{BookID: "b1", Title: "Dune Messiah", LoanID: "l2", MemberID: "m1", LentAt: t0, DueAt: dueMicro},
			loans.Loan{BookID: "b2", Title: "Emma", LoanID: "l3", MemberID: "m2", LentAt: t0, DueAt: dueMicro})
	})
}

// requireLoans lists the view with filter and wants exactly loans, in that order, at pos.
func requireLoans(t *testing.T, v loans.View, f loans.Filter, pos processor.Position, want ...loans.Loan) {
	t.Helper()
	page, got, err := v.List(context.Background(), f)
	require.NoError(t, err)
	assert.Equal(t, pos, got, "the position the page is as of")
	if want == nil {
		want = []loans.Loan{}
	}
	assert.Equal(t, want, page.Loans)
	assert.False(t, page.More)
}

// Holders racing one batch, on both stores: every one of them read the same checkpoint and
// applies the same batch, in its own transaction; exactly one commits, the rest are fenced and
// write nothing (each loan's renewal counts once; the books it adds, which the others find
// taken, are fenced rather than failed), and the checkpoint is the winner's. A holder one batch
// behind can't apply the next either.
func TestViewHoldersRacingOneBatch(t *testing.T) {
	t.Parallel()
	forEachStore(t, func(t *testing.T, v writable) {
		ctx := context.Background()
		var setup []eventstore.Event
		for i := 1; i <= 20; i++ {
			book := fmt.Sprintf("book-%d", i)
			setup = append(setup,
				recorded(t, book, 1, int64(2*i-1), books.BookAdded{ID: fmt.Sprint(i), Title: "Book", Author: "Author"}),
				recorded(t, book, 2, int64(2*i), books.BookLent{LoanID: "l", MemberID: "m", LentAt: t0, DueAt: due}))
		}
		start := at(40, 0)
		require.NoError(t, v.Apply(ctx, processor.Position{}, start, setup))
		var batch []eventstore.Event
		for i := 1; i <= 20; i++ {
			batch = append(batch, recorded(t, fmt.Sprintf("book-%d", i), 3, int64(40+i), books.LoanRenewed{LoanID: "l", DueAt: due.Add(time.Hour)}))
		}
		for i := 1; i <= 20; i++ { // new books, whose keys every holder but the first finds taken
			batch = append(batch, recorded(t, fmt.Sprintf("book-new-%d", i), 1, int64(60+i), books.BookAdded{ID: fmt.Sprint("new-", i), Title: "New", Author: "Author"}))
		}
		to := at(80, 0)

		const holders = 12
		results := make([]error, holders)
		var wg sync.WaitGroup
		ready := make(chan struct{})
		for i := range holders {
			wg.Go(func() {
				<-ready
				results[i] = v.Apply(ctx, start, to, batch)
			})
		}
		close(ready)
		wg.Wait()

		won := 0
		for _, err := range results {
			switch {
			case err == nil:
				won++
			case errors.Is(err, processor.ErrFenced):
			default:
				t.Fatalf("a holder failed otherwise: %v", err)
			}
		}
		require.Equal(t, 1, won, "exactly one holder commits the batch")
		page, pos, err := v.List(ctx, loans.Filter{})
		require.NoError(t, err)
		require.Equal(t, to, pos)
		require.Len(t, page.Loans, 20)
		for _, l := range page.Loans {
			assert.Equal(t, 1, l.Renewals, "book %s renewed once", l.BookID)
		}

		next := at(81, 0)
		more := []eventstore.Event{recorded(t, "book-1", 4, 81, books.LoanRenewed{LoanID: "l", DueAt: due.Add(2 * time.Hour)})}
		require.ErrorIs(t, v.Apply(ctx, start, next, more), processor.ErrFenced)
		page, _, err = v.List(ctx, loans.Filter{MemberID: "m", Limit: 1})
		require.NoError(t, err)
		assert.Equal(t, 1, page.Loans[0].Renewals)
	})
}
