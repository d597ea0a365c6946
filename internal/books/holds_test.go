package books_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/errs"
)

var holdPolicy = books.HoldPolicy{MaxQueue: 2, Pickup: pickup}

// TestHolds proves the queue and the shelf: who may join, who gets the book when it comes back,
// who may borrow it while it is held, and what a cancel and an expiry hand on.
func TestHolds(t *testing.T) {
	t.Parallel()
	until := nowUTC.Add(pickup)
	held := books.BookHeld{MemberID: "m2", Until: until}
	lent := books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: nowUTC, DueAt: nowUTC.Add(loanPeriod)}
	m2, m3, m4 := books.HoldPlaced{MemberID: "m2"}, books.HoldPlaced{MemberID: "m3"}, books.HoldPlaced{MemberID: "m4"}

	place := func(member string, given ...books.Event) ([]books.Event, error) {
		return books.PlaceHold{MemberID: member}.Decide(fold(append([]books.Event{added}, given...)...), holdPolicy)
	}
	_, err := place("m2")
	require.True(t, errs.Is(err, errs.BookAvailable), "on the shelf: lend it")
	got, err := place("m2", lent)
	require.NoError(t, err)
	require.Equal(t, []books.Event{m2}, got)
	for name, given := range map[string][]books.Event{"waiting": {lent, m2}, "on loan to them": {lent}, "held for them": {lent, m2, returnedL1, held}} {
		member := "m2"
		if name == "on loan to them" {
			member = "m1"
		}
		_, err := place(member, given...)
		require.True(t, errs.Is(err, errs.AlreadyHeld), "%s: %v", name, err)
	}
	_, err = place("m4", lent, m2, m3)
	require.True(t, errs.Is(err, errs.HoldQueueFull), "two wait, as many as may")
	_, err = books.PlaceHold{MemberID: "m2"}.Decide(fold(), holdPolicy)
	require.True(t, errs.Is(err, errs.NotFound))

	// The return hands the book to the first in line, and the second waits on.
	back, err := books.ReturnBook{LoanID: "l1"}.Decide(fold(added, lent, m2, m3), now, pickup)
	require.NoError(t, err)
	require.Len(t, back, 2)
	require.Equal(t, held, back[1])
	shelf := fold(added, lent, m2, m3, back[0], back[1])
	require.Equal(t, &books.Held{MemberID: "m2", Until: until}, shelf.Held)
	require.Equal(t, []string{"m3"}, shelf.Queue())

	// While held, only the holder borrows it, and that fulfils the hold.
	_, err = books.LendBook{LoanID: "l2", MemberID: "m3"}.Decide(shelf, now, loanPeriod)
	require.True(t, errs.Is(err, errs.BookOnHold))
	toHolder, err := books.LendBook{LoanID: "l2", MemberID: "m2"}.Decide(shelf, now, loanPeriod)
	require.NoError(t, err)
	require.Equal(t, books.HoldFulfilled{MemberID: "m2"}, toHolder[1])
	require.Nil(t, fold(added, lent, m2, m3, back[0], back[1], toHolder[0], toHolder[1]).Held)

	// A renewal while someone waits is refused.
	_, err = books.RenewLoan{LoanID: "l1"}.Decide(fold(added, lent, m2), now, loanPeriod, 2)
	require.True(t, errs.Is(err, errs.HoldsWaiting))

	// The holder gives up: the next in line gets it. An expiry before its time, or of another
	// hold, does nothing; in time, the next gets it, or the shelf is free.
	cancelled, err := books.CancelHold{MemberID: "m2"}.Decide(shelf, now, holdPolicy)
	require.NoError(t, err)
	require.Equal(t, []books.Event{books.HoldCancelled{MemberID: "m2"}, books.BookHeld{MemberID: "m3", Until: until}}, cancelled)
	early, err := books.ExpireHold{MemberID: "m2", Until: until}.Decide(shelf, now, holdPolicy)
	require.NoError(t, err)
	require.Empty(t, early)
	other, err := books.ExpireHold{MemberID: "m2", Until: until.Add(time.Hour)}.Decide(shelf, until.Add(2*time.Hour), holdPolicy)
	require.NoError(t, err)
	require.Empty(t, other, "another hold's timer")
	expired, err := books.ExpireHold{MemberID: "m2", Until: until}.Decide(shelf, until, holdPolicy)
	require.NoError(t, err)
	require.Equal(t, []books.Event{books.HoldExpired{MemberID: "m2", Until: until}, books.BookHeld{MemberID: "m3", Until: until.Add(pickup)}}, expired)
	lastOne := fold(added, lent, m2, returnedL1, held)
	expired, err = books.ExpireHold{MemberID: "m2", Until: until}.Decide(lastOne, until, holdPolicy)
	require.NoError(t, err)
	require.Equal(t, []books.Event{books.HoldExpired{MemberID: "m2", Until: until}}, expired, "nobody next: back on the shelf")

	_, err = books.CancelHold{MemberID: "m4"}.Decide(shelf, now, holdPolicy)
	require.True(t, errs.Is(err, errs.NotFound), "no hold to cancel")
	queued, err := books.CancelHold{MemberID: "m3"}.Decide(shelf, now, holdPolicy)
	require.NoError(t, err)
	require.Equal(t, []books.Event{books.HoldCancelled{MemberID: "m3"}}, queued)
	_ = m4

	codec := books.Type().Snapshot
	b, err := codec.Encode(shelf)
	require.NoError(t, err)
	again, err := codec.Decode(b)
	require.NoError(t, err)
	require.Equal(t, shelf.Held, again.Held)
	require.Equal(t, shelf.Queue(), again.Queue(), "the shelf and the queue survive a snapshot")
}
