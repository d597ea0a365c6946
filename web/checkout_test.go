package web_test

// Paying fines online, as a member does: Pay on My account, the payment provider's hosted page
// (devpay, a provider that speaks Stripe's API, in this process: internal/testkit/paytest), and
// back to the checkout's page, which says "paid" only once the service does.

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"library/internal/app"
	"library/internal/devpay"
	"library/internal/testkit/apitest"
	"library/internal/testkit/paytest"
	"library/internal/testkit/pgtest"
)

// frontDoor is a server whose address is known before the service behind it starts, so that
// the service can be told its own public address (PUBLIC_URL), where the payment provider's
// page sends the browser back. It forwards everything to the service, Host and all, as a load
// balancer in front of it would; the browser opens the app at the front door.
type frontDoor struct {
	*httptest.Server
	target atomic.Pointer[url.URL]
}

func newFrontDoor(t *testing.T) *frontDoor {
	t.Helper()
	d := &frontDoor{}
	transport := &http.Transport{}
	t.Cleanup(transport.CloseIdleConnections)
	proxy := &httputil.ReverseProxy{Transport: transport, Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(d.target.Load())
		pr.Out.Host = pr.In.Host
	}}
	d.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d.target.Load() == nil {
			http.Error(w, "the service is not up yet", http.StatusServiceUnavailable)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(d.Close)
	return d
}

// payingLibrary is a service with sign-in and payments online, and what a test does with it.
type payingLibrary struct {
	// base is where the browser opens the app: the service's public address.
	base string
	// service is the service itself, where the provider's webhooks go.
	service string
	idp     *apitest.Provider
	pay     *paytest.Provider
	// librarian is libby's Authorization header.
	librarian string
}

// startPayingLibrary starts an OpenID provider, a payment provider and the service on a
// database, with sign-in and payments online through them (CHECKOUT_EXPIRES_AFTER 30m and
// CHECKOUT_RECONCILE_AFTER 15m, their defaults, unless tune changes them), behind a front door that is its PUBLIC_URL; the provider's
// webhooks go to the service. It opens alice's account with a fine of cents.
func startPayingLibrary(t *testing.T, cents int, tune func(*app.Config)) *payingLibrary {
	t.Helper()
	door := newFrontDoor(t)
	l := &payingLibrary{base: door.URL, idp: apitest.StartProvider(t), pay: paytest.Start(t)}
	cfg := apitest.WithSignIn(fast(app.Config{WebUI: true, DatabaseURL: pgtest.NewDatabase(t)}), l.idp)
	cfg = apitest.WithPayments(cfg, l.pay, door.URL)
	cfg.Payments.Currency, cfg.Payments.ReconcileAfter = "eur", 15*time.Minute
	if tune != nil {
		tune(&cfg)
	}
	l.service = startService(t, cfg)
	target, err := url.Parse(l.service)
	if err != nil {
		t.Fatal(err)
	}
	door.target.Store(target)
	if err := l.pay.SetWebhookURLs([]string{l.service + "/webhooks/stripe"}); err != nil {
		t.Fatal(err)
	}
	l.librarian = l.idp.Bearer(t, "libby")
	mustCallAs(t, l.librarian, http.MethodPut, l.service+"/accounts/alice", map[string]any{"name": "Alice Liddell"}, http.StatusCreated)
	mustCallAs(t, l.librarian, http.MethodPost, l.service+"/accounts/alice/fines", map[string]any{"amount": cents, "reason": "Dune, 12 days late"}, http.StatusCreated)
	return l
}

// myAccount opens the app in a new tab, signs alice in and shows her account.
func (l *payingLibrary) myAccount(t *testing.T) *tab {
	t.Helper()
	tb := newTab(t)
	tb.open(l.base + "/#/books")
	signIn(tb, "alice")
	tb.get("navigation", "Main").get("link", "My account").click()
	tb.get("heading", "My account")
	return tb
}

// payOnline fills the Pay form of My account and presses Pay, and waits for the provider's page.
func payOnline(tb *tab, amount string) {
	tb.t.Helper()
	pay := tb.get("region", "Pay")
	pay.get("textbox", "Amount to pay").fill(amount)
	pay.get("button", "Pay").click()
	tb.get("form", "Payment")
}

// atProvider presses a button of the provider's hosted page: Pay, Decline or Cancel.
func atProvider(tb *tab, button string) {
	tb.t.Helper()
	tb.get("form", "Payment").get("button", button).click()
}

// backFromProvider signs alice in again on the way back (the sign-in lived in the page the
// browser left) and returns the checkout's page's status, once the page is back.
func backFromProvider(tb *tab) *element {
	tb.t.Helper()
	signInAtProvider(tb, "alice")
	tb.get("heading", "Your payment")
	return tb.get("region", "Payment online").get("status", "")
}

// requireSaysNot fails the test if e says any of these now.
func requireSaysNot(t *testing.T, e *element, words ...string) {
	t.Helper()
	text := e.text()
	for _, w := range words {
		if strings.Contains(text, w) {
			t.Fatalf("%s says %q: %q", e, w, text)
		}
	}
}

// A member pays a fine on the provider's hosted page and comes back: the page waits, and says
// "paid" only once the provider's webhook has reached the service (held back until the page has
// been seen waiting). Then My account owes nothing, with no Pay form left on it.
func TestMemberPaysOnTheProvidersPage(t *testing.T) {
	t.Parallel()
	l := startPayingLibrary(t, 300, nil)
	tb := l.myAccount(t)
	tb.waitText("region", "Account", "Balance: 3.00 owed")
	requireAccessible(tb, "My account, owing")
	screenshot(tb, "account")

	payOnline(tb, "3.00")
	l.pay.Hold("")
	atProvider(tb, "Pay")
	state := backFromProvider(tb)
	state.waitText("Waiting for the payment provider…")
	requireAccessible(tb, "the checkout's page, waiting")
	if n := paymentsRecorded(t, l.service, l.librarian, "alice"); n != 0 {
		t.Fatalf("%d payments recorded before the webhook", n)
	}
	requireSaysNot(t, state, "Paid")

	if n := l.pay.Release("", devpay.InOrder); n != 1 {
		t.Fatalf("%d webhooks held back, want the payment's", n)
	}
	state.waitText("Paid: 3.00.")
	requireSaysNot(t, state, "given back")
	requireAccessible(tb, "the checkout's page, paid")
	screenshot(tb, "checkout")

	tb.get("link", "Back to your account").click()
	tb.waitText("region", "Account", "Balance: Nothing owed")
	pay := tb.get("region", "Pay")
	pay.waitText("Nothing to pay: the balance is 0.00.")
	requireAbsent(tb, "textbox", "Amount to pay", "button", "Pay")
	tb.row("History", "Payment of 3.00 online", "By", "the library")
	tb.row("History", "Payment page opened for 3.00", "By", "alice (member)")
	requireAccessible(tb, "My account, paid up")
	if n := paymentsRecorded(t, l.service, l.librarian, "alice"); n != 1 {
		t.Fatalf("%d payments recorded, want 1", n)
	}
}

// A double click on Pay makes one checkout, and one page at the provider: the first answer is
// held back while the second click lands, so the checkout is surely in flight then; both
// clicks are one intent with one Idempotency-Key, and the browser goes to that one page.
func TestPayOnlineDoubleClickMakesOnePage(t *testing.T) {
	t.Parallel()
	l := startPayingLibrary(t, 300, nil)
	tb := l.myAccount(t)
	tb.waitText("region", "Account", "Balance: 3.00 owed")

	release := make(chan struct{})
	checkouts := intercept(tb, "*/accounts/alice/checkouts", func(n int, _ intercepted) verdict {
		if n == 0 {
			return verdict{hold: release}
		}
		return verdict{}
	})
	pay := tb.get("region", "Pay")
	pay.get("textbox", "Amount to pay").fill("3.00")
	button := pay.get("button", "Pay")
	button.doubleClick()
	checkouts.waitRequests(1) // the service has answered; the page has not seen it yet
	if !button.disabled() {
		t.Fatal("the Pay button is enabled while the checkout is in flight")
	}
	if _, err := button.call(`function() { this.form.requestSubmit(); return ""; }`); err != nil {
		t.Fatal(err)
	}
	close(release)

	tb.get("form", "Payment") // the provider's page
	requireOneKey(t, checkouts.requests())
	sessions := l.pay.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("%d pages at the provider after a double click, want 1", len(sessions))
	}
	if at, err := tb.eval("location.href"); err != nil || at != sessions[0].URL {
		t.Fatalf("the browser is at %q (%v), want the provider's page %s", at, err, sessions[0].URL)
	}
}

// A webhook lost for good (held, then dropped) loses nothing: the service asks the provider
// about the checkout still open CHECKOUT_RECONCILE_AFTER after its page expired (1 s after 4 s
// here), and the page ends at "paid".
func TestLostWebhookIsReconciledOnThePage(t *testing.T) {
	t.Parallel()
	l := startPayingLibrary(t, 300, func(cfg *app.Config) {
		cfg.Payments.ExpiresAfter, cfg.Payments.ReconcileAfter = 4*time.Second, time.Second
	})
	tb := l.myAccount(t)
	tb.waitText("region", "Account", "Balance: 3.00 owed")

	payOnline(tb, "3.00")
	l.pay.Hold("")
	atProvider(tb, "Pay")
	tb.get("heading", "Sign in to the library") // on the way back: the provider took the payment
	if n := l.pay.Drop(""); n != 1 {
		t.Fatalf("%d webhooks dropped, want the payment's", n)
	}
	state := backFromProvider(tb)
	state.waitText("Paid: 3.00.")
	if n := paymentsRecorded(t, l.service, l.librarian, "alice"); n != 1 {
		t.Fatalf("%d payments recorded, want 1", n)
	}
	if d := l.pay.Deliveries(); len(d) != 0 {
		t.Fatalf("%d webhook deliveries, want none: the page was to be paid by reconciliation", len(d))
	}
}

// Two tabs pay one fine: both reach the provider's page while the fine is owed, and both pay.
// The first page says paid; the second says it paid twice and the money was given back, once.
func TestTwoTabsPayingOneFineAreRefundedOnce(t *testing.T) {
	t.Parallel()
	l := startPayingLibrary(t, 300, nil)
	tabs := []*tab{l.myAccount(t), l.myAccount(t)}
	for _, tb := range tabs {
		tb.waitText("region", "Account", "Balance: 3.00 owed")
		payOnline(tb, "3.00")
	}
	if n := len(l.pay.Sessions()); n != 2 {
		t.Fatalf("%d pages at the provider, want one per tab", n)
	}

	atProvider(tabs[0], "Pay")
	first := backFromProvider(tabs[0])
	first.waitText("Paid: 3.00.")
	atProvider(tabs[1], "Pay")
	second := backFromProvider(tabs[1])
	second.waitText("Paid: 3.00. You paid twice: 3.00 was given back.")
	requireAccessible(tabs[1], "the checkout's page, given back")
	if refunds := l.pay.Refunds(); len(refunds) != 1 || refunds[0].Amount != 300 {
		t.Fatalf("refunds at the provider: %+v, want one of 3.00", refunds)
	}
	requireSaysNot(t, first, "given back")
	if n := paymentsRecorded(t, l.service, l.librarian, "alice"); n != 2 {
		t.Fatalf("%d payments recorded, want both", n)
	}
	tabs[1].get("link", "Back to your account").click()
	tabs[1].waitText("region", "Account", "Balance: Nothing owed")
	tabs[1].row("History", "3.00 given back", "By", "the library")
	tabs[1].row("History", "3.00 paid twice, to be given back", "By", "the library")
}

// A declined card pays nothing: Decline on the provider's page, then Cancel back to the
// library, whose page says nothing was paid, offers the way back to the provider's page, and
// says until when it takes payment; and the balance is as it was.
func TestDeclinedCardLeavesTheBalance(t *testing.T) {
	t.Parallel()
	l := startPayingLibrary(t, 300, nil)
	tb := l.myAccount(t)
	tb.waitText("region", "Account", "Balance: 3.00 owed")

	payOnline(tb, "3.00")
	atProvider(tb, "Decline")
	tb.waitText("alert", "", "Your card was declined.")
	atProvider(tb, "Cancel")
	state := backFromProvider(tb)
	state.waitText("Cancelled: nothing was paid.")
	tb.get("link", "Go back to the payment page")
	sessions := l.pay.Sessions()
	if len(sessions) != 1 {
		t.Fatalf("%d pages at the provider, want 1", len(sessions))
	}
	until := "It takes payment until " + timeText(tb, sessions[0].ExpiresAt.Format(time.RFC3339)) + "."
	tb.get("region", "Payment online").waitText(until)
	requireAccessible(tb, "the checkout's page, cancelled")

	tb.get("link", "Back to your account").click()
	tb.waitText("region", "Account", "Balance: 3.00 owed")
	tb.get("region", "Pay").get("textbox", "Amount to pay")
	if n := paymentsRecorded(t, l.service, l.librarian, "alice"); n != 0 {
		t.Fatalf("%d payments recorded after a declined card, want 0", n)
	}
}
