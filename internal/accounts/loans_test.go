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
	require.Equal(t, []accounts.Event{accounts.LoanClosed{BookID: dune.BookID, LoanID: dune.LoanID}}, back)
	a = fold(opened, dune, emma, accounts.LoanClosed{BookID: dune.BookID, LoanID: dune.LoanID})
	require.Equal(t, 1, a.OnLoan())
	unknown, err := accounts.GiveBack{BookID: "dune", LoanID: "l0"}.Decide(a)
	require.NoError(t, err)
	require.Empty(t, unknown, "a loan made before loans were recorded on accounts closes nothing")

	a = fold(opened, dune, emma, accounts.LoanClosed{BookID: dune.BookID, LoanID: dune.LoanID}, accounts.LoanClosed{BookID: emma.BookID, LoanID: emma.LoanID})
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

// TestBlockAtIsTheMostAMemberMayOwe proves that BLOCK_AT is what a member may owe and still
// borrow, place holds and renew: owing exactly BLOCK_AT they may, one cent more they are
// refused (MemberBlocked, saying how much they owe), whatever they ask.
func TestBlockAtIsTheMostAMemberMayOwe(t *testing.T) {
	t.Parallel()
	limits := accounts.Limits{BlockAt: 1000}
	asks := map[string]func(accounts.Account) ([]accounts.Event, error){
		"borrow": accounts.Borrow{BookID: "dune", LoanID: "l1", Limits: limits}.Decide,
		"hold":   accounts.MayWait{Hold: true, Limits: limits}.Decide,
		"renew":  accounts.MayWait{Limits: limits}.Decide,
	}
	for what, decide := range asks {
		t.Run(what, func(t *testing.T) {
			t.Parallel()
			atTheLimit := fold(opened, accounts.FineCharged{Amount: 1000, Reason: "lost a book"})
			_, err := decide(atTheLimit)
			require.NoError(t, err, "owing exactly BLOCK_AT")

			over := fold(opened, accounts.FineCharged{Amount: 1000, Reason: "lost a book"}, accounts.FineCharged{Amount: 1, Reason: "late"})
			_, err = decide(over)
			require.True(t, errs.Is(err, errs.MemberBlocked), "owing a cent more than BLOCK_AT: %v", err)
			require.ErrorContains(t, err, "owes 1001 cents")
		})
	}
}
