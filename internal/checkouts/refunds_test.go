package checkouts_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/devpay"
)

// Money paid for nothing is given back once, under the checkout's key, and recorded only once
// the provider says it succeeded.
func TestAnExcessIsRefundedOnce(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co := f.overpaid("m-tom")
	_, err := f.handle(f.event("m-tom", "RefundDue"))
	require.NoError(t, err)
	require.Len(t, f.pay.Refunds(), 1)
	require.EqualValues(t, 300, f.pay.Refunds()[0].Amount)
	require.Equal(t, 1, f.count("m-tom", "RefundIssued"))
	require.Zero(t, f.balance("m-tom"))
	require.EqualValues(t, 300, f.checkout("m-tom", co.ID).Refunded)
}

// A refund recorded is never asked for again: a replay of the saga, a day later when the
// provider has forgotten the refund's idempotency key, asks the provider nothing and gives
// back nothing.
func TestARefundRecordedIsNeverAskedForAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.overpaid("m-tom")
	due := f.event("m-tom", "RefundDue")
	_, err := f.handle(due)
	require.NoError(t, err)
	finds, refunds := f.provider.finds.Load(), f.provider.refunds.Load()

	f.clock.Advance(25 * time.Hour)
	_, err = f.handle(due)
	require.NoError(t, err)
	require.Equal(t, finds, f.provider.finds.Load(), "the provider's refunds not even listed")
	require.Equal(t, refunds, f.provider.refunds.Load(), "no refund asked for")
	require.Len(t, f.pay.Refunds(), 1)
	require.Equal(t, 1, f.count("m-tom", "RefundIssued"))
}

// A refund the provider made whose record was lost (the process died in between) is found
// among the payment's refunds when the saga tries again, after the provider has forgotten the
// key: it is recorded, and nothing is given back twice.
func TestARefundMadeBeforeACrashIsFoundNotMadeAgain(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.overpaid("m-tom")
	due := f.event("m-tom", "RefundDue")
	f.accounts.failures.Store(1)
	_, err := f.handle(due)
	require.Error(t, err, "the record lost")
	require.Len(t, f.pay.Refunds(), 1, "the provider made it")
	require.Zero(t, f.count("m-tom", "RefundIssued"))

	f.clock.Advance(25 * time.Hour)
	_, err = f.handle(due)
	require.NoError(t, err)
	require.Len(t, f.pay.Refunds(), 1, "found, not made again")
	require.Equal(t, 1, f.count("m-tom", "RefundIssued"))
	require.Zero(t, f.balance("m-tom"))
}

// Two checkouts of one member paid for nothing are each given back: the refunds' keys are the
// checkouts', not the member's.
func TestEachCheckoutIsRefundedUnderItsOwnKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	_, err := f.accounts.ChargeFine(f.ctx, "m-tom", accounts.ChargeFine{Amount: 300, Reason: "late"}, aggregate.Origin{})
	require.NoError(t, err)
	tabs := []accounts.Checkout{f.start("m-tom", "tab-1", 300), f.start("m-tom", "tab-2", 300), f.start("m-tom", "tab-3", 300)}
	for _, co := range tabs {
		f.paid(co)
		if co.ID != tabs[0].ID {
			_, err = f.handle(f.event("m-tom", "RefundDue"))
			require.NoError(t, err)
		}
	}
	require.Len(t, f.pay.Refunds(), 2)
	require.Equal(t, 2, f.count("m-tom", "RefundIssued"))
	require.Zero(t, f.balance("m-tom"))
}

// A pending refund is not money given back: the member keeps the credit until the provider,
// asked again later (each wait twice the last), says it succeeded.
func TestAPendingRefundIsRecordedOnlyWhenItSucceeds(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co := f.overpaid("m-tom")
	f.pay.PendRefunds(1)
	timers, err := f.handle(f.event("m-tom", "RefundDue"))
	require.NoError(t, err)
	require.Zero(t, f.count("m-tom", "RefundIssued"))
	require.EqualValues(t, -300, f.balance("m-tom"), "the credit stays while the refund is pending")
	require.Len(t, timers, 1)
	require.Equal(t, "refund:"+co.ID, timers[0].Key)
	requireAt(t, f.clock.Now().Add(time.Minute), timers[0].At)

	f.clock.Advance(time.Minute)
	again, err := f.fire(timers[0])
	require.NoError(t, err)
	require.Len(t, again, 1, "still pending: asked again")
	requireAt(t, f.clock.Now().Add(2*time.Minute), again[0].At, "twice as long")

	refund := f.pay.Refunds()[0]
	_, err = f.pay.SettleRefund(refund.ID, devpay.RefundSucceeded)
	require.NoError(t, err)
	_, err = f.fire(again[0])
	require.NoError(t, err)
	require.Equal(t, 1, f.count("m-tom", "RefundIssued"))
	require.Zero(t, f.balance("m-tom"))
	require.Len(t, f.pay.Refunds(), 1)

	cancel, err := f.handle(f.event("m-tom", "RefundIssued"))
	require.NoError(t, err)
	require.Equal(t, "refund:"+co.ID, cancel[0].Key)
	require.True(t, cancel[0].Cancel, "recorded: the timer goes")
}

// A refund that fails leaves the credit on the account, is recorded as failed once, and parks
// with a reason that says what to do; it is not asked for again.
func TestAFailedRefundLeavesTheCreditAndParks(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co := f.overpaid("m-tom")
	f.pay.PendRefunds(1)
	timers, err := f.handle(f.event("m-tom", "RefundDue"))
	require.NoError(t, err)
	refund := f.pay.Refunds()[0]
	_, err = f.pay.SettleRefund(refund.ID, devpay.RefundFailed)
	require.NoError(t, err)
	_, err = f.fire(timers[0])
	require.NoError(t, err)
	require.Equal(t, 1, f.count("m-tom", "RefundFailed"))
	require.Zero(t, f.count("m-tom", "RefundIssued"))
	require.EqualValues(t, -300, f.balance("m-tom"), "the member keeps the credit")
	require.Equal(t, "failed", f.checkout("m-tom", co.ID).RefundFailed)

	_, err = f.handle(f.event("m-tom", "RefundFailed"))
	require.True(t, isPark(err), "parked: %v", err)
	require.True(t, strings.Contains(err.Error(), refund.ID) && strings.Contains(err.Error(), "keeps the credit"), "%v", err)

	refunds := f.provider.refunds.Load()
	_, err = f.handle(f.event("m-tom", "RefundDue"))
	require.NoError(t, err)
	require.Equal(t, refunds, f.provider.refunds.Load(), "not asked for again")
	require.Len(t, f.pay.Refunds(), 1)
}
