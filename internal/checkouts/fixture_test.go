package checkouts_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/checkouts"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/payments"
	"library/internal/payments/stripepay"
	"library/internal/processor"
	"library/internal/testkit/paytest"
	"library/internal/testkit/testclock"
)

// counted is the real provider, with its calls counted.
type counted struct {
	payments.Provider
	finds, refunds, sessions, expires atomic.Int32
}

func (c *counted) FindRefund(ctx context.Context, paymentID, key string) (payments.Refund, bool, error) {
	c.finds.Add(1)
	return c.Provider.FindRefund(ctx, paymentID, key)
}

func (c *counted) Refund(ctx context.Context, r payments.RefundRequest) (payments.Refund, error) {
	c.refunds.Add(1)
	return c.Provider.Refund(ctx, r)
}

func (c *counted) Session(ctx context.Context, id string) (payments.Session, error) {
	c.sessions.Add(1)
	return c.Provider.Session(ctx, id)
}

func (c *counted) ExpireSession(ctx context.Context, id string) (payments.Session, error) {
	c.expires.Add(1)
	return c.Provider.ExpireSession(ctx, id)
}

// crashing is the accounts service, but the next failures refunds recorded fail as if the
// process had died after the provider answered.
type crashing struct {
	*accounts.Service
	failures atomic.Int32
}

func (c *crashing) SettleRefund(ctx context.Context, memberID string, s accounts.SettleRefund, o aggregate.Origin) (aggregate.Result, error) {
	if c.failures.Add(-1) >= 0 {
		return aggregate.Result{}, errs.E(errs.Unavailable, "the process died before the refund was recorded")
	}
	return c.Service.SettleRefund(ctx, memberID, s, o)
}

// fixture is a saga on a log in memory, with a devpay on the test's clock.
type fixture struct {
	t        *testing.T
	ctx      context.Context
	clock    *testclock.Clock
	pay      *paytest.Provider
	provider *counted
	log      *eventstore.Memory
	accounts *crashing
	saga     checkouts.Saga
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	c := testclock.New(time.Now().Truncate(time.Second))
	pay := paytest.Start(t, paytest.Options{Now: c.Now})
	p, err := stripepay.New(stripepay.Config{SecretKey: pay.SecretKey(), WebhookSecret: pay.WebhookSecret(), APIURL: pay.URL(), Now: c.Now})
	require.NoError(t, err)
	log := eventstore.NewMemory(nil)
	f := &fixture{t: t, ctx: context.Background(), clock: c, pay: pay, provider: &counted{Provider: p}, log: log,
		accounts: &crashing{Service: accounts.NewService(log, aggregate.Options{})}}
	f.saga = checkouts.Saga{Accounts: f.accounts, Provider: f.provider, ReconcileAfter: time.Minute, RefundRecheck: time.Minute, Now: c.Now}
	return f
}

// start starts a checkout of amount for member under key, its page at the provider taking
// payment for an hour, and returns the checkout.
func (f *fixture) start(member, key string, amount int64) accounts.Checkout {
	f.t.Helper()
	id := payments.CheckoutID(member, key)
	_, err := f.accounts.StartCheckout(f.ctx, member, id, accounts.StartCheckout{Amount: amount}, aggregate.Origin{CommandID: key}, f.clock.Now(),
		func(ctx context.Context, amount int64) (accounts.CheckoutStarted, error) {
			s, err := f.provider.StartCheckout(ctx, payments.CheckoutRequest{Key: payments.SessionKey(id), CheckoutID: id, MemberID: member,
				Amount: amount, Currency: "eur", Description: "Library fines", SuccessURL: "http://127.0.0.1/back",
				CancelURL: "http://127.0.0.1/back", ExpiresAt: f.clock.Now().Add(time.Hour)})
			return accounts.CheckoutStarted{Currency: s.Currency, SessionID: s.ID, URL: s.URL, ExpiresAt: s.ExpiresAt}, err
		})
	require.NoError(f.t, err)
	return f.checkout(member, id)
}

// paid pays a checkout at the provider and records it, as the webhook would.
func (f *fixture) paid(c accounts.Checkout) {
	f.t.Helper()
	_, err := f.pay.Pay(c.SessionID)
	require.NoError(f.t, err)
	require.NoError(f.t, checkouts.Confirm{Accounts: f.accounts, Provider: f.provider}.Checkout(f.ctx, c.SessionID, aggregate.Origin{}))
}

func (f *fixture) checkout(member, id string) accounts.Checkout {
	f.t.Helper()
	a, _, err := f.accounts.Get(f.ctx, member)
	require.NoError(f.t, err)
	c, ok := a.Checkout(id)
	require.True(f.t, ok, "no checkout %s", id)
	return c
}

func (f *fixture) balance(member string) int64 {
	f.t.Helper()
	a, _, err := f.accounts.Get(f.ctx, member)
	require.NoError(f.t, err)
	return a.Balance
}

// event is the last event of a type on a member's account.
func (f *fixture) event(member, typ string) eventstore.Event {
	f.t.Helper()
	stream, err := f.log.ReadStream(f.ctx, "account-"+member, 0)
	require.NoError(f.t, err)
	for i := len(stream) - 1; i >= 0; i-- {
		if stream[i].Type == typ {
			return stream[i]
		}
	}
	f.t.Fatalf("no %s on %s's account", typ, member)
	return eventstore.Event{}
}

func (f *fixture) count(member, typ string) int {
	f.t.Helper()
	stream, err := f.log.ReadStream(f.ctx, "account-"+member, 0)
	require.NoError(f.t, err)
	n := 0
	for _, e := range stream {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// handle hands an event to the saga as the engine does, and returns the timers it changed.
func (f *fixture) handle(e eventstore.Event) ([]processor.TimerChange, error) {
	ctx, timers := processor.RecordTimers(f.ctx)
	err := f.saga.Handle(ctx, e)
	return timers.Changes(), err
}

// fire fires a timer the saga scheduled, as the engine does, and returns the timers it changed.
func (f *fixture) fire(change processor.TimerChange) ([]processor.TimerChange, error) {
	f.t.Helper()
	require.False(f.t, change.Cancel, "a timer scheduled, not cancelled")
	ctx, timers := processor.RecordTimers(f.ctx)
	err := f.saga.Fire(ctx, processor.Timer{Key: change.Key, At: change.At, Data: change.Data})
	return timers.Changes(), err
}

// overpaid is a member who paid a fine of 300 twice, in two tabs: 300 is due back.
func (f *fixture) overpaid(member string) accounts.Checkout {
	f.t.Helper()
	_, err := f.accounts.ChargeFine(f.ctx, member, accounts.ChargeFine{Amount: 300, Reason: "late"}, aggregate.Origin{})
	require.NoError(f.t, err)
	one, two := f.start(member, "tab-1", 300), f.start(member, "tab-2", 300)
	f.paid(one)
	f.paid(two)
	second := f.checkout(member, two.ID)
	require.EqualValues(f.t, 300, second.RefundDue)
	return second
}

func isPark(err error) bool {
	var park *processor.ParkError
	return errors.As(err, &park)
}

// requireAt asserts that a timer is due at want.
func requireAt(t *testing.T, want, got time.Time, msg ...any) {
	t.Helper()
	require.True(t, want.Equal(got), append([]any{"due at %v, want %v", got, want}, msg...)...)
}
