package holds_test

import (
	"context"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/holds"
	"library/internal/holds/holdspg"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// The view's tests run the books' commands through books.Service, on a log in memory or in
// PostgreSQL, and hand what the log then holds to a view of the same store, as its processor
// would.

const (
	day    = 24 * time.Hour
	pickup = 3 * day
)

// log is what the tests keep events in: the log the services write and the view reads.
type log interface {
	accounts.Log
	ReadAll(ctx context.Context, after eventstore.Checkpoint, limit int) ([]eventstore.Event, error)
	Head(ctx context.Context) (eventstore.Checkpoint, error)
}

// world is one store's log, the books' and accounts' services on it, and a view that reads it.
type world struct {
	log      log
	books    *books.Service
	accounts *accounts.Service
	view     holds.View
	builds   processor.Builds
	// model is the view's build that the test hands events to, and pos how far it has read.
	build processor.Build
	model processor.ViewModel
	pos   processor.Position
	clock *clock
}

// clock is the services' clock, which tests move on.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// t0 is when every test's clock starts, to the nanosecond: the view keeps microseconds.
var t0 = time.Date(2026, 3, 10, 14, 30, 15, 1500, time.UTC)

// stores make a world of each store: in memory, and on a database of its own.
var stores = []struct {
	name string
	open func(t *testing.T, c *clock) (log, holds.View, processor.Builds)
}{
	{"memory", func(_ *testing.T, c *clock) (log, holds.View, processor.Builds) {
		checkpoints := memdriver.NewCheckpoints(nil)
		return eventstore.NewMemory(c.Now), holds.NewMemory(checkpoints), checkpoints
	}},
	{"postgres", func(t *testing.T, _ *clock) (log, holds.View, processor.Builds) {
		pool := pgtest.NewPool(t)
		checkpoints := pgdriver.NewCheckpoints(pool)
		return pgstore.New(pool, slog.New(slog.NewTextHandler(io.Discard, nil))), holdspg.New(pool, checkpoints), checkpoints
	}},
}

// forEachStore runs test, in parallel, in a fresh world of each store.
func forEachStore(t *testing.T, test func(t *testing.T, w *world)) {
	t.Helper()
	for _, s := range stores {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			c := &clock{now: t0}
			l, v, builds := s.open(t, c)
			build, model := drivertest.Answering(t, builds, holds.Name, v)
			policy := books.Policy{LoanPeriod: 14 * day, MaxRenewals: 2, Holds: books.HoldPolicy{MaxQueue: 50, Pickup: pickup}}
			test(t, &world{log: l, view: v, builds: builds, build: build, model: model, clock: c,
				books:    books.NewService(l, aggregate.Options{}, c.Now, policy, nil),
				accounts: accounts.NewService(l, aggregate.Options{}),
			})
		})
	}
}

// catchUp hands the view every event up to the log's head, as its processor would. PostgreSQL
// shows events only once every transaction older than theirs has ended (other tests' included),
// so it may take more than one read.
func (w *world) catchUp(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	head, err := w.log.Head(ctx)
	require.NoError(t, err)
	deadline := time.Now().Add(10 * time.Second)
	for w.pos.Checkpoint.Before(head) {
		events, err := w.log.ReadAll(ctx, w.pos.Checkpoint, 0)
		require.NoError(t, err)
		if len(events) == 0 {
			require.True(t, time.Now().Before(deadline), "the log's events up to its head to show")
			time.Sleep(5 * time.Millisecond) // polling for the log, bounded by the deadline
			continue
		}
		to := processor.Position{Generation: w.pos.Generation, Checkpoint: events[len(events)-1].Checkpoint()}
		require.NoError(t, w.model.Apply(ctx, w.pos, to, events))
		w.pos = to
	}
}

// recorded requires a command to have recorded events.
func recorded(t *testing.T, r aggregate.Result, err error) aggregate.Result {
	t.Helper()
	require.NoError(t, err)
	require.True(t, r.Recorded(), "the command recorded events")
	return r
}

func (w *world) add(t *testing.T, id, title string) {
	t.Helper()
	r, err := w.books.Add(context.Background(), books.AddBook{ID: id, Title: title, Author: "Someone"}, aggregate.Origin{})
	recorded(t, r, err)
}

func (w *world) lend(t *testing.T, bookID, loanID, memberID string) {
	t.Helper()
	r, err := w.books.Lend(context.Background(), bookID, books.LendBook{LoanID: loanID, MemberID: memberID}, aggregate.Origin{})
	recorded(t, r, err)
}

func (w *world) giveBack(t *testing.T, bookID, loanID string) {
	t.Helper()
	r, err := w.books.Return(context.Background(), bookID, books.ReturnBook{LoanID: loanID}, aggregate.Origin{})
	recorded(t, r, err)
}

func (w *world) place(t *testing.T, bookID string, memberIDs ...string) {
	t.Helper()
	for _, m := range memberIDs {
		r, err := w.books.PlaceHold(context.Background(), bookID, books.PlaceHold{MemberID: m}, aggregate.Origin{})
		recorded(t, r, err)
		w.clock.Advance(time.Minute)
	}
}

func (w *world) cancel(t *testing.T, bookID, memberID string) {
	t.Helper()
	r, err := w.books.CancelHold(context.Background(), bookID, books.CancelHold{MemberID: memberID}, aggregate.Origin{})
	recorded(t, r, err)
}

// expire expires the hold on the shelf for memberID until until, as the expiry's timer would.
func (w *world) expire(t *testing.T, bookID, memberID string, until time.Time) {
	t.Helper()
	r, err := w.books.ExpireHold(context.Background(), bookID, books.ExpireHold{MemberID: memberID, Until: until}, aggregate.Origin{})
	recorded(t, r, err)
}

func (w *world) erase(t *testing.T, memberID string) {
	t.Helper()
	r, err := w.accounts.Erase(context.Background(), memberID, aggregate.Origin{})
	recorded(t, r, err)
}

// list reads one page of the view.
func (w *world) list(t *testing.T, f holds.Filter) holds.Page {
	t.Helper()
	page, pos, err := w.view.List(context.Background(), f)
	require.NoError(t, err)
	require.Equal(t, w.pos, pos, "the position the page is as of")
	return page
}

// placedAt is when the log recorded the member's last HoldPlaced on the book, as the view keeps
// it.
func (w *world) placedAt(t *testing.T, bookID, memberID string) time.Time {
	t.Helper()
	events, err := w.log.ReadStream(context.Background(), books.Type().StreamID(bookID), 0)
	require.NoError(t, err)
	var at time.Time
	for _, e := range events {
		if decoded, err := books.Type().Decode(e); err == nil && decoded == (books.HoldPlaced{MemberID: memberID}) {
			at = e.RecordedAt.UTC().Truncate(time.Microsecond)
		}
	}
	require.False(t, at.IsZero(), "%s placed a hold on %s", memberID, bookID)
	return at
}

// untilOf is the time a book held now stays on the hold shelf until, as the view keeps it.
func (w *world) untilOf() time.Time {
	return w.clock.Now().UTC().Truncate(time.Second).Add(pickup)
}
