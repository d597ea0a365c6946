package holdshelf_test

// The saga's expiry of holds, driven by hand: the books on the memory store, each event handed
// to the saga and each timer fired as the processor would, on a clock the test moves.

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/holdshelf"
	"library/internal/processor"
)

// shelf is the books and accounts on a memory log, the saga over them, and the clock they
// share.
type shelf struct {
	store *eventstore.Memory
	books *books.Service
	saga  holdshelf.Saga
	now   time.Time
}

func newShelf(t *testing.T, pickup time.Duration) *shelf {
	t.Helper()
	s := &shelf{store: eventstore.NewMemory(nil), now: time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)}
	clock := func() time.Time { return s.now }
	s.books = books.NewService(s.store, aggregate.Options{}, clock,
		books.Policy{LoanPeriod: 14 * 24 * time.Hour, Holds: books.HoldPolicy{MaxQueue: 5, Pickup: pickup}}, nil)
	s.saga = holdshelf.Saga{Books: s.books, Members: accounts.NewService(s.store, aggregate.Options{}), Log: s.store, Now: clock}
	return s
}

// heldAfterReturn lends bookID to someone else, queues memberID for it and returns it, so that
// it goes to the hold shelf for memberID; it hands the book's new events to the saga and
// returns the timer the BookHeld scheduled.
func (s *shelf) heldAfterReturn(t *testing.T, bookID, loanID, memberID string) processor.Timer {
	t.Helper()
	ctx := t.Context()
	_, err := s.books.Lend(ctx, bookID, books.LendBook{LoanID: loanID, MemberID: "carol"}, aggregate.Origin{})
	require.NoError(t, err)
	_, v, err := s.books.Get(ctx, bookID)
	require.NoError(t, err)
	_, err = s.books.PlaceHold(ctx, bookID, books.PlaceHold{MemberID: memberID}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = s.books.Return(ctx, bookID, books.ReturnBook{LoanID: loanID}, aggregate.Origin{})
	require.NoError(t, err)

	events, err := s.store.ReadStream(ctx, books.Type().StreamID(bookID), v)
	require.NoError(t, err)
	var scheduled []processor.TimerChange
	for _, e := range events {
		handling, rec := processor.RecordTimers(ctx)
		require.NoError(t, s.saga.Handle(handling, e))
		scheduled = append(scheduled, rec.Changes()...)
	}
	require.Len(t, scheduled, 1, "the BookHeld schedules its expiry")
	return processor.Timer{Key: scheduled[0].Key, At: scheduled[0].At, Data: scheduled[0].Data}
}

// fire fires a timer at its time, as the processor does once the store's clock reaches it.
func (s *shelf) fire(t *testing.T, timer processor.Timer) {
	t.Helper()
	s.now = timer.At
	ctx, _ := processor.RecordTimers(t.Context())
	require.NoError(t, s.saga.Fire(ctx, timer))
}

// expired are the HoldExpired events of a book's stream, in order.
func (s *shelf) expired(t *testing.T, bookID string) []books.HoldExpired {
	t.Helper()
	events, err := s.store.ReadStream(t.Context(), books.Type().StreamID(bookID), 0)
	require.NoError(t, err)
	var out []books.HoldExpired
	for _, e := range events {
		if e.Type == (books.HoldExpired{}).EventType() {
			var x books.HoldExpired
			require.NoError(t, json.Unmarshal(e.Data, &x))
			out = append(out, x)
		}
	}
	return out
}

// A member whose hold on a book expired, and who holds the same book again later, sees the
// second hold expire too: each expiry is its own command, told apart by the hold's time, so
// the second is not taken for a repeat of the first.
func TestTheSameMembersSecondHoldOnABookExpires(t *testing.T) {
	t.Parallel()
	s := newShelf(t, 2*24*time.Hour)
	ctx := t.Context()
	_, err := s.books.Add(ctx, books.AddBook{ID: "dune", Title: "Dune", Author: "Frank Herbert"}, aggregate.Origin{})
	require.NoError(t, err)

	first := s.heldAfterReturn(t, "dune", "loan-1", "ann")
	s.fire(t, first)
	book, _, err := s.books.Get(ctx, "dune")
	require.NoError(t, err)
	require.Nil(t, book.Held, "the first hold expired: the book is back on the shelf")

	s.now = s.now.Add(24 * time.Hour)
	second := s.heldAfterReturn(t, "dune", "loan-2", "ann")
	require.Equal(t, first.Key, second.Key, "one timer key per member and book")
	require.True(t, second.At.After(first.At))
	s.fire(t, second)
	book, _, err = s.books.Get(ctx, "dune")
	require.NoError(t, err)
	require.Nil(t, book.Held, "the second hold expired too")
	require.Equal(t, []books.HoldExpired{{MemberID: "ann", Until: first.At}, {MemberID: "ann", Until: second.At}},
		s.expired(t, "dune"))
}

// A book event written by a newer release than this one pauses the saga, to be read by a
// replica of that release; nothing is parked, nothing scheduled.
func TestAnEventOfANewerReleasePausesTheShelf(t *testing.T) {
	t.Parallel()
	s := newShelf(t, time.Hour)
	held := eventstore.Event{StreamID: books.Type().StreamID("dune"), Version: 3, Type: books.BookHeld{}.EventType(),
		Data: json.RawMessage(`{"memberId":"ann","until":"2026-03-02T10:00:00Z"}`), Metadata: eventstore.Metadata{Schema: 2}}
	handling, rec := processor.RecordTimers(t.Context())
	err := s.saga.Handle(handling, held)
	require.True(t, errs.Is(err, errs.Unavailable), "%v", err)
	require.False(t, errors.As(err, new(*processor.ParkError)), "nothing parked")
	require.Empty(t, rec.Changes(), "nothing scheduled")
}
