package web_test

// The bounds of paying online, as a member meets them: a few payments started and not finished
// at most (CHECKOUTS_OPEN_MAX), and a provider's page that takes payment for a while only
// (CHECKOUT_EXPIRES_AFTER). The helpers are checkout_test.go's.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"library/internal/app"
	"library/internal/devpay"
)

// startedCheckout is a checkout as POST /accounts/{memberId}/checkouts answers it.
type startedCheckout struct {
	CheckoutID string `json:"checkoutId"`
	URL        string `json:"url"`
	Amount     int    `json:"amount"`
	ExpiresAt  string `json:"expiresAt"`
}

// startCheckoutAs starts a checkout of cents on memberID's account through the API at base, as
// bearer, under key, as the web app's Pay does.
func startCheckoutAs(t *testing.T, base, bearer, memberID string, cents int, key string) startedCheckout {
	t.Helper()
	status, b := callAPI(t, http.MethodPost, base+"/accounts/"+memberID+"/checkouts", map[string]any{"amount": cents},
		"Authorization", bearer, "Idempotency-Key", key)
	if status != http.StatusCreated {
		t.Fatalf("start a checkout of %d cents: %d %s", cents, status, b)
	}
	var c startedCheckout
	if err := json.Unmarshal(b, &c); err != nil || c.URL == "" || c.ExpiresAt == "" {
		t.Fatalf("the checkout's answer %s (%v) has no page or expiry", b, err)
	}
	return c
}

// timeText is an RFC 3339 time as the page shows a day and a time.
func timeText(tb *tab, iso string) string {
	tb.t.Helper()
	text, err := tb.eval(`new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" }).format(new Date(` + jsString(iso) + `))`)
	if err != nil {
		tb.t.Fatalf("format %s: %v", iso, err)
	}
	return text
}

// A member has as many payments started and not finished as may be open at once (three, made
// through the API as Pay makes them) and presses Pay for another: no page is made at the
// provider, and the Pay panel says why, listing the three, each with its amount,
// until when its page takes payment, and a link to resume it. Resuming one reaches its page at
// the provider, where it is paid.
func TestTooManyCheckoutsOffersTheOpenOnes(t *testing.T) {
	t.Parallel()
	l := startPayingLibrary(t, 600, func(cfg *app.Config) { cfg.Payments.OpenMax = 3 })
	alice := l.idp.Bearer(t, "alice")
	var open []startedCheckout
	for i, cents := range []int{100, 200, 300} {
		open = append(open, startCheckoutAs(t, l.service, alice, "alice", cents, fmt.Sprintf("pay-click-%d", i)))
	}
	tb := l.myAccount(t)
	tb.waitText("region", "Account", "Balance: 6.00 owed")

	pay := tb.get("region", "Pay")
	pay.get("textbox", "Amount to pay").fill("4.00")
	pay.get("button", "Pay").click()
	text := pay.get("alert", "").waitText("You already have payments started and not finished")
	for _, c := range open {
		line := fmt.Sprintf("Resume the payment of %d.00: its page takes payment until %s.", c.Amount/100, timeText(tb, c.ExpiresAt))
		if n := strings.Count(text, line); n != 1 {
			t.Fatalf("the Pay panel lists %q %d times, want once; it says:\n%s", line, n, text)
		}
	}
	if n := strings.Count(text, "Resume the payment of"); n != len(open) {
		t.Fatalf("the Pay panel offers %d payments to resume, want the %d open ones; it says:\n%s", n, len(open), text)
	}
	requireAccessible(tb, "My account, with as many payments open as may be")
	if n := len(l.pay.Sessions()); n != len(open) {
		t.Fatalf("%d pages at the provider, want the %d open ones and no other", n, len(open))
	}

	pay.get("link", "Resume the payment of 2.00").click()
	tb.get("form", "Payment")
	if href, err := tb.eval("location.href"); err != nil || href != open[1].URL {
		t.Fatalf("resuming went to %q (%v), want the provider's page %s", href, err, open[1].URL)
	}
	atProvider(tb, "Pay")
	backFromProvider(tb).waitText("Paid: 2.00.")
	if n := paymentsRecorded(t, l.service, l.librarian, "alice"); n != 1 {
		t.Fatalf("%d payments recorded, want 1", n)
	}
}

// A member leaves the provider's page unpaid (Cancel), and its time runs out (8 s here; the
// service asks the provider 1 s after): the checkout's page comes to say, without being asked
// again, that the page expired and nothing was paid, and offers a new payment of what is still
// owed. Starting it is a new intent, with a new Idempotency-Key, and makes a new page at the
// provider, which is paid.
func TestExpiredCheckoutOffersANewPayment(t *testing.T) {
	t.Parallel()
	l := startPayingLibrary(t, 300, func(cfg *app.Config) {
		cfg.Payments.ExpiresAfter, cfg.Payments.ReconcileAfter = 8*time.Second, time.Second // the new page open long enough to pay on a loaded machine; the first expires well within waitTimeout
	})
	tb := l.myAccount(t)
	tb.waitText("region", "Account", "Balance: 3.00 owed")
	checkouts := intercept(tb, "*/accounts/alice/checkouts", func(int, intercepted) verdict { return verdict{} })

	payOnline(tb, "3.00")
	atProvider(tb, "Cancel")
	state := backFromProvider(tb)
	state.waitText("This payment page expired before it was paid: nothing was paid.")
	again := tb.get("region", "Pay again")
	again.waitText("You still owe 3.00.")
	requireAbsent(tb, "link", "Go back to the payment page")
	requireAccessible(tb, "the checkout's page, expired")
	first := l.pay.Sessions()
	if len(first) != 1 || first[0].Status != devpay.StatusExpired {
		t.Fatalf("the provider's pages: %+v, want the one, expired", first)
	}

	again.get("button", "Start a new payment of 3.00").click()
	tb.get("form", "Payment")
	requests := checkouts.waitRequests(2)
	if len(requests) != 2 || requests[1].Status != http.StatusCreated {
		t.Fatalf("%d checkouts started, the last answered %d; want 2, the new one 201", len(requests), requests[len(requests)-1].Status)
	}
	if again, before := requests[1].IdempotencyKey, requests[0].IdempotencyKey; again == "" || again == before {
		t.Fatalf("the new payment went with the key %q; the expired one had %q", again, before)
	}
	sessions := l.pay.Sessions()
	if len(sessions) != 2 || sessions[1].Status != devpay.StatusOpen {
		t.Fatalf("the provider's pages: %+v, want a second one, open", sessions)
	}
	if href, err := tb.eval("location.href"); err != nil || href != sessions[1].URL {
		t.Fatalf("the new payment went to %q (%v), want the provider's new page %s", href, err, sessions[1].URL)
	}
	atProvider(tb, "Pay")
	backFromProvider(tb).waitText("Paid: 3.00.")
	if n := paymentsRecorded(t, l.service, l.librarian, "alice"); n != 1 {
		t.Fatalf("%d payments recorded, want 1", n)
	}
}
