package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/devpay"
	"library/internal/testkit/apitest"
	"library/internal/testkit/paytest"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/testclock"
)

// What an attacker tried against two replicas and the development provider, each now costing
// the library nothing.

// forgedCompleted is a checkout.session.completed event made by hand for a session, claiming it
// paid, as someone who knows the webhook secret would make it.
func forgedCompleted(t *testing.T, sessionID, checkoutID, member string, amount int64) []byte {
	t.Helper()
	body, err := json.Marshal(map[string]any{
		"id": "evt_forged", "object": "event", "api_version": "2026-02-25.clover", "created": time.Now().Unix(),
		"type": "checkout.session.completed", "livemode": false, "pending_webhooks": 1,
		"data": map[string]any{"object": map[string]any{
			"id": sessionID, "object": "checkout.session", "status": "complete", "payment_status": "paid",
			"amount_total": amount, "currency": "eur", "payment_intent": "pi_forged", "client_reference_id": member,
			"metadata": map[string]string{"checkout_id": checkoutID, "member_id": member},
		}},
	})
	require.NoError(t, err)
	return body
}

// An event signed with the webhook secret, for a member's open session, claiming it paid:
// both replicas acknowledge it, and record nothing, since the provider, asked, has the session
// open and unpaid. The checkout stays open, and its reconciliation stands: once the page
// expires, the provider is asked, and the checkout ends as expired.
func TestAForgedWebhookPaysNothing(t *testing.T) {
	t.Parallel()
	pay, replicas := payingReplicas(t, 2, func(cfg *app.Config) {
		// Long enough that the forged event arrives while the page is open on a loaded machine.
		cfg.Payments.ExpiresAfter, cfg.Payments.ReconcileAfter = 15*time.Second, 500*time.Millisecond
	})
	a, b := replicas[0], replicas[1]
	fine(t, a, "m-alice", 300, "Dune, 12 days late")
	c, _ := startCheckout(t, a, "m-alice", 300, "pay-alice")
	session := sessionOf(t, pay, c)
	pay.Hold("") // the provider's own notifications, out of the way

	forged := forgedCompleted(t, session, c.CheckoutID, "m-alice", 300)
	for _, r := range replicas {
		answer := r.Send(t, http.MethodPost, "/webhooks/stripe", forged, "Content-Type", "application/json",
			"Stripe-Signature", devpay.Sign(forged, pay.WebhookSecret(), time.Now()))
		require.Equal(t, http.StatusOK, answer.Status, "acknowledged, as nothing is to be recorded: %s", answer.Body)
	}
	assert.EqualValues(t, 300, getAccount(t, b, "m-alice").Balance, "still owed")
	assert.Equal(t, "open", getCheckout(t, b, "m-alice", c.CheckoutID).Status)
	assert.Zero(t, countEvents(t, a, "m-alice", "PaymentReceived"))
	s, _ := pay.Session(session)
	assert.Equal(t, devpay.StatusOpen, s.Status, "the provider never saw a payment")

	eventually(t, 45*time.Second, func() bool { return getCheckout(t, b, "m-alice", c.CheckoutID).Status == "expired" },
		"the checkout reconciled once its page expired")
	assert.EqualValues(t, 300, getAccount(t, a, "m-alice").Balance)
}

// A refund given back, then the checkouts saga replayed a day later, when the provider has
// forgotten the refund's idempotency key: the replay gives back nothing, and the account shows
// the one refund the provider made.
func TestAReplayAfterTheKeyWindowRefundsNothing(t *testing.T) {
	t.Parallel()
	clock := testclock.New(time.Now())
	pay := paytest.Start(t, paytest.Options{Now: clock.Now})
	cfg := apitest.WithPayments(fastBackground(app.Config{DatabaseURL: pgtest.NewDatabase(t), AdminToken: adminToken}), pay, "http://127.0.0.1:8080")
	var replicas []*api
	for i := range 2 {
		cfg.ReplicaID = fmt.Sprintf("r%d", i)
		replicas = append(replicas, &api{Base: startService(t, cfg), Store: "postgres"})
	}
	a, b := replicas[0], replicas[1]
	require.NoError(t, pay.SetWebhookURLs([]string{a.Base + "/webhooks/stripe", b.Base + "/webhooks/stripe"}))
	fine(t, a, "m-tom", 100, "late")
	first, _ := startCheckout(t, a, "m-tom", 100, "tab-1")
	second, _ := startCheckout(t, b, "m-tom", 100, "tab-2")
	for _, c := range []checkout{first, second} {
		_, err := pay.Pay(sessionOf(t, pay, c))
		require.NoError(t, err)
	}
	eventually(t, 10*time.Second, func() bool { return getCheckout(t, a, "m-tom", second.CheckoutID).Refunded == 100 }, "refunded")
	require.Len(t, pay.Refunds(), 1)

	clock.Advance(25 * time.Hour)
	before := processorStatus(t, a, "checkouts").Generation
	require.Equal(t, http.StatusAccepted, admin(t, a, "checkouts", "replay").Status)
	eventually(t, 20*time.Second, func() bool {
		for _, r := range replicas {
			s := processorStatus(t, r, "checkouts")
			if s.Generation > before && s.Lag == 0 && s.HoldsLease {
				return true
			}
		}
		return false
	}, "the replay to finish")
	assert.Len(t, pay.Refunds(), 1, "one refund at the provider")
	var given int64
	for _, r := range pay.Refunds() {
		given += r.Amount
	}
	assert.EqualValues(t, 100, given, "100 given back for 100 due")
	assert.Equal(t, 1, countEvents(t, a, "m-tom", "RefundIssued"))
	assert.Zero(t, getAccount(t, a, "m-tom").Balance)
}

// A member with fines starts checkouts with new keys, one after another on two replicas and then
// many at once: the fourth while three are open is refused, naming the three, and the account
// never holds more than three open; one more may start once one has ended.
func TestAFourthOpenCheckoutIsRefused(t *testing.T) {
	t.Parallel()
	pay, replicas := payingReplicas(t, 2, nil)
	a, b := replicas[0], replicas[1]
	fine(t, a, "m-max", 500, "lost book")
	var open []checkout
	for i := range 3 {
		c, _ := startCheckout(t, replicas[i%2], "m-max", 500, fmt.Sprintf("key-%d", i))
		open = append(open, c)
	}
	r := b.Call(t, http.MethodPost, "/accounts/m-max/checkouts", obj{"amount": 500}, "Idempotency-Key", "key-3")
	p := apitest.RequireProblemWith(t, r, http.StatusConflict, "TooManyCheckouts", "openCheckouts")
	var named struct {
		OpenCheckouts []struct {
			CheckoutID string `json:"checkoutId"`
			URL        string `json:"url"`
			Amount     int64  `json:"amount"`
		} `json:"openCheckouts"`
	}
	require.NoError(t, json.Unmarshal(r.Body, &named))
	require.Len(t, named.OpenCheckouts, 3, "the open ones, named: %s", r.Body)
	for _, n := range named.OpenCheckouts {
		assert.Contains(t, p.Detail, n.CheckoutID)
		assert.True(t, strings.HasPrefix(n.URL, pay.URL()), "a page to go back to: %s", n.URL)
	}
	require.Len(t, pay.Sessions(), 3, "the provider was not asked for a fourth page")

	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() {
			replicas[i%2].Call(t, http.MethodPost, "/accounts/m-max/checkouts", obj{"amount": 500}, "Idempotency-Key", fmt.Sprintf("burst-%d", i))
		})
	}
	wg.Wait()
	assert.Equal(t, 3, countEvents(t, a, "m-max", "CheckoutStarted"), "still three")

	_, err := pay.Expire(sessionOf(t, pay, open[0]))
	require.NoError(t, err)
	eventually(t, 10*time.Second, func() bool { return getCheckout(t, a, "m-max", open[0].CheckoutID).Status == "expired" }, "one ended")
	startCheckout(t, b, "m-max", 500, "key-4")
}

// While the provider can't be asked, a webhook is answered 503, so that the provider delivers
// it again later, and records nothing; delivered again once the provider answers, it records
// the payment.
func TestAWebhookIsRefusedWhileTheProviderCantBeAsked(t *testing.T) {
	t.Parallel()
	pay := paytest.Start(t)
	var down atomic.Bool
	target, err := url.Parse(pay.URL())
	require.NoError(t, err)
	proxy := httputil.NewSingleHostReverseProxy(target)
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			http.Error(w, "bad gateway", http.StatusBadGateway)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)
	cfg := apitest.WithPayments(fastBackground(app.Config{DatabaseURL: pgtest.NewDatabase(t)}), pay, "http://127.0.0.1:8080")
	cfg.Payments.StripeAPIURL = front.URL
	a := &api{Base: startService(t, cfg), Store: "postgres"}
	fine(t, a, "m-ned", 300, "late")
	c, _ := startCheckout(t, a, "m-ned", 300, "pay-ned")
	pay.Hold("")
	_, err = pay.Pay(sessionOf(t, pay, c))
	require.NoError(t, err)
	completed := heldPayload(t, pay, sessionOf(t, pay, c))
	send := func() response {
		return a.Send(t, http.MethodPost, "/webhooks/stripe", completed, "Content-Type", "application/json",
			"Stripe-Signature", devpay.Sign(completed, pay.WebhookSecret(), time.Now()))
	}

	down.Store(true)
	requireProblem(t, send(), http.StatusServiceUnavailable, "Unavailable")
	assert.Zero(t, countEvents(t, a, "m-ned", "PaymentReceived"), "nothing recorded")
	assert.Equal(t, "open", getCheckout(t, a, "m-ned", c.CheckoutID).Status)

	down.Store(false)
	require.Equal(t, http.StatusOK, send().Status)
	assert.Equal(t, "paid", getCheckout(t, a, "m-ned", c.CheckoutID).Status)
	assert.Equal(t, 1, countEvents(t, a, "m-ned", "PaymentReceived"))
}
