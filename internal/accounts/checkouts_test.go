package accounts_test

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/errs"
)

var (
	fined300 = accounts.FineCharged{Amount: 300, Reason: "late"}
	started  = accounts.CheckoutStarted{CheckoutID: "co_1", Amount: 300, Currency: "eur", SessionID: "cs_1", URL: "https://pay.example/cs_1"}
	started2 = accounts.CheckoutStarted{CheckoutID: "co_2", Amount: 300, Currency: "eur", SessionID: "cs_2", URL: "https://pay.example/cs_2"}
	paidCo1  = accounts.SettleCheckout{CheckoutID: "co_1", SessionID: "cs_1", Status: accounts.CheckoutPaid, Amount: 300, Currency: "eur", PaymentID: "pi_1"}
	paidCo2  = accounts.SettleCheckout{CheckoutID: "co_2", SessionID: "cs_2", Status: accounts.CheckoutPaid, Amount: 300, Currency: "eur", PaymentID: "pi_2"}
)

// opened returns an open that records a call and answers with the provider's page.
func opener(calls *int, err error) func(int64) (accounts.CheckoutStarted, error) {
	return func(int64) (accounts.CheckoutStarted, error) {
		*calls++
		return accounts.CheckoutStarted{Currency: "eur", SessionID: "cs_1", URL: "https://pay.example/cs_1"}, err
	}
}

// now is the time the tests' checkouts are started at.
var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// TestStartCheckout proves that a checkout starts only for what is owed, asks the provider only
// then, and starts once per id.
func TestStartCheckout(t *testing.T) {
	t.Parallel()
	calls := 0
	got, err := accounts.StartCheckout{Amount: 300}.Decide(fold(fined300), "co_1", 3, now, opener(&calls, nil))
	require.NoError(t, err)
	require.Equal(t, []accounts.Event{started}, got)
	require.Equal(t, 1, calls)

	for name, tc := range map[string]struct {
		given  []accounts.Event
		amount int64
		code   errs.Code
	}{
		"nothing owed":        {nil, 100, errs.NothingToPay},
		"credit":              {[]accounts.Event{fined300, accounts.PaymentReceived{Amount: 400}}, 100, errs.NothingToPay},
		"more than is owed":   {[]accounts.Event{fined300}, 301, errs.InvalidRequest},
		"a fine paid already": {[]accounts.Event{fined300, started, accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1"}}, 300, errs.NothingToPay},
	} {
		calls := 0
		_, err := accounts.StartCheckout{Amount: tc.amount}.Decide(fold(tc.given...), "co_9", 3, now, opener(&calls, nil))
		require.True(t, errs.Is(err, tc.code), "%s: %v", name, err)
		require.Zero(t, calls, "%s: the provider is not asked for a page that can't be paid", name)
	}

	again, err := accounts.StartCheckout{Amount: 300}.Decide(fold(fined300, started), "co_1", 3, now, opener(&calls, nil))
	require.NoError(t, err)
	require.Empty(t, again, "started once")

	down := errs.E(errs.Unavailable, "the provider is down")
	_, err = accounts.StartCheckout{Amount: 300}.Decide(fold(fined300), "co_1", 3, now, opener(&calls, down))
	require.True(t, errors.Is(err, down), "the provider's failure is the command's")
	require.Error(t, accounts.StartCheckout{Amount: 0}.Validate())
}

// TestSettleCheckout proves that a checkout is paid once however often the provider says so,
// that what doesn't match the checkout is refused, and that money arriving when nothing is owed
// is recorded with its excess due back.
func TestSettleCheckout(t *testing.T) {
	t.Parallel()
	run(t, []decideCase{
		{name: "paid", given: []accounts.Event{fined300, started}, when: paidCo1,
			then: []accounts.Event{accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1", PaymentID: "pi_1"}}, balance: bal(0)},
		{name: "paid again", given: []accounts.Event{fined300, started, accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1", PaymentID: "pi_1"}},
			when: paidCo1, balance: bal(0)},
		{name: "paid after it expired here", given: []accounts.Event{fined300, started, accounts.CheckoutEnded{CheckoutID: "co_1", Status: accounts.CheckoutExpired}},
			when: paidCo1, then: []accounts.Event{accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1", PaymentID: "pi_1"}}, balance: bal(0)},
		{name: "a second tab paid for the same fine", given: []accounts.Event{fined300, started, started2, accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1", PaymentID: "pi_1"}},
			when: paidCo2, then: []accounts.Event{accounts.PaymentReceived{Amount: 300, CheckoutID: "co_2", PaymentID: "pi_2"},
				accounts.RefundDue{CheckoutID: "co_2", Amount: 300, PaymentID: "pi_2"}}, balance: bal(-300)},
		{name: "part of it owed", given: []accounts.Event{fined300, started, started2, accounts.PaymentReceived{Amount: 200}},
			when: paidCo2, then: []accounts.Event{accounts.PaymentReceived{Amount: 300, CheckoutID: "co_2", PaymentID: "pi_2"},
				accounts.RefundDue{CheckoutID: "co_2", Amount: 200, PaymentID: "pi_2"}}, balance: bal(-200)},
		{name: "a checkout the account does not hold", given: []accounts.Event{fined300}, when: paidCo1, balance: bal(300)},
		{name: "another session", given: []accounts.Event{fined300, started}, when: accounts.SettleCheckout{CheckoutID: "co_1", SessionID: "cs_2",
			Status: accounts.CheckoutPaid, Amount: 300, Currency: "eur"}, err: errs.InvalidRequest},
		{name: "another amount", given: []accounts.Event{fined300, started}, when: accounts.SettleCheckout{CheckoutID: "co_1", SessionID: "cs_1",
			Status: accounts.CheckoutPaid, Amount: 30, Currency: "eur"}, err: errs.InvalidRequest},
		{name: "another currency", given: []accounts.Event{fined300, started}, when: accounts.SettleCheckout{CheckoutID: "co_1", SessionID: "cs_1",
			Status: accounts.CheckoutPaid, Amount: 300, Currency: "usd"}, err: errs.InvalidRequest},
		{name: "expired", given: []accounts.Event{fined300, started}, when: accounts.SettleCheckout{CheckoutID: "co_1", SessionID: "cs_1", Status: accounts.CheckoutExpired},
			then: []accounts.Event{accounts.CheckoutEnded{CheckoutID: "co_1", Status: accounts.CheckoutExpired}}, balance: bal(300)},
		{name: "expired after it was paid", given: []accounts.Event{fined300, started, accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1", PaymentID: "pi_1"}},
			when: accounts.SettleCheckout{CheckoutID: "co_1", SessionID: "cs_1", Status: accounts.CheckoutExpired}, balance: bal(0)},
		{name: "no such status", given: []accounts.Event{fined300, started}, when: accounts.SettleCheckout{CheckoutID: "co_1", SessionID: "cs_1", Status: "refunded"},
			err: errs.InvalidRequest},
	})
}

// TestRefundsAndErasure proves that a refund is recorded once and gives the credit back, and
// that an account with a checkout open, or money to give back, is not settled.
func TestRefundsAndErasure(t *testing.T) {
	t.Parallel()
	due := []accounts.Event{fined300, started, started2, accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1", PaymentID: "pi_1"},
		accounts.PaymentReceived{Amount: 300, CheckoutID: "co_2", PaymentID: "pi_2"}, accounts.RefundDue{CheckoutID: "co_2", Amount: 300, PaymentID: "pi_2"}}
	_, err := accounts.Erase{}.Decide(fold(due...))
	require.True(t, errs.Is(err, errs.AccountNotSettled), "money to give back: %v", err)

	issued, err := accounts.SettleRefund{CheckoutID: "co_2", Amount: 300, RefundID: "re_1", Status: "succeeded"}.Decide(fold(due...))
	require.NoError(t, err)
	require.Equal(t, []accounts.Event{accounts.RefundIssued{CheckoutID: "co_2", Amount: 300, RefundID: "re_1"}}, issued)
	after := fold(append(due, issued...)...)
	require.Zero(t, after.Balance)
	co, ok := after.Checkout("co_2")
	require.True(t, ok)
	require.Equal(t, int64(300), co.Refunded)
	require.Zero(t, co.RefundDue)
	again, err := accounts.SettleRefund{CheckoutID: "co_2", Amount: 300, RefundID: "re_1", Status: "succeeded"}.Decide(after)
	require.NoError(t, err)
	require.Empty(t, again, "refunded once")
	erased, err := accounts.Erase{}.Decide(after)
	require.NoError(t, err)
	require.Equal(t, []accounts.Event{accounts.MemberErased{}}, erased)

	_, err = accounts.Erase{}.Decide(fold(fined300, accounts.PaymentReceived{Amount: 300}, started))
	require.True(t, errs.Is(err, errs.AccountNotSettled), "a checkout open: %v", err)
}

// TestCheckoutsSurviveASnapshot proves the checkouts are kept in the account's snapshot.
func TestCheckoutsSurviveASnapshot(t *testing.T) {
	t.Parallel()
	a := fold(fined300, started, started2, accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1", PaymentID: "pi_1"})
	codec := accounts.Type().Snapshot
	b, err := codec.Encode(a)
	require.NoError(t, err)
	back, err := codec.Decode(b)
	require.NoError(t, err)
	for _, id := range []string{"co_1", "co_2"} {
		want, _ := a.Checkout(id)
		got, ok := back.Checkout(id)
		require.True(t, ok)
		require.Equal(t, want, got)
	}
	require.Len(t, back.OpenCheckouts(), 1)
}
