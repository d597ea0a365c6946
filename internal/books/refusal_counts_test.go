package books_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/errs"
)

// TestRefusalsCountInWords proves that a refusal that counts members or renewals reads right
// for one and for more: "1 member waits", "2 members wait".
func TestRefusalsCountInWords(t *testing.T) {
	t.Parallel()
	m2, m3 := books.HoldPlaced{MemberID: "m2"}, books.HoldPlaced{MemberID: "m3"}
	renewed := books.LoanRenewed{LoanID: "l1", DueAt: nowUTC}
	detail := func(err error) string {
		t.Helper()
		e, ok := errors.AsType[*errs.Error](err)
		require.True(t, ok, "a refusal: %v", err)
		return e.Detail
	}
	renew := func(maxRenewals int, given ...books.Event) string {
		_, err := books.RenewLoan{LoanID: "l1"}.Decide(fold(append([]books.Event{added, lentL1}, given...)...), now, loanPeriod, maxRenewals)
		return detail(err)
	}
	hold := func(maxQueue int, given ...books.Event) string {
		_, err := books.PlaceHold{MemberID: "m4"}.Decide(fold(append([]books.Event{added, lentL1}, given...)...),
			books.HoldPolicy{MaxQueue: maxQueue, Pickup: pickup})
		return detail(err)
	}

	require.Equal(t, "1 member waits for book b1: return it for them", renew(2, m2))
	require.Equal(t, "2 members wait for book b1: return it for them", renew(2, m2, m3))
	require.Equal(t, "loan l1 was renewed 1 time already, as often as a loan may be; return the book", renew(1, renewed))
	require.Equal(t, "loan l1 was renewed 2 times already, as often as a loan may be; return the book", renew(2, renewed, renewed))
	require.Equal(t, "1 member waits for book b1 already, as many as may", hold(1, m2))
	require.Equal(t, "2 members wait for book b1 already, as many as may", hold(2, m2, m3))
}
