// Command devpay serves the library's demo payment provider (see internal/devpay): a stand-in
// for Stripe's API, its hosted checkout page and its signed webhooks, for local demos and tests
// only, never for production. It keeps everything in memory.
//
//	devpay [-addr 127.0.0.1:9097] [-url URL] [-webhook-urls URL,...] [-min-expiry 30m] [-secret-key KEY] [-webhook-secret SECRET]
//
// Each flag defaults to an environment variable: DEVPAY_ADDR (default 127.0.0.1:9097),
// DEVPAY_URL (default http:// and the address it listens on), DEVPAY_WEBHOOK_URLS (where events
// go, separated by commas, or "none"; default http://127.0.0.1:8080/webhooks/stripe),
// DEVPAY_MIN_EXPIRY (the least time from now a session's expires_at may be, as a Go duration
// such as 10s, up to 24h; default 30m, as at Stripe: with seconds, a session asked to expire
// soon does so while one watches), DEVPAY_SECRET_KEY (default sk_test_devpay) and
// DEVPAY_WEBHOOK_SECRET (default whsec_devpay).
// The default key and secret are the demo's, public like devidp's passwords: for the demo only.
// Set others through the environment rather than flags, which other users of the machine can
// read. Neither is ever logged. It stops on SIGINT or SIGTERM.
//
// The service reaches it as Stripe, with the same key and webhook secret. A session paid
// without a browser, and what was sent:
//
//	curl -s -u sk_test_devpay: -X POST http://127.0.0.1:9097/_devpay/sessions/cs_test_.../pay
//	curl -s -u sk_test_devpay: http://127.0.0.1:9097/_devpay/deliveries
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"library/internal/devpay"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "devpay:", err)
		os.Exit(1)
	}
}

// config is what the flags and the environment ask for.
type config struct {
	addr, url, secretKey, webhookSecret string
	webhookURLs                         []string
	minExpiry                           time.Duration
}

func parseConfig(args []string, getenv func(string) string, output io.Writer) (config, error) {
	env := func(name, fallback string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return fallback
	}
	var c config
	var urls, minExpiry string
	fs := flag.NewFlagSet("devpay", flag.ContinueOnError)
	fs.SetOutput(output)
	fs.StringVar(&c.addr, "addr", env("DEVPAY_ADDR", "127.0.0.1:9097"), "address to listen on")
	fs.StringVar(&c.url, "url", getenv("DEVPAY_URL"), "its URL as browsers see it (default http:// and the address listened on)")
	fs.StringVar(&urls, "webhook-urls", env("DEVPAY_WEBHOOK_URLS", "http://127.0.0.1:8080/webhooks/stripe"), `where events go, comma-separated, or "none"`)
	fs.StringVar(&minExpiry, "min-expiry", env("DEVPAY_MIN_EXPIRY", "30m"), "the least time from now a session's expires_at may be, up to 24h (Stripe's is 30m)")
	fs.StringVar(&c.secretKey, "secret-key", env("DEVPAY_SECRET_KEY", devpay.DemoSecretKey), "the API key clients send (prefer the environment)")
	fs.StringVar(&c.webhookSecret, "webhook-secret", env("DEVPAY_WEBHOOK_SECRET", devpay.DemoWebhookSecret), "the secret that signs webhooks (prefer the environment)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	var err error
	if c.minExpiry, err = time.ParseDuration(minExpiry); err != nil || c.minExpiry <= 0 || c.minExpiry > 24*time.Hour {
		return config{}, fmt.Errorf("min-expiry %q is not a duration of more than 0 and at most 24h, such as 10s or 30m", minExpiry)
	}
	if strings.TrimSpace(urls) != "none" {
		for u := range strings.SplitSeq(urls, ",") {
			if u = strings.TrimSpace(u); u != "" {
				c.webhookURLs = append(c.webhookURLs, u)
			}
		}
	}
	return c, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer) error {
	cfg, err := parseConfig(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(stderr, nil))
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	if cfg.url == "" {
		cfg.url = "http://" + ln.Addr().String()
	}
	return serve(ctx, ln, cfg, logger)
}

// serve serves the provider on ln until ctx ends, then shuts down gracefully.
func serve(ctx context.Context, ln net.Listener, cfg config, logger *slog.Logger) error {
	defer func() { _ = ln.Close() }()
	p, err := devpay.New(devpay.Options{URL: cfg.url, SecretKey: cfg.secretKey, WebhookSecret: cfg.webhookSecret,
		WebhookURLs: cfg.webhookURLs, MinExpiry: cfg.minExpiry, Logger: logger})
	if err != nil {
		return err
	}
	defer p.Close()
	srv := &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second, ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn)}
	demo := cfg.secretKey == devpay.DemoSecretKey || cfg.webhookSecret == devpay.DemoWebhookSecret
	logger.Info("devpay: serving, for demos and tests only", slog.String("url", cfg.url),
		slog.String("webhook_urls", strings.Join(p.WebhookURLs(), ",")), slog.Bool("demo_secrets", demo))
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	logger.Info("devpay: stopped")
	return nil
}
