package checkouts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/checkouts"
	"library/internal/errs"
)

// fined charges member 300 and starts a checkout for it, and returns the checkout and the timer
// its CheckoutStarted scheduled.
func (f *fixture) fined(member string) (accounts.Checkout, []byte, time.Time, string) {
	f.t.Helper()
	_, err := f.accounts.ChargeFine(f.ctx, member, accounts.ChargeFine{Amount: 300, Reason: "late"}, aggregate.Origin{})
	require.NoError(f.t, err)
	co := f.start(member, "pay-1", 300)
	timers, err := f.handle(f.event(member, "CheckoutStarted"))
	require.NoError(f.t, err)
	require.Len(f.t, timers, 1)
	return co, timers[0].Data, timers[0].At, timers[0].Key
}

// A checkout is asked about once, when its page has expired and a grace after: a page still
// open then is ended at the provider, and recorded as expired.
func TestACheckoutIsAskedAboutOnceItsPageHasExpired(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co, _, at, _ := f.fined("m-lou")
	requireAt(t, co.ExpiresAt.Add(time.Minute), at, "at the page's expiry and a grace")

	timers, _ := f.handle(f.event("m-lou", "CheckoutStarted"))
	f.pay.Hold("") // the provider's own expiry and its webhook, not seen
	f.clock.Advance(time.Hour + time.Minute)
	again, err := f.fire(timers[0])
	require.NoError(t, err)
	require.Empty(t, again, "nothing more to ask")
	require.Equal(t, accounts.CheckoutExpired, f.checkout("m-lou", co.ID).Status)
	s, ok := f.pay.Session(co.SessionID)
	require.True(t, ok)
	require.Equal(t, "expired", s.Status, "ended at the provider, so that it can't be paid now")
	require.EqualValues(t, 300, f.balance("m-lou"))
	require.EqualValues(t, 1, f.provider.sessions.Load(), "asked once")
}

// A page still open before its expiry (a checkout from before pages had an expiry, whose timer
// comes early) is asked about again when it expires, not ended.
func TestAnOpenPageIsAskedAboutAgainWhenItExpires(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co, _, _, _ := f.fined("m-lou")
	timers, _ := f.handle(f.event("m-lou", "CheckoutStarted"))
	again, err := f.fire(timers[0])
	require.NoError(t, err)
	require.Len(t, again, 1)
	requireAt(t, co.ExpiresAt.Add(time.Minute), again[0].At)
	require.Zero(t, f.provider.expires.Load(), "not ended early")
	require.Equal(t, accounts.CheckoutOpen, f.checkout("m-lou", co.ID).Status)
}

// A payment made but whose webhook was lost is recorded when the timer asks.
func TestALostPaymentIsRecordedWhenAsked(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co, _, _, _ := f.fined("m-lou")
	timers, _ := f.handle(f.event("m-lou", "CheckoutStarted"))
	_, err := f.pay.Pay(co.SessionID)
	require.NoError(t, err)
	f.clock.Advance(time.Hour + time.Minute)
	_, err = f.fire(timers[0])
	require.NoError(t, err)
	require.Equal(t, accounts.CheckoutPaid, f.checkout("m-lou", co.ID).Status)
	require.Zero(t, f.balance("m-lou"))
	require.Zero(t, f.provider.expires.Load(), "a paid page is not ended")
}

// A slow payment (complete at the page, its money on its way) is neither paid nor ended: it is
// asked about again, each wait twice the last, until its money arrives.
func TestASlowPaymentIsAskedAboutUntilItArrives(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co, _, _, _ := f.fined("m-lou")
	timers, _ := f.handle(f.event("m-lou", "CheckoutStarted"))
	_, err := f.pay.PayLater(co.SessionID)
	require.NoError(t, err)
	require.NoError(t, checkouts.Confirm{Accounts: f.accounts, Provider: f.provider}.Checkout(f.ctx, co.SessionID, aggregate.Origin{}))
	require.Equal(t, accounts.CheckoutOpen, f.checkout("m-lou", co.ID).Status, "not paid before the money arrives")
	require.EqualValues(t, 300, f.balance("m-lou"))

	f.clock.Advance(time.Hour + time.Minute)
	next := timers[0]
	for i, wait := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute} {
		again, err := f.fire(next)
		require.NoError(t, err)
		require.Len(t, again, 1, "ask %d: asked again", i)
		requireAt(t, f.clock.Now().Add(wait), again[0].At, "ask %d", i)
		next = again[0]
		f.clock.Advance(wait)
	}
	_, err = f.pay.FinishPayment(co.SessionID, true)
	require.NoError(t, err)
	_, err = f.fire(next)
	require.NoError(t, err)
	require.Equal(t, accounts.CheckoutPaid, f.checkout("m-lou", co.ID).Status)
	require.Zero(t, f.balance("m-lou"))
}

// A slow payment that fails ends the checkout as failed, and leaves what is owed.
func TestASlowPaymentThatFailsEndsTheCheckout(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co, _, _, _ := f.fined("m-lou")
	_, err := f.pay.PayLater(co.SessionID)
	require.NoError(t, err)
	_, err = f.pay.FinishPayment(co.SessionID, false)
	require.NoError(t, err)
	require.NoError(t, checkouts.Confirm{Accounts: f.accounts, Provider: f.provider}.Checkout(f.ctx, co.SessionID, aggregate.Origin{}))
	require.Equal(t, accounts.CheckoutFailed, f.checkout("m-lou", co.ID).Status)
	require.EqualValues(t, 300, f.balance("m-lou"))
}

// A replay of the saga, long after, schedules nothing for a checkout that has ended.
func TestAReplayWatchesOnlyOpenCheckouts(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co, _, _, _ := f.fined("m-lou")
	f.paid(co)
	timers, err := f.handle(f.event("m-lou", "CheckoutStarted"))
	require.NoError(t, err)
	require.Empty(t, timers)
}

// An account event written by a newer release than this one pauses the saga, to be read by a
// replica of that release: nothing is parked, nothing scheduled, nobody asked.
func TestAnEventOfANewerReleasePausesTheSaga(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	co, _, _, _ := f.fined("m-new")
	newer := f.event("m-new", "CheckoutStarted")
	newer.Metadata.Schema = 2
	timers, err := f.handle(newer)
	require.True(t, errs.Is(err, errs.Unavailable), "%v", err)
	require.False(t, isPark(err), "nothing parked")
	require.Empty(t, timers, "nothing scheduled")
	require.Equal(t, accounts.CheckoutOpen, f.checkout("m-new", co.ID).Status)
}
