package books_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/circulation"
	"library/internal/errs"
	"library/internal/eventstore"
)

// A loan on the desk's terms, lost after 3 open days, of a DVD whose rows price it at 4000; due
// at the end of Tuesday 2026-03-17, on a calendar closed on Sundays and on Tuesday the 24th.
var (
	due17      = time.Date(2026, 3, 17, 23, 59, 59, 0, time.UTC)
	termsLost3 = &circulation.LoanTerms{Group: "adult", MaterialType: "dvd", FinePerDay: 100, LostAfter: 3, RulesVersion: 4}
	dvdCopy    = books.MaterialTypeSet{MaterialType: "dvd"}
	lentOnTerm = books.BookLent{LoanID: "l1", MemberID: "m1", LentAt: due17.Add(-7 * 24 * time.Hour), DueAt: due17, Terms: termsLost3}
)

// pricedDesk is desk() with a default price for a lost DVD.
func pricedDesk() *circulation.Desk {
	d := desk()
	d.Rules.Table.Rows[0].ReplacementPrice = new(int64(4000))
	return d
}

// A loan is lost at the end of its LostAfter-th open day after the day it was due: closed days
// never count, and by then it is exactly LostAfter open days late.
func TestLostAt(t *testing.T) {
	t.Parallel()
	cal := desk().Calendar
	for lostAfter, want := range map[int]time.Time{
		1: time.Date(2026, 3, 18, 23, 59, 59, 0, time.UTC),
		3: time.Date(2026, 3, 20, 23, 59, 59, 0, time.UTC),
		5: time.Date(2026, 3, 23, 23, 59, 59, 0, time.UTC), // Sunday the 22nd is closed
		6: time.Date(2026, 3, 25, 23, 59, 59, 0, time.UTC), // and so is Tuesday the 24th
	} {
		got := books.LostAt(cal, due17, lostAfter)
		assert.Equal(t, want, got, "lost after %d", lostAfter)
		assert.Equal(t, lostAfter, cal.LateDays(due17, got), "%d open days late when lost", lostAfter)
		assert.Equal(t, lostAfter-1, cal.LateDays(due17, got.Add(-24*time.Hour)), "a day before")
	}
}

// The rules declare a loan made on terms lost once it is overdue for its LostAfter open days,
// not a second before, charging the copy's own price, or else its type's by the rules, or
// nothing when neither is known; a loan made before the rules is never lost by them.
func TestDeclareLostByTheRules(t *testing.T) {
	t.Parallel()
	on := books.Lending{Desk: pricedDesk(), Group: "adult"}
	lostAt := time.Date(2026, 3, 20, 23, 59, 59, 0, time.UTC)
	rules := func(at time.Time) books.DeclareLost { return books.DeclareLost{LoanID: "l1", At: &at} }
	lost := func(charge int64) []books.Event {
		return []books.Event{books.LoanLost{LoanID: "l1", MemberID: "m1", LostAt: lostAt, Charge: charge, By: books.LostByRules}}
	}
	copyPriced := books.MaterialTypeSet{MaterialType: "dvd", ReplacementPrice: new(int64(1500))}
	run(t, []decideCase{
		{name: "a second early", given: []books.Event{added, dvdCopy, lentOnTerm},
			when: func(b books.Book) ([]books.Event, error) { return rules(lostAt.Add(-time.Second)).DecideOn(b, now, on) }},
		{name: "on time, at the type's price", given: []books.Event{added, dvdCopy, lentOnTerm},
			when: func(b books.Book) ([]books.Event, error) { return rules(lostAt).DecideOn(b, now, on) }, then: lost(4000)},
		{name: "at the copy's own price", given: []books.Event{added, copyPriced, lentOnTerm},
			when: func(b books.Book) ([]books.Event, error) { return rules(lostAt).DecideOn(b, now, on) }, then: lost(1500)},
		{name: "with no price known", given: []books.Event{added, dvdCopy, lentOnTerm},
			when: func(b books.Book) ([]books.Event, error) {
				return rules(lostAt).DecideOn(b, now, books.Lending{Desk: desk(), Group: "adult"})
			}, then: lost(0)},
		{name: "renewed since", given: []books.Event{added, dvdCopy, lentOnTerm, books.LoanRenewed{LoanID: "l1", DueAt: due17.Add(7 * 24 * time.Hour), Terms: termsLost3}},
			when: func(b books.Book) ([]books.Event, error) { return rules(lostAt).DecideOn(b, now, on) }},
		{name: "lost already", given: []books.Event{added, dvdCopy, lentOnTerm, lost(4000)[0]},
			when: func(b books.Book) ([]books.Event, error) { return rules(lostAt.Add(time.Hour)).DecideOn(b, now, on) }},
		{name: "claimed returned: the rules leave it to the desk", given: []books.Event{added, dvdCopy, lentOnTerm, books.ClaimedReturned{LoanID: "l1", MemberID: "m1"}},
			when: func(b books.Book) ([]books.Event, error) { return rules(lostAt).DecideOn(b, now, on) }},
		{name: "a loan from before the rules", given: []books.Event{added, dvdCopy, lentL1},
			when: func(b books.Book) ([]books.Event, error) {
				return rules(nowUTC.Add(365*24*time.Hour)).DecideOn(b, now, on)
			}},
		{name: "returned since", given: []books.Event{added, dvdCopy, lentOnTerm, returnedL1},
			when: func(b books.Book) ([]books.Event, error) { return rules(lostAt).DecideOn(b, now, on) }, err: errs.LoanNotCurrent},
	})
}

// A librarian declares the current loan lost at once, or a copy claimed returned under it; a
// loan that is not current is refused, and one lost already records nothing.
func TestDeclareLostAtTheDesk(t *testing.T) {
	t.Parallel()
	on := books.Lending{Desk: pricedDesk(), Group: "adult"}
	desk := func(loanID string) func(books.Book) ([]books.Event, error) {
		return func(b books.Book) ([]books.Event, error) {
			return books.DeclareLost{LoanID: loanID}.DecideOn(b, now, on)
		}
	}
	lost := []books.Event{books.LoanLost{LoanID: "l1", MemberID: "m1", LostAt: nowUTC, Charge: 4000, By: books.LostByLibrarian}}
	run(t, []decideCase{
		{name: "a current loan", given: []books.Event{added, dvdCopy, lentOnTerm}, when: desk("l1"), then: lost},
		{name: "a loan made before the rules too", given: []books.Event{added, dvdCopy, lentL1}, when: desk("l1"), then: lost},
		{name: "claimed returned, and not believed", given: []books.Event{added, dvdCopy, lentOnTerm, books.ClaimedReturned{LoanID: "l1", MemberID: "m1"}},
			when: desk("l1"), then: lost},
		{name: "lost already", given: []books.Event{added, dvdCopy, lentOnTerm, lost[0]}, when: desk("l1")},
		{name: "returned", given: []books.Event{added, lentL1, returnedL1}, when: desk("l1"), err: errs.LoanNotCurrent},
		{name: "another loan", given: []books.Event{added, lentL1}, when: desk("l9"), err: errs.LoanNotCurrent},
		{name: "on the shelf", given: []books.Event{added}, when: desk("l1"), err: errs.LoanNotCurrent},
		{name: "no such book", when: desk("l1"), err: errs.NotFound},
	})
	require.Error(t, books.DeclareLost{LoanID: "no/slashes"}.Validate())
}

// A loan claimed returned ends with no charge; claimed again it records nothing; a loan lost
// or returned is not current.
func TestClaimReturned(t *testing.T) {
	t.Parallel()
	claim := func(b books.Book) ([]books.Event, error) { return books.ClaimReturned{LoanID: "l1"}.Decide(b, now) }
	claimed := books.ClaimedReturned{LoanID: "l1", MemberID: "m1", ClaimedAt: nowUTC}
	run(t, []decideCase{
		{name: "a current loan", given: []books.Event{added, lentL1}, when: claim, then: []books.Event{claimed}},
		{name: "claimed already", given: []books.Event{added, lentL1, claimed}, when: claim},
		{name: "lost", given: []books.Event{added, lentL1, books.LoanLost{LoanID: "l1", MemberID: "m1"}}, when: claim, err: errs.LoanNotCurrent},
		{name: "returned", given: []books.Event{added, lentL1, returnedL1}, when: claim, err: errs.LoanNotCurrent},
		{name: "no such book", when: claim, err: errs.NotFound},
	})
}

// A copy lost or claimed returned is on no shelf: its status says which, it is neither lent,
// held nor renewed; returned under its last loan, or dropped at a book drop, it is back on the
// shelf, or held for the first in line, and the charge it recorded is taken back.
func TestAMissingCopy(t *testing.T) {
	t.Parallel()
	lost := books.LoanLost{LoanID: "l1", MemberID: "m1", LostAt: nowUTC.Add(-time.Hour), Charge: 4000, By: books.LostByRules}
	claimed := books.ClaimedReturned{LoanID: "l1", MemberID: "m1", ClaimedAt: nowUTC.Add(-time.Hour)}
	assert.Equal(t, "lost", fold(added, lentL1, lost).Status())
	assert.Equal(t, "claimedReturned", fold(added, lentL1, claimed).Status())
	assert.Nil(t, fold(added, lentL1, lost).Loan, "the loan ended")

	back := func(was string, charge int64) books.LostCopyReturned {
		return books.LostCopyReturned{LoanID: "l1", MemberID: "m1", ReturnedAt: nowUTC, Was: was, Charge: charge}
	}
	held := books.BookHeld{MemberID: "m2", Until: nowUTC.Add(pickup)}
	returning := func(c books.ReturnBook) func(books.Book) ([]books.Event, error) {
		return func(b books.Book) ([]books.Event, error) { return c.DecideOn(b, now, pickup, nil) }
	}
	run(t, []decideCase{
		{name: "a lend", given: []books.Event{added, lentL1, lost},
			when: func(b books.Book) ([]books.Event, error) {
				return books.LendBook{LoanID: "l2", MemberID: "m2"}.Decide(b, now, loanPeriod)
			},
			err: errs.BookMissing},
		{name: "a hold", given: []books.Event{added, lentL1, claimed},
			when: func(b books.Book) ([]books.Event, error) {
				return books.PlaceHold{MemberID: "m2"}.Decide(b, books.HoldPolicy{MaxQueue: 5, Pickup: pickup})
			}, err: errs.BookMissing},
		{name: "a renewal", given: []books.Event{added, lentL1, lost},
			when: func(b books.Book) ([]books.Event, error) {
				return books.RenewLoan{LoanID: "l1"}.Decide(b, now, loanPeriod, 2)
			},
			err: errs.LoanNotCurrent},
		{name: "returned under its loan", given: []books.Event{added, lentL1, lost}, when: returning(books.ReturnBook{LoanID: "l1"}),
			then: []books.Event{back(books.StatusLost, 4000)}},
		{name: "dropped at a book drop", given: []books.Event{added, lentL1, claimed}, when: returning(books.ReturnBook{Current: true}),
			then: []books.Event{back(books.StatusClaimedReturned, 0)}},
		{name: "held for the first in line", given: []books.Event{added, lentL1, books.HoldPlaced{MemberID: "m2"}, lost},
			when: returning(books.ReturnBook{LoanID: "l1"}), then: []books.Event{back(books.StatusLost, 4000), held}},
		{name: "under a loan it never had", given: []books.Event{added, lentL1, lost}, when: returning(books.ReturnBook{LoanID: "l9"}),
			err: errs.LoanMismatch},
		{name: "returned again", given: []books.Event{added, lentL1, lost, back(books.StatusLost, 4000)}, when: returning(books.ReturnBook{LoanID: "l1"})},
	})
	again := fold(added, lentL1, lost, back(books.StatusLost, 4000))
	assert.Equal(t, "available", again.Status())
	_, err := books.LendBook{LoanID: "l2", MemberID: "m2"}.Decide(again, now, loanPeriod)
	require.NoError(t, err, "back on the shelf, it is lent again")
}

// A copy's being missing survives a snapshot.
func TestAMissingCopySurvivesASnapshot(t *testing.T) {
	t.Parallel()
	b := fold(added, lentL1, books.LoanLost{LoanID: "l1", MemberID: "m1", LostAt: nowUTC, Charge: 4000, By: books.LostByLibrarian})
	codec := books.Type().Snapshot
	data, err := codec.Encode(b)
	require.NoError(t, err)
	back, err := codec.Decode(data)
	require.NoError(t, err)
	require.Equal(t, b, back)
	require.Equal(t, "lost", back.Status())
}

// A member's loans: one lost, or claimed returned, is no longer open, and says how it ended;
// its copy's return later is when it came back.
func TestMemberLoansEndedMissing(t *testing.T) {
	t.Parallel()
	events := []books.Event{lentL1, books.LoanLost{LoanID: "l1", MemberID: "m1", LostAt: nowUTC, By: books.LostByRules},
		books.LostCopyReturned{LoanID: "l1", MemberID: "m1", ReturnedAt: nowUTC.Add(time.Hour), Was: books.StatusLost}}
	loans, err := books.MemberLoans(logged(t, "book-b1", events...))
	require.NoError(t, err)
	require.Len(t, loans, 1)
	assert.False(t, loans[0].Open())
	assert.Equal(t, books.StatusLost, loans[0].Ended)
	assert.Equal(t, nowUTC, *loans[0].EndedAt)
	assert.Equal(t, nowUTC.Add(time.Hour), *loans[0].ReturnedAt)
	assert.Nil(t, loans[0].DaysLate)
}

// logged is events as the log holds them in stream, from position 1.
func logged(t *testing.T, stream string, events ...books.Event) []eventstore.Event {
	t.Helper()
	out := make([]eventstore.Event, len(events))
	for i, e := range events {
		data, err := json.Marshal(e)
		require.NoError(t, err)
		out[i] = eventstore.Event{StreamID: stream, Type: e.EventType(), Data: data, Position: int64(i + 1), Version: int64(i + 1)}
	}
	return out
}
