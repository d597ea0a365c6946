package app_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/paytest"
	"library/internal/testkit/pgtest"
)

// checkout is GET /accounts/{memberId}/checkouts/{checkoutId}, and the 201 of a new one.
type checkout struct {
	CheckoutID string `json:"checkoutId"`
	URL        string `json:"url"`
	Amount     int64  `json:"amount"`
	Status     string `json:"status"`
	RefundDue  int64  `json:"refundDue"`
	Refunded   int64  `json:"refunded"`
	ExpiresAt  string `json:"expiresAt"`
}

// payingReplicas starts a payment provider and n replicas that take fines through it, on one
// database, the provider's webhooks going to every replica.
func payingReplicas(t *testing.T, n int, tune func(*app.Config)) (*paytest.Provider, []*api) {
	t.Helper()
	pay := paytest.Start(t)
	cfg := apitest.WithPayments(fastBackground(app.Config{DatabaseURL: pgtest.NewDatabase(t)}), pay, "http://127.0.0.1:8080")
	if tune != nil {
		tune(&cfg)
	}
	var replicas []*api
	var hooks []string
	for i := range n {
		cfg.ReplicaID = fmt.Sprintf("r%d", i)
		replicas = append(replicas, &api{Base: startService(t, cfg), Store: "postgres"})
		hooks = append(hooks, replicas[i].Base+"/webhooks/stripe")
	}
	require.NoError(t, pay.SetWebhookURLs(hooks))
	return pay, replicas
}

func startCheckout(t *testing.T, a *api, member string, amount int64, key string) (checkout, response) {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/accounts/"+member+"/checkouts", obj{"amount": amount}, "Idempotency-Key", key)
	require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
	var c checkout
	require.NoError(t, json.Unmarshal(r.Body, &c))
	return c, r
}

func getCheckout(t *testing.T, a *api, member, id string) checkout {
	t.Helper()
	var c checkout
	requireJSON(t, a.Get(t, "/accounts/"+member+"/checkouts/"+id), &c)
	return c
}

// sessionOf is the provider's session of a checkout's page.
func sessionOf(t *testing.T, pay *paytest.Provider, c checkout) string {
	t.Helper()
	for _, s := range pay.Sessions() {
		if s.URL == c.URL {
			return s.ID
		}
	}
	t.Fatalf("no session at %s", c.URL)
	return ""
}

// countEvents counts a type among an account's events.
func countEvents(t *testing.T, a *api, member, typ string) int {
	t.Helper()
	var h struct {
		MemberID string `json:"memberId"`
		Entries  []struct {
			Type       string          `json:"type"`
			Version    int64           `json:"version"`
			Position   int64           `json:"position"`
			RecordedAt string          `json:"recordedAt"`
			Data       json.RawMessage `json:"data"`
			By         json.RawMessage `json:"by"`
		} `json:"entries"`
		Next *int64 `json:"next"`
	}
	requireJSON(t, a.Get(t, "/accounts/"+member+"/history?limit=100"), &h)
	n := 0
	for _, e := range h.Entries {
		if e.Type == typ {
			n++
		}
	}
	return n
}

// A double click on Pay, its two requests on two replicas at once with one key, makes one
// checkout and one page at the provider, and both get the first answer. Paid, the provider's
// webhook comes three times over to each replica at once: one PaymentReceived.
func TestOneClickOnePageOnePayment(t *testing.T) {
	t.Parallel()
	pay, replicas := payingReplicas(t, 2, nil)
	a, b := replicas[0], replicas[1]
	fine(t, a, "m-pia", 300, "Dune, 12 days late")

	answers := make([]response, 2)
	var wg sync.WaitGroup
	for i, r := range replicas {
		wg.Go(func() {
			answers[i] = r.Call(t, http.MethodPost, "/accounts/m-pia/checkouts", obj{"amount": 300}, "Idempotency-Key", "click-1")
		})
	}
	wg.Wait()
	for _, r := range answers {
		require.Equal(t, http.StatusCreated, r.Status, "body: %s", r.Body)
		assert.Equal(t, string(answers[0].Body), string(r.Body), "the same answer, byte for byte")
	}
	assert.NotEqual(t, answers[0].Header.Get("Idempotent-Replayed"), answers[1].Header.Get("Idempotent-Replayed"), "one first, one replayed")
	require.Len(t, pay.Sessions(), 1, "one page at the provider")
	var c checkout
	require.NoError(t, json.Unmarshal(answers[0].Body, &c))
	assert.Equal(t, checkout{CheckoutID: c.CheckoutID, URL: c.URL, Amount: 300, Status: "open", ExpiresAt: c.ExpiresAt}, c)
	assert.NotEmpty(t, c.ExpiresAt, "the page's expiry")

	pay.SetCopies(3, true)
	_, err := pay.Pay(sessionOf(t, pay, c))
	require.NoError(t, err)
	pay.WaitDelivered("checkout.session.completed", 6)
	eventually(t, 10*time.Second, func() bool { return getCheckout(t, b, "m-pia", c.CheckoutID).Status == "paid" }, "the checkout paid")
	assert.Equal(t, 1, countEvents(t, a, "m-pia", "PaymentReceived"), "paid once, told six times")
	assert.Zero(t, getAccount(t, b, "m-pia").Balance)
	assert.Empty(t, getCheckout(t, a, "m-pia", c.CheckoutID).URL, "no page to pay at once paid")
}

// Two tabs start two checkouts for one fine, and both are paid: the second payment finds
// nothing owed, and its money is given back once, through the provider.
func TestTwoTabsPayOneFineAndOneIsRefunded(t *testing.T) {
	t.Parallel()
	pay, replicas := payingReplicas(t, 1, nil)
	a := replicas[0]
	fine(t, a, "m-tom", 300, "lost card")
	first, _ := startCheckout(t, a, "m-tom", 300, "tab-1")
	second, _ := startCheckout(t, a, "m-tom", 300, "tab-2")
	for _, c := range []checkout{first, second} {
		_, err := pay.Pay(sessionOf(t, pay, c))
		require.NoError(t, err)
	}
	eventually(t, 10*time.Second, func() bool { return getCheckout(t, a, "m-tom", second.CheckoutID).Refunded == 300 }, "the second payment refunded")
	assert.Equal(t, "paid", getCheckout(t, a, "m-tom", first.CheckoutID).Status)
	assert.Zero(t, getCheckout(t, a, "m-tom", first.CheckoutID).Refunded)
	assert.Zero(t, getAccount(t, a, "m-tom").Balance)
	require.Len(t, pay.Refunds(), 1, "one refund at the provider")
	assert.Equal(t, 1, countEvents(t, a, "m-tom", "RefundIssued"))
}

// A webhook that never arrives loses nothing: the saga asks the provider about the checkout
// CHECKOUT_RECONCILE_AFTER after its page expired, and records what it says.
func TestALostWebhookIsReconciled(t *testing.T) {
	t.Parallel()
	pay, replicas := payingReplicas(t, 1, func(cfg *app.Config) {
		cfg.Payments.ExpiresAfter, cfg.Payments.ReconcileAfter = 10*time.Second, time.Second // the page lives long enough to be paid on a loaded machine
	})
	a := replicas[0]
	fine(t, a, "m-lou", 500, "water damage")
	c, _ := startCheckout(t, a, "m-lou", 500, "pay-lou")
	pay.Hold("")
	_, err := pay.Pay(sessionOf(t, pay, c))
	require.NoError(t, err)
	require.Equal(t, 1, pay.Drop(""), "the webhook, lost")
	eventually(t, time.Minute, func() bool { return getCheckout(t, a, "m-lou", c.CheckoutID).Status == "paid" }, "the checkout reconciled")
	assert.Equal(t, 1, countEvents(t, a, "m-lou", "PaymentReceived"))
	assert.Zero(t, getAccount(t, a, "m-lou").Balance)
}

// A declined card leaves the balance as it was and the checkout open: no money, no payment.
func TestADeclinedCardPaysNothing(t *testing.T) {
	t.Parallel()
	pay, replicas := payingReplicas(t, 1, nil)
	a := replicas[0]
	fine(t, a, "m-dee", 300, "late")
	c, _ := startCheckout(t, a, "m-dee", 300, "pay-dee")
	_, err := pay.Decline(sessionOf(t, pay, c))
	require.NoError(t, err)
	pay.WaitIdle()
	assert.Equal(t, "open", getCheckout(t, a, "m-dee", c.CheckoutID).Status)
	assert.EqualValues(t, 300, getAccount(t, a, "m-dee").Balance)
	assert.Zero(t, countEvents(t, a, "m-dee", "PaymentReceived"))
}

// A refund that the provider fails is tried again, with backoff, shown in /status, and survives
// the replica that was trying it: the next holder of the saga refunds once, and the member's page says so.
func TestARefundThatFailsIsRetriedAcrossARestart(t *testing.T) {
	t.Parallel()
	pay := paytest.Start(t)
	cfg := apitest.WithPayments(fastBackground(app.Config{DatabaseURL: pgtest.NewDatabase(t)}), pay, "http://127.0.0.1:8080")
	cfg.Tuning.Processors.Retry = app.Backoff{Attempts: 20, First: 100 * time.Millisecond, Max: 200 * time.Millisecond}
	cfg.ReplicaID = "first"
	firstBase, stopFirst := runService(t, cfg)
	first := &api{Base: firstBase, Store: "postgres"}
	require.NoError(t, pay.SetWebhookURLs([]string{first.Base + "/webhooks/stripe"}))

	fine(t, first, "m-rex", 300, "late")
	one, _ := startCheckout(t, first, "m-rex", 300, "tab-1")
	two, _ := startCheckout(t, first, "m-rex", 300, "tab-2")
	pay.FailRefunds(1000)
	for _, c := range []checkout{one, two} {
		_, err := pay.Pay(sessionOf(t, pay, c))
		require.NoError(t, err)
	}
	eventually(t, 10*time.Second, func() bool { return getCheckout(t, first, "m-rex", two.CheckoutID).RefundDue == 300 }, "the refund due")
	// The provider failing is the provider down, not this refund's fault: the saga pauses and
	// tries again with backoff, and /status says why.
	eventually(t, 10*time.Second, func() bool {
		s := processorStatus(t, first, "checkouts")
		return s.LastError != nil && strings.Contains(*s.LastError, "refund")
	}, "the refund's failure in /status")
	assert.Empty(t, pay.Refunds(), "the provider failed it")
	stopFirst()

	pay.FailRefunds(0)
	cfg.ReplicaID = "second"
	second := &api{Base: startService(t, cfg), Store: "postgres"}
	eventually(t, 20*time.Second, func() bool { return getCheckout(t, second, "m-rex", two.CheckoutID).Refunded == 300 }, "the refund made")
	require.Len(t, pay.Refunds(), 1, "refunded once")
	assert.Equal(t, 1, countEvents(t, second, "m-rex", "RefundIssued"))
	assert.Zero(t, getAccount(t, second, "m-rex").Balance)
}
