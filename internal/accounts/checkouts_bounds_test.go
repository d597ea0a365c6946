package accounts_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/errs"
)

// startedAt is a checkout co_<n> of 100 cents whose page takes payment until expires.
func startedAt(n int, expires time.Time) accounts.CheckoutStarted {
	id := fmt.Sprintf("co_%d", n)
	return accounts.CheckoutStarted{CheckoutID: id, Amount: 100, Currency: "eur", SessionID: "cs_" + id,
		URL: "https://pay.example/" + id, ExpiresAt: expires}
}

// A member with as many checkouts open as they may have is refused one more, with the open
// ones named for the web app to offer back, and the provider is not asked for a page. A
// checkout whose page has expired does not count, nor one that ended.
func TestOneCheckoutMoreThanTheOpenMaxIsRefused(t *testing.T) {
	t.Parallel()
	later := now.Add(30 * time.Minute)
	three := []accounts.Event{fined300, startedAt(1, later), startedAt(2, later), startedAt(3, later)}
	calls := 0
	_, err := accounts.StartCheckout{Amount: 100}.Decide(fold(three...), "co_9", 3, now, opener(&calls, nil))
	require.True(t, errs.Is(err, errs.TooManyCheckouts), "%v", err)
	require.Zero(t, calls, "the provider is not asked")
	var refusal *errs.Error
	require.ErrorAs(t, err, &refusal)
	named, ok := refusal.Extensions["openCheckouts"].([]accounts.OpenCheckout)
	require.True(t, ok, "the open checkouts are named: %#v", refusal.Extensions)
	require.Equal(t, []accounts.OpenCheckout{
		{CheckoutID: "co_1", URL: "https://pay.example/co_1", Amount: 100, ExpiresAt: later},
		{CheckoutID: "co_2", URL: "https://pay.example/co_2", Amount: 100, ExpiresAt: later},
		{CheckoutID: "co_3", URL: "https://pay.example/co_3", Amount: 100, ExpiresAt: later},
	}, named)

	for name, given := range map[string][]accounts.Event{
		"one of them ended":       append(three[:len(three):len(three)], accounts.CheckoutEnded{CheckoutID: "co_2", Status: accounts.CheckoutExpired}),
		"one of them past expiry": {fined300, startedAt(1, later), startedAt(2, now), startedAt(3, later)},
		"a higher limit":          three,
	} {
		openMax := 3
		if name == "a higher limit" {
			openMax = 4
		}
		calls := 0
		got, err := accounts.StartCheckout{Amount: 100}.Decide(fold(given...), "co_9", openMax, now, opener(&calls, nil))
		require.NoError(t, err, name)
		require.Len(t, got, 1, name)
		require.Equal(t, 1, calls, name)
	}
}

// However many checkouts a member starts and ends, the account keeps the open ones, those with
// money still to give back, and the latest EndedKept of the others: its size is bounded.
func TestAnAccountKeepsOnlyTheCheckoutsThatCanStillChange(t *testing.T) {
	t.Parallel()
	events := []accounts.Event{accounts.FineCharged{Amount: 1_000_000, Reason: "lost books"}}
	for n := range 200 {
		co := startedAt(n, now.Add(time.Hour))
		events = append(events, co)
		switch n % 3 {
		case 0:
			events = append(events, accounts.CheckoutEnded{CheckoutID: co.CheckoutID, Status: accounts.CheckoutExpired})
		case 1:
			events = append(events, accounts.PaymentReceived{Amount: 100, CheckoutID: co.CheckoutID, PaymentID: "pi_" + co.CheckoutID})
		}
	}
	// One paid for nothing, its refund still to give back, ended long before the others.
	due := accounts.RefundDue{CheckoutID: "co_1", Amount: 100, PaymentID: "pi_co_1"}
	events = append(events[:4:4], append([]accounts.Event{due}, events[4:]...)...)
	a := fold(events...)

	open := a.OpenCheckouts()
	require.Len(t, open, 66, "every open checkout is kept")
	_, ok := a.Checkout("co_1")
	require.True(t, ok, "a checkout with money to give back is kept however old")
	ended := 0
	for n := range 200 {
		if c, ok := a.Checkout(fmt.Sprintf("co_%d", n)); ok && c.Status != accounts.CheckoutOpen && n != 1 {
			ended++
			require.GreaterOrEqual(t, n, 190, "only the latest ended are kept: co_%d", n)
		}
	}
	require.Equal(t, accounts.EndedKept, ended)

	// The refund settled, it is dropped in its turn once more have ended.
	settled := fold(append(events, accounts.RefundIssued{CheckoutID: "co_1", Amount: 100, RefundID: "re_1"},
		startedAt(500, now.Add(time.Hour)), accounts.CheckoutEnded{CheckoutID: "co_500", Status: accounts.CheckoutExpired})...)
	_, ok = settled.Checkout("co_1")
	require.False(t, ok, "settled and no longer among the latest: dropped")

	// Told again about a dropped checkout, the account records nothing.
	again, err := accounts.SettleCheckout{CheckoutID: "co_3", SessionID: "cs_co_3", Status: accounts.CheckoutExpired}.Decide(settled)
	require.NoError(t, err)
	require.Empty(t, again)

	b, err := accounts.Type().Snapshot.Encode(settled)
	require.NoError(t, err)
	back, err := accounts.Type().Snapshot.Decode(b)
	require.NoError(t, err)
	require.Equal(t, settled.OpenCheckouts(), back.OpenCheckouts())
	next := accounts.CheckoutEnded{CheckoutID: open[0].ID, Status: accounts.CheckoutExpired}
	want, err := accounts.Type().Snapshot.Encode(accounts.Apply(accounts.Clone(settled), next))
	require.NoError(t, err)
	got, err := accounts.Type().Snapshot.Encode(accounts.Apply(back, next))
	require.NoError(t, err)
	require.JSONEq(t, string(want), string(got), "the snapshot keeps the order the checkouts ended in")
}

// A refund is recorded from what the provider says became of it: given back once when it
// succeeded, never while it is pending, and once as failed, leaving the credit, when it failed
// or was cancelled.
func TestSettleRefund(t *testing.T) {
	t.Parallel()
	due := []accounts.Event{fined300, started, started2, accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1", PaymentID: "pi_1"},
		accounts.PaymentReceived{Amount: 300, CheckoutID: "co_2", PaymentID: "pi_2"}, accounts.RefundDue{CheckoutID: "co_2", Amount: 300, PaymentID: "pi_2"}}
	settle := func(status string) accounts.SettleRefund {
		return accounts.SettleRefund{CheckoutID: "co_2", RefundID: "re_1", Amount: 300, Status: status}
	}
	failed := accounts.RefundFailed{CheckoutID: "co_2", RefundID: "re_1", Status: "failed"}
	run(t, []decideCase{
		{name: "succeeded", given: due, when: settle("succeeded"),
			then: []accounts.Event{accounts.RefundIssued{CheckoutID: "co_2", Amount: 300, RefundID: "re_1"}}, balance: bal(0)},
		{name: "pending", given: due, when: settle("pending"), balance: bal(-300)},
		{name: "requires action", given: due, when: settle("requires_action"), balance: bal(-300)},
		{name: "failed", given: due, when: settle("failed"), then: []accounts.Event{failed}, balance: bal(-300)},
		{name: "canceled", given: due, when: settle("canceled"),
			then: []accounts.Event{accounts.RefundFailed{CheckoutID: "co_2", RefundID: "re_1", Status: "canceled"}}, balance: bal(-300)},
		{name: "failed again", given: append(due[:len(due):len(due)], failed), when: settle("failed"), balance: bal(-300)},
		{name: "nothing due", given: due[:5], when: settle("succeeded"), balance: bal(-300)},
		{name: "no such checkout", given: due, when: accounts.SettleRefund{CheckoutID: "co_7", RefundID: "re_1", Amount: 300, Status: "succeeded"},
			balance: bal(-300)},
	})
}

// Money that arrives while the member has credit (an earlier refund still to give back) is due
// back only as far as it was not owed: never more than the payment brought.
func TestAPaymentOnCreditIsDueBackNoMoreThanItPaid(t *testing.T) {
	t.Parallel()
	third := accounts.CheckoutStarted{CheckoutID: "co_3", Amount: 300, Currency: "eur", SessionID: "cs_3", URL: "https://pay.example/cs_3"}
	given := []accounts.Event{fined300, started, started2, third,
		accounts.PaymentReceived{Amount: 300, CheckoutID: "co_1", PaymentID: "pi_1"},
		accounts.PaymentReceived{Amount: 300, CheckoutID: "co_2", PaymentID: "pi_2"}, accounts.RefundDue{CheckoutID: "co_2", Amount: 300, PaymentID: "pi_2"}}
	run(t, []decideCase{{name: "a third payment while a refund is pending", given: given,
		when: accounts.SettleCheckout{CheckoutID: "co_3", SessionID: "cs_3", Status: accounts.CheckoutPaid, Amount: 300, Currency: "eur", PaymentID: "pi_3"},
		then: []accounts.Event{accounts.PaymentReceived{Amount: 300, CheckoutID: "co_3", PaymentID: "pi_3"},
			accounts.RefundDue{CheckoutID: "co_3", Amount: 300, PaymentID: "pi_3"}}, balance: bal(-600)}})
}
