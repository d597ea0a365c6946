package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"

	"library/internal/testkit/syncbuf"
)

func TestConfigDefaultsEnvironmentAndFlags(t *testing.T) {
	t.Parallel()
	none := func(string) string { return "" }
	c, err := parseConfig(nil, none, io.Discard)
	require.NoError(t, err)
	require.Equal(t, config{addr: "127.0.0.1:9097", secretKey: "sk_test_devpay", webhookSecret: "whsec_devpay",
		webhookURLs: []string{"http://127.0.0.1:8080/webhooks/stripe"}, minExpiry: 30 * time.Minute}, c)

	env := map[string]string{
		"DEVPAY_ADDR": "127.0.0.1:1", "DEVPAY_URL": "http://pay.test", "DEVPAY_SECRET_KEY": "sk_test_env",
		"DEVPAY_WEBHOOK_SECRET": "whsec_env", "DEVPAY_WEBHOOK_URLS": "http://a.test/hook, http://b.test/hook",
		"DEVPAY_MIN_EXPIRY": "10s",
	}
	c, err = parseConfig([]string{"-secret-key", "sk_test_flag"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, config{addr: "127.0.0.1:1", url: "http://pay.test", secretKey: "sk_test_flag", webhookSecret: "whsec_env",
		webhookURLs: []string{"http://a.test/hook", "http://b.test/hook"}, minExpiry: 10 * time.Second}, c)
	c, err = parseConfig([]string{"-min-expiry", "2s"}, func(k string) string { return env[k] }, io.Discard)
	require.NoError(t, err)
	require.Equal(t, 2*time.Second, c.minExpiry, "the flag over the environment")

	c, err = parseConfig([]string{"-webhook-urls", "none"}, none, io.Discard)
	require.NoError(t, err)
	require.Empty(t, c.webhookURLs)
	_, err = parseConfig([]string{"extra"}, none, io.Discard)
	require.Error(t, err)
	for _, bad := range []string{"soon", "0s", "-1m", "25h"} {
		_, err = parseConfig([]string{"-min-expiry", bad}, none, io.Discard)
		require.ErrorContains(t, err, "min-expiry", bad)
	}
}

// The usage (-h) shows min-expiry and its default, Stripe's.
func TestUsageShowsMinExpiry(t *testing.T) {
	t.Parallel()
	var usage bytes.Buffer
	_, err := parseConfig([]string{"-h"}, func(string) string { return "" }, &usage)
	require.ErrorIs(t, err, flag.ErrHelp)
	require.Contains(t, usage.String(), "-min-expiry")
	require.Contains(t, usage.String(), `(default "30m")`)
}

func TestServePaysSendsAndNeverLogsItsSecrets(t *testing.T) {
	t.Parallel()
	const key, secret = "sk_test_cmd_secret", "whsec_cmd_secret"
	events := make(chan stripe.Event, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ev, err := webhook.ConstructEvent(body, r.Header.Get("Stripe-Signature"), secret)
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		events <- ev
	}))
	defer receiver.Close()

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	base := "http://" + ln.Addr().String()
	var logs syncbuf.Buffer
	ctx, cancel := context.WithCancel(t.Context())
	served := make(chan error, 1)
	cfg := config{url: base, secretKey: key, webhookSecret: secret, webhookURLs: []string{receiver.URL}, minExpiry: 5 * time.Minute}
	go func() { served <- serve(ctx, ln, cfg, slog.New(slog.NewTextHandler(&logs, nil))) }()

	httpClient := &http.Client{Transport: &http.Transport{}, Timeout: 10 * time.Second}
	defer httpClient.CloseIdleConnections()
	client := stripe.NewClient(key, stripe.WithBackends(stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		URL: stripe.String(base), HTTPClient: httpClient, LeveledLogger: &stripe.LeveledLogger{Level: stripe.LevelNull}})))
	s, err := client.V1CheckoutSessions.Create(t.Context(), &stripe.CheckoutSessionCreateParams{
		Mode: stripe.String("payment"), SuccessURL: stripe.String("http://127.0.0.1:8080/paid"),
		ExpiresAt: stripe.Int64(time.Now().Add(10 * time.Minute).Unix()), // sooner than Stripe takes: min-expiry reached devpay
		LineItems: []*stripe.CheckoutSessionCreateLineItemParams{{Quantity: stripe.Int64(1),
			PriceData: &stripe.CheckoutSessionCreateLineItemPriceDataParams{Currency: stripe.String("eur"), UnitAmount: stripe.Int64(500),
				ProductData: &stripe.CheckoutSessionCreateLineItemPriceDataProductDataParams{Name: stripe.String("Fines")}}}},
	})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(s.URL, base+"/pay/"), s.URL)

	admin := func(method, path string) string {
		req, err := http.NewRequestWithContext(t.Context(), method, base+"/_devpay/"+path, nil)
		require.NoError(t, err)
		req.SetBasicAuth(key, "")
		resp, err := httpClient.Do(req)
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }()
		require.Equal(t, http.StatusOK, resp.StatusCode)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return string(body)
	}
	admin(http.MethodPost, "sessions/"+s.ID+"/pay")
	select {
	case ev := <-events:
		require.Equal(t, stripe.EventTypeCheckoutSessionCompleted, ev.Type)
	case <-time.After(10 * time.Second):
		t.Fatal("no webhook")
	}
	// The receiver has the event before devpay has its answer: wait for devpay to record it.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(admin(http.MethodGet, "deliveries"), `"status":200`); {
		require.True(t, time.Now().Before(deadline), "no delivery recorded")
		time.Sleep(5 * time.Millisecond)
	}

	cancel()
	require.NoError(t, <-served)
	out := logs.String()
	require.Contains(t, out, "devpay: serving, for demos and tests only")
	require.Contains(t, out, "url="+base)
	require.Contains(t, out, "demo_secrets=false")
	require.Contains(t, out, "devpay: webhook delivered")
	require.Contains(t, out, "devpay: stopped")
	require.NotContains(t, out, key)
	require.NotContains(t, out, secret)
}
