package accounts_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/errs"
)

// TestLoansOnTheAccount proves that the account keeps the loans lent to the member until they
// end, that a loan of one id on two books is two loans, and that an account with a loan open
// can't be erased.
func TestLoansOnTheAccount(t *testing.T) {
	t.Parallel()
	dune := accounts.LoanOpened{BookID: "dune", LoanID: "l1"}
	emma := accounts.LoanOpened{BookID: "emma", LoanID: "l1"}

	got, err := accounts.Borrow{BookID: "dune", LoanID: "l1"}.Decide(fold(opened))
	require.NoError(t, err)
	require.Equal(t, []accounts.Event{dune}, got)
	again, err := accounts.Borrow{BookID: "dune", LoanID: "l1"}.Decide(fold(opened, dune))
	require.NoError(t, err)
	require.Empty(t, again, "a loan the account holds is not opened twice")

	a := fold(opened, dune, emma)
	require.Equal(t, 2, a.OnLoan())
	_, err = accounts.Erase{}.Decide(a)
	require.True(t, errs.Is(err, errs.AccountNotSettled), "erasing with books out: %v", err)

	back, err := accounts.GiveBack{BookID: "dune", LoanID: "l1"}.Decide(a)
	require.NoError(t, err)
	require.Equal(t, []accounts.Event{accounts.LoanClosed(dune)}, back)
	a = fold(opened, dune, emma, accounts.LoanClosed(dune))
	require.Equal(t, 1, a.OnLoan())
	unknown, err := accounts.GiveBack{BookID: "dune", LoanID: "l0"}.Decide(a)
	require.NoError(t, err)
	require.Empty(t, unknown, "a loan made before loans were recorded on accounts closes nothing")

	a = fold(opened, dune, emma, accounts.LoanClosed(dune), accounts.LoanClosed(emma))
	require.Zero(t, a.OnLoan())
	erased, err := accounts.Erase{}.Decide(a)
	require.NoError(t, err)
	require.Equal(t, []accounts.Event{accounts.MemberErased{}}, erased)
}

// TestLoansSurviveASnapshot proves the open loans are kept in the account's snapshot.
func TestLoansSurviveASnapshot(t *testing.T) {
	t.Parallel()
	a := fold(opened, accounts.LoanOpened{BookID: "dune", LoanID: "l1"})
	codec := accounts.Type().Snapshot
	b, err := codec.Encode(a)
	require.NoError(t, err)
	back, err := codec.Decode(b)
	require.NoError(t, err)
	require.Equal(t, 1, back.OnLoan())
	_, err = accounts.Erase{}.Decide(back)
	require.True(t, errs.Is(err, errs.AccountNotSettled))
}
