package books_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/errs"
)

// TestRenewLoan proves that a renewal moves the due time from the later of now and the due
// time, only for the current loan, only as often as allowed, and only the borrower's when a
// member asks; and that a late return is counted from the renewed due time.
func TestRenewLoan(t *testing.T) {
	t.Parallel()
	dueLater := nowUTC.Add(3 * 24 * time.Hour)
	for name, tc := range map[string]struct {
		given []books.Event
		cmd   books.RenewLoan
		due   time.Time // the new due time; zero for a refusal
		code  errs.Code
	}{
		"due later: from the due time":  {[]books.Event{added, lentDue(dueLater)}, books.RenewLoan{LoanID: "l1"}, dueLater.Add(loanPeriod), ""},
		"overdue: from now":             {[]books.Event{added, lentL1}, books.RenewLoan{LoanID: "l1"}, nowUTC.Add(loanPeriod), ""},
		"by its borrower":               {[]books.Event{added, lentL1}, books.RenewLoan{LoanID: "l1", Borrower: "m1"}, nowUTC.Add(loanPeriod), ""},
		"by another member":             {[]books.Event{added, lentL1}, books.RenewLoan{LoanID: "l1", Borrower: "m2"}, time.Time{}, errs.Forbidden},
		"returned":                      {[]books.Event{added, lentL1, returnedL1}, books.RenewLoan{LoanID: "l1"}, time.Time{}, errs.LoanNotCurrent},
		"never lent under it":           {[]books.Event{added, lentL1}, books.RenewLoan{LoanID: "l9"}, time.Time{}, errs.LoanNotCurrent},
		"no such book":                  {nil, books.RenewLoan{LoanID: "l1"}, time.Time{}, errs.NotFound},
		"renewed as often as it may be": {[]books.Event{added, lentL1, books.LoanRenewed{LoanID: "l1", DueAt: nowUTC}, books.LoanRenewed{LoanID: "l1", DueAt: nowUTC}}, books.RenewLoan{LoanID: "l1"}, time.Time{}, errs.RenewalLimitReached},
		"renewed once: once more is ok": {[]books.Event{added, lentL1, books.LoanRenewed{LoanID: "l1", DueAt: dueLater}}, books.RenewLoan{LoanID: "l1"}, dueLater.Add(loanPeriod), ""},
		"a new loan starts a new count": {[]books.Event{added, lentL1, books.LoanRenewed{LoanID: "l1", DueAt: nowUTC}, books.LoanRenewed{LoanID: "l1", DueAt: nowUTC}, returnedL1, books.BookLent{LoanID: "l2", MemberID: "m1", LentAt: nowUTC, DueAt: dueLater}}, books.RenewLoan{LoanID: "l2"}, dueLater.Add(loanPeriod), ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			require.NoError(t, tc.cmd.Validate())
			got, err := tc.cmd.Decide(fold(tc.given...), now, loanPeriod, 2)
			if tc.code != "" {
				require.True(t, errs.Is(err, tc.code), "want %s, got %v", tc.code, err)
				require.Empty(t, got)
				return
			}
			require.NoError(t, err)
			require.Equal(t, []books.Event{books.LoanRenewed{LoanID: tc.cmd.LoanID, DueAt: tc.due, MemberID: "m1"}}, got)
		})
	}

	renewed := fold(added, lentDue(nowUTC.Add(-2*24*time.Hour)), books.LoanRenewed{LoanID: "l1", DueAt: nowUTC.Add(-24 * time.Hour)})
	back, err := books.ReturnBook{LoanID: "l1"}.Decide(renewed, now, pickup)
	require.NoError(t, err)
	require.Equal(t, 1, back[0].(books.BookReturned).DaysLate, "late from the renewed due time")
	codec := books.Type().Snapshot
	b, err := codec.Encode(renewed)
	require.NoError(t, err)
	again, err := codec.Decode(b)
	require.NoError(t, err)
	require.Equal(t, 1, again.Loan.Renewals, "the count survives a snapshot")
}
