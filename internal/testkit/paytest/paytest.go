// Package paytest runs devpay, the development payment provider (internal/devpay), in-process
// for tests: a provider that speaks Stripe's API to a real stripe-go client and sends Stripe's
// signed webhooks, with test controls to pay (at once, or later as a slow payment method does,
// then succeed or fail), decline and expire sessions; to duplicate, hold, reorder and lose
// their events; and to fail refunds, or leave them pending until they are settled.
//
// What it promises:
//   - Start serves a devpay on 127.0.0.1 at a free port with a secret key and a webhook secret
//     of its own (never the demo's), and stops it when the test ends (t.Cleanup): no goroutine
//     of it outlives the test.
//   - A Provider is a *devpay.Server: every test control of devpay is a method of it (Pay,
//     PayLater, FinishPayment, Decline, Expire, ExpireDue, SetCopies, Hold, Release, Drop,
//     FailRefunds, PendRefunds, SettleRefund, SetWebhookURLs, Sessions, Session, Refunds,
//     Refund, Events, Deliveries, Calls, Webhooks...). Its own methods add what a test needs
//     around them: a stripe-go client (Client), the page's buttons without a browser (Press),
//     and waits with a deadline (WaitFor, WaitIdle, WaitDelivered).
//   - Deliveries are retried after 20 ms, doubling, 6 tries in all, unless Options say otherwise.
//   - A session may be made to expire seconds from now: devpay's Options.MinExpiry (Stripe's 30
//     minutes) is 1 second unless Options say otherwise. expires_at is in whole seconds, so ask
//     for 2 seconds to be sure of 1; the session expires, and its event is sent, within a
//     second of it.
//   - A Receiver (receiver.go) is a webhook endpoint that checks each delivery with stripe-go's
//     webhook.ConstructEvent and keeps what it got, and can answer with failures.
package paytest

import (
	"crypto/rand"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"library/internal/devpay"
)

// Options configure Start. The zero value is a provider with no webhook URL.
type Options struct {
	// WebhookURLs receive the events. A service started after the provider is given its URL
	// with SetWebhookURLs.
	WebhookURLs []string
	// Now is the provider's clock. Default time.Now.
	Now func() time.Time
	// RetryFirst is the wait before a delivery's first retry (default 20 ms); Attempts how many
	// tries a delivery gets (default 6).
	RetryFirst time.Duration
	Attempts   int
	// MinExpiry is the least time from now a session's expires_at may be. Default 1 second,
	// for tests that watch sessions expire; Stripe's is 30 minutes.
	MinExpiry time.Duration
}

// Wait is how long the waits of this package wait before failing the test.
const Wait = 10 * time.Second

// Provider is a running devpay for one test.
type Provider struct {
	*devpay.Server
	t                    testing.TB
	url, key, hookSecret string
	http                 *http.Client
	transport            *http.Transport
}

// Start serves a devpay for the rest of the test.
func Start(t testing.TB, opts ...Options) *Provider {
	t.Helper()
	var o Options
	switch len(opts) {
	case 0:
	case 1:
		o = opts[0]
	default:
		t.Fatalf("paytest.Start: at most one Options, got %d", len(opts))
	}
	if o.RetryFirst <= 0 {
		o.RetryFirst = 20 * time.Millisecond
	}
	if o.MinExpiry <= 0 {
		o.MinExpiry = time.Second
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("paytest.Start: listen: %v", err)
	}
	log := &testLog{t: t}
	p := &Provider{t: t, url: "http://" + ln.Addr().String(), key: "sk_test_" + rand.Text(), hookSecret: "whsec_" + rand.Text()}
	p.Server, err = devpay.New(devpay.Options{
		URL: p.url, SecretKey: p.key, WebhookSecret: p.hookSecret, WebhookURLs: o.WebhookURLs,
		RetryFirst: o.RetryFirst, Attempts: o.Attempts, Now: o.Now, MinExpiry: o.MinExpiry, Logger: slog.New(slog.NewTextHandler(log, nil)),
	})
	if err != nil {
		_ = ln.Close()
		t.Fatalf("paytest.Start: %v", err)
	}
	p.transport = http.DefaultTransport.(*http.Transport).Clone()
	p.http = &http.Client{Transport: p.transport, Timeout: Wait,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: Wait}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("paytest: serve: %v", err)
		}
	}()
	t.Cleanup(func() {
		p.Close()
		_ = srv.Close()
		<-served
		p.transport.CloseIdleConnections()
		log.stop()
	})
	return p
}

// URL is the provider's base URL: the URL of a stripe-go backend, and where its pages are.
func (p *Provider) URL() string { return p.url }

// SecretKey is the API key the provider takes.
func (p *Provider) SecretKey() string { return p.key }

// WebhookSecret signs the provider's webhooks.
func (p *Provider) WebhookSecret() string { return p.hookSecret }

// Client is a stripe-go client of the provider, with no logging. stripe-go retries by itself
// (twice) only a call that got no answer or a 409, never one answered with a Stripe error such
// as FailRefunds' 500. Its connections close when the test ends.
func (p *Provider) Client() *stripe.Client {
	backend := &stripe.BackendConfig{
		URL: stripe.String(p.url), HTTPClient: &http.Client{Transport: p.transport, Timeout: Wait},
		LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull},
	}
	return stripe.NewClient(p.key, stripe.WithBackends(stripe.NewBackendsWithConfig(backend)))
}

// PageAnswer is what the hosted page answered to a button.
type PageAnswer struct {
	Status int
	// Location is where a redirect sends the browser.
	Location string
	Body     string
}

// Press presses a button of a session's hosted page, "pay", "decline" or "cancel", as a
// browser posts its form, and does not follow the redirect.
func (p *Provider) Press(sessionID, button string) PageAnswer {
	p.t.Helper()
	resp, err := p.http.PostForm(p.url+"/pay/"+url.PathEscape(sessionID), url.Values{"action": {button}})
	if err != nil {
		p.t.Fatalf("paytest: press %s on %s: %v", button, sessionID, err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		p.t.Fatalf("paytest: press %s on %s: %v", button, sessionID, err)
	}
	return PageAnswer{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(body)}
}

// WaitFor waits until cond holds, and fails the test if it does not within Wait.
func (p *Provider) WaitFor(what string, cond func() bool) {
	p.t.Helper()
	waitFor(p.t, what, cond)
}

// WaitIdle waits until no delivery is waiting or under way.
func (p *Provider) WaitIdle() {
	p.t.Helper()
	p.WaitFor("no delivery pending", func() bool { return p.Pending() == 0 })
}

// WaitDelivered waits until n deliveries of events of this type were taken (answered 2xx),
// and returns those taken so far.
func (p *Provider) WaitDelivered(eventType string, n int) []devpay.Delivery {
	p.t.Helper()
	var taken []devpay.Delivery
	p.WaitFor(eventType+" delivered", func() bool {
		taken = taken[:0]
		for _, d := range p.Deliveries() {
			if d.Type == eventType && d.OK() {
				taken = append(taken, d)
			}
		}
		return len(taken) >= n
	})
	return taken
}

func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("paytest: waited %v for %s", Wait, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// testLog writes devpay's log to the test's log until stop, and drops what comes after: a
// handler may still log once the test has ended.
type testLog struct {
	t       testing.TB
	mu      sync.Mutex
	stopped bool
}

func (l *testLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.stopped {
		l.t.Log(strings.TrimSpace(string(b)))
	}
	return len(b), nil
}

func (l *testLog) stop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopped = true
}
