package books_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/calendar"
	"library/internal/circulation"
	"library/internal/errs"
)

// desk is a table with a DVD row and a reference row over the environment's defaults, on a
// calendar closed on Sundays and on 2026-03-24, in UTC.
func desk() *circulation.Desk {
	week := calendar.Period{Days: 7}
	rows := []circulation.Row{
		{Key: circulation.Key{Group: "*", MaterialType: "dvd"}, LoanPeriod: &week, FinePerDay: new(int64(100)),
			FineCap: &circulation.FineCap{ReplacementPrice: true}, Renewals: new(1)},
		{Key: circulation.Key{Group: "*", MaterialType: "reference"}, Lends: new(false)},
	}
	cal := calendar.Calendar{}.WithWeekly([]time.Weekday{time.Sunday}).WithClosed(calendar.NewDate(2026, time.March, 24)).In(time.UTC)
	return &circulation.Desk{Rules: circulation.Rules{Table: circulation.Table{Rows: rows}, Version: 4},
		Defaults: circulation.Defaults(circulation.Environment{LoanPeriod: loanPeriod, RenewalsMax: 2, MaxLoans: 10, FinePerDay: 25}),
		Calendar: cal}
}

// A loan on the rules: due at the end of the next open day after its period, with its terms;
// a type not lent is refused, but recorded for a loan made offline, which says it overrode it.
func TestLendOnTheRules(t *testing.T) {
	t.Parallel()
	dvd := fold(added, books.MaterialTypeSet{MaterialType: "dvd", ReplacementPrice: new(int64(1500))})
	on := books.Lending{Desk: desk(), Group: "adult"}
	events, err := books.LendBook{LoanID: "l2", MemberID: "m2"}.DecideOn(dvd, now, on)
	require.NoError(t, err)
	lent := events[0].(books.BookLent)
	assert.Equal(t, time.Date(2026, 3, 17, 23, 59, 59, 0, time.UTC), lent.DueAt, "7 days from Tuesday the 10th")
	require.NotNil(t, lent.Terms)
	assert.Equal(t, circulation.LoanTerms{Group: "adult", MaterialType: "dvd", FinePerDay: 100, FineCap: circulation.FineCap{ReplacementPrice: true},
		RenewalsAllowed: 1, LostAfter: circulation.DefaultLostAfter, RulesVersion: 4}, *lent.Terms)

	ref := fold(added, books.MaterialTypeSet{MaterialType: "reference"})
	_, err = books.LendBook{LoanID: "l3", MemberID: "m2"}.DecideOn(ref, now, on)
	require.True(t, errs.Is(err, errs.NotLendable), "%v", err)
	offline := books.LendBook{LoanID: "l3", MemberID: "m2", Offline: &books.Offline{LentAt: now.Add(-time.Hour)}}
	events, err = offline.DecideOn(ref, now, on)
	require.NoError(t, err)
	assert.Equal(t, []string{"NotLendable"}, events[0].(books.BookLent).Overrode)
}

// A renewal takes the rules as they are now; a return is fined on the loan's own terms, in open
// days, capped at the copy's price.
func TestRenewAndReturnOnTheRules(t *testing.T) {
	t.Parallel()
	on := books.Lending{Desk: desk(), Group: "adult"}
	dvd := fold(added, books.MaterialTypeSet{MaterialType: "dvd", ReplacementPrice: new(int64(250))})
	events, err := books.LendBook{LoanID: "l2", MemberID: "m2"}.DecideOn(dvd, now, on)
	require.NoError(t, err)
	b := fold(added, books.MaterialTypeSet{MaterialType: "dvd", ReplacementPrice: new(int64(250))}, events[0])

	renewed, err := books.RenewLoan{LoanID: "l2"}.DecideOn(b, now, on)
	require.NoError(t, err)
	r := renewed[0].(books.LoanRenewed)
	assert.Equal(t, time.Date(2026, 3, 25, 23, 59, 59, 0, time.UTC), r.DueAt, "7 days from the 17th is the 24th, closed")
	b = books.Apply(b, r)
	_, err = books.RenewLoan{LoanID: "l2"}.DecideOn(b, now, on)
	require.True(t, errs.Is(err, errs.RenewalLimitReached), "%v", err)
	assert.Contains(t, err.Error(), "dvd loan for adult (1)")

	cal := desk().Calendar
	back := time.Date(2026, 3, 30, 12, 0, 0, 0, time.UTC) // Monday: 26, 27, 28, (29 Sunday), 30
	returned, err := books.ReturnBook{LoanID: "l2"}.DecideOn(b, back, pickup, &cal)
	require.NoError(t, err)
	ret := returned[0].(books.BookReturned)
	assert.Equal(t, 4, ret.LateDays, "Sunday is no late day")
	require.NotNil(t, ret.Fine)
	assert.Equal(t, int64(250), *ret.Fine, "4 days at 100, capped at the copy's price")
}
