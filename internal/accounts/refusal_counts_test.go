package accounts_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/errs"
)

// TestRefusalsCountInWords proves that a refusal that counts books or cents reads right for
// one and for more: "1 book", "2 books", "1 cent", "300 cents".
func TestRefusalsCountInWords(t *testing.T) {
	t.Parallel()
	dune, emma := accounts.LoanOpened{BookID: "dune", LoanID: "l1"}, accounts.LoanOpened{BookID: "emma", LoanID: "l2"}
	fined := func(cents int64) accounts.Event { return accounts.FineCharged{Amount: cents, Reason: "late"} }
	detail := func(_ []accounts.Event, err error) string {
		t.Helper()
		e, ok := errors.AsType[*errs.Error](err)
		require.True(t, ok, "a refusal: %v", err)
		return e.Detail
	}
	borrow := func(limits accounts.Limits, given ...accounts.Event) string {
		return detail(accounts.Borrow{BookID: "ulysses", LoanID: "l3", Limits: limits}.Decide(fold(append([]accounts.Event{opened}, given...)...)))
	}

	require.Equal(t, "the member has 1 book out, as many as a member may", borrow(accounts.Limits{MaxLoans: 1}, dune))
	require.Equal(t, "the member has 2 books out, as many as a member may", borrow(accounts.Limits{MaxLoans: 2}, dune, emma))
	require.Equal(t, "the member owes 2 cents, more than the 1 cent a member may owe and still borrow; pay first",
		borrow(accounts.Limits{BlockAt: 1}, fined(2)))
	require.Equal(t, "the member owes 501 cents, more than the 500 cents a member may owe and still borrow; pay first",
		borrow(accounts.Limits{BlockAt: 500}, fined(501)))

	overpaid := fold(opened, fined(300), accounts.PaymentReceived{Amount: 301})
	require.Equal(t, "there is nothing to pay: the balance is -1 cent", detail(accounts.Pay{Amount: 100}.Decide(overpaid)))
	owes := func(cents int64) accounts.Account { return fold(opened, fined(cents)) }
	require.Equal(t, "the account is not settled: its balance is 1 cent; settle it before erasing it", detail(accounts.Erase{}.Decide(owes(1))))
	require.Equal(t, "the account is not settled: its balance is 300 cents; settle it before erasing it", detail(accounts.Erase{}.Decide(owes(300))))
}
