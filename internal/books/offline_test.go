package books_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/errs"
)

// offline is a LendBook of b1 to m1 under l2, reported by a kiosk that made it at lentAt,
// over the account's rules overrode (which the service finds on the account).
func offline(lentAt time.Time, overrode ...string) books.LendBook {
	return books.LendBook{LoanID: "l2", MemberID: "m1", Offline: &books.Offline{LentAt: lentAt}, Overrode: overrode}
}

// offlineLent is the BookLent of offline(lentAt, overrode...), due after the loan period.
func offlineLent(lentAt time.Time, overrode ...string) books.BookLent {
	return books.BookLent{LoanID: "l2", MemberID: "m1", LentAt: lentAt, DueAt: lentAt.Add(loanPeriod), Offline: true, Overrode: overrode}
}

// TestLendOffline proves a loan a kiosk made offline: recorded at the kiosk's time, due a loan
// period after it or when it says, over the account's rules the service found it overrides,
// each named; refused when the time is in the future or long past, and by the book's own state.
func TestLendOffline(t *testing.T) {
	t.Parallel()
	hourAgo := nowUTC.Add(-time.Hour)
	at := func(t time.Time) *time.Time { return &t }
	heldForM1 := books.BookHeld{MemberID: "m1", Until: nowUTC.Add(pickup)}
	heldForM2 := books.BookHeld{MemberID: "m2", Until: nowUTC.Add(pickup)}
	withDue := func(c books.LendBook, due time.Time) books.LendBook { c.DueAt = &due; return c }
	run(t, []decideCase{
		{name: "at the kiosk's time, in UTC, to the second", given: []books.Event{added},
			when: lend(offline(hourAgo.Add(500 * time.Millisecond).In(time.FixedZone("CET", 3600)))), then: []books.Event{offlineLent(hourAgo)}},
		{name: "over the loan limit", given: []books.Event{added},
			when: lend(offline(hourAgo, string(errs.LoanLimitReached))), then: []books.Event{offlineLent(hourAgo, string(errs.LoanLimitReached))}},
		{name: "over the fines' block", given: []books.Event{added},
			when: lend(offline(hourAgo, string(errs.MemberBlocked))), then: []books.Event{offlineLent(hourAgo, string(errs.MemberBlocked))}},
		{name: "over both", given: []books.Event{added},
			when: lend(offline(hourAgo, string(errs.LoanLimitReached), string(errs.MemberBlocked))),
			then: []books.Event{offlineLent(hourAgo, string(errs.LoanLimitReached), string(errs.MemberBlocked))}},
		{name: "with the kiosk's reason", given: []books.Event{added},
			when: lend(books.LendBook{LoanID: "l2", MemberID: "m1", Offline: &books.Offline{LentAt: hourAgo, Reason: "link to the library down"}}),
			then: []books.Event{books.BookLent{LoanID: "l2", MemberID: "m1", LentAt: hourAgo, DueAt: hourAgo.Add(loanPeriod), Offline: true,
				OfflineReason: "link to the library down"}}},
		{name: "due already: overdue as it is recorded", given: []books.Event{added},
			when: lend(offline(nowUTC.Add(-20 * 24 * time.Hour))), then: []books.Event{offlineLent(nowUTC.Add(-20 * 24 * time.Hour))}},
		{name: "due when the kiosk says", given: []books.Event{added}, when: lend(withDue(offline(hourAgo), nowUTC.Add(time.Hour))),
			then: []books.Event{books.BookLent{LoanID: "l2", MemberID: "m1", LentAt: hourAgo, DueAt: nowUTC.Add(time.Hour), Offline: true}}},
		{name: "due before the kiosk's time", given: []books.Event{added}, when: lend(withDue(offline(hourAgo), hourAgo.Add(-time.Second))), err: errs.InvalidRequest},
		{name: "due beyond the longest loan from the kiosk's time", given: []books.Event{added},
			when: lend(withDue(offline(hourAgo), hourAgo.Add(books.MaxLoanPeriod+time.Second))), err: errs.InvalidRequest},
		{name: "the kiosk's clock a little ahead", given: []books.Event{added}, when: lend(offline(nowUTC.Add(books.MaxOfflineSkew))),
			then: []books.Event{offlineLent(nowUTC.Add(books.MaxOfflineSkew))}},
		{name: "in the future", given: []books.Event{added}, when: lend(offline(nowUTC.Add(books.MaxOfflineSkew + time.Second))), err: errs.InvalidRequest},
		{name: "at the oldest", given: []books.Event{added}, when: lend(offline(nowUTC.Add(-books.MaxOfflineAge))),
			then: []books.Event{offlineLent(nowUTC.Add(-books.MaxOfflineAge))}},
		{name: "older than that", given: []books.Event{added}, when: lend(offline(nowUTC.Add(-books.MaxOfflineAge - time.Second))), err: errs.InvalidRequest},
		{name: "without a time", given: []books.Event{added}, when: lend(offline(time.Time{})), err: errs.InvalidRequest},
		{name: "a reason on two lines", given: []books.Event{added},
			when: lend(books.LendBook{LoanID: "l2", MemberID: "m1", Offline: &books.Offline{LentAt: hourAgo, Reason: "down\nBcc: x"}}), err: errs.InvalidRequest},
		{name: "a reason too long", given: []books.Event{added},
			when: lend(books.LendBook{LoanID: "l2", MemberID: "m1", Offline: &books.Offline{LentAt: hourAgo, Reason: strings.Repeat("r", books.MaxReasonLength+1)}}),
			err:  errs.InvalidRequest},
		{name: "a missing book", when: lend(offline(hourAgo)), err: errs.NotFound},
		{name: "lent to another member: not overridden", given: []books.Event{added, books.BookLent{LoanID: "l1", MemberID: "m2", LentAt: nowUTC, DueAt: nowUTC}},
			when: lend(offline(hourAgo, string(errs.LoanLimitReached))), err: errs.BookAlreadyLent},
		{name: "lent to the same member under another loan: not overridden", given: []books.Event{added, lentL1},
			when: lend(offline(hourAgo)), err: errs.BookAlreadyLent},
		{name: "on the hold shelf for another member: not overridden", given: []books.Event{added, heldForM2},
			when: lend(offline(hourAgo)), err: errs.BookOnHold},
		{name: "on the hold shelf for this member: the hold is fulfilled", given: []books.Event{added, heldForM1},
			when: lend(offline(hourAgo)), then: []books.Event{offlineLent(hourAgo), books.HoldFulfilled{MemberID: "m1"}}},
		{name: "reported again: nothing, however late", given: []books.Event{added, offlineLent(hourAgo)},
			when: lend(offline(nowUTC.Add(-2 * books.MaxOfflineAge)))},
		{name: "overrides found without offline are not recorded", given: []books.Event{added},
			when: lend(books.LendBook{LoanID: "l2", MemberID: "m1", Overrode: []string{string(errs.LoanLimitReached)}}),
			then: []books.Event{books.BookLent{LoanID: "l2", MemberID: "m1", LentAt: nowUTC, DueAt: nowUTC.Add(loanPeriod)}}},
		{name: "explicit due time online is unchanged", given: []books.Event{added},
			when: lend(books.LendBook{LoanID: "l2", MemberID: "m1", DueAt: at(nowUTC.Add(time.Hour))}),
			then: []books.Event{books.BookLent{LoanID: "l2", MemberID: "m1", LentAt: nowUTC, DueAt: nowUTC.Add(time.Hour)}}},
	})
}

// A lend without Offline, and its BookLent, encode as they did before offline loans, so that
// payload fingerprints of commands sent across the deploy stay the same, and events read alike.
func TestLendingOnlineEncodesAsBefore(t *testing.T) {
	t.Parallel()
	payload, err := json.Marshal(books.LendBook{LoanID: "l1", MemberID: "m1", Overrode: []string{"LoanLimitReached"}})
	require.NoError(t, err)
	require.JSONEq(t, `{"LoanID":"l1","MemberID":"m1","DueAt":null}`, string(payload))
	require.Equal(t, `{"LoanID":"l1","MemberID":"m1","DueAt":null}`, string(payload))
	event, err := json.Marshal(lentL1)
	require.NoError(t, err)
	require.Equal(t, `{"loanId":"l1","memberId":"m1","lentAt":"2026-02-14T14:30:15Z","dueAt":"2026-02-28T14:30:15Z"}`, string(event))

	payload, err = json.Marshal(offline(nowUTC))
	require.NoError(t, err)
	require.Equal(t, `{"LoanID":"l2","MemberID":"m1","DueAt":null,"Offline":{"lentAt":"2026-03-10T14:30:15Z"}}`, string(payload),
		"the service's findings (Overrode) are not the client's payload")
}
