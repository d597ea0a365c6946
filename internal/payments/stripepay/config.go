package stripepay

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/stripe/stripe-go/v84"
)

// Config says how to reach Stripe. Its String, GoString and LogValue leave the secrets out, so
// a config can be printed or logged safely.
type Config struct {
	// SecretKey is the API key: sk_live_..., sk_test_..., or a restricted key (rk_...) that
	// may write Checkout Sessions and Refunds.
	SecretKey string
	// WebhookSecret is the webhook endpoint's signing secret, whsec_....
	WebhookSecret string
	// APIURL is Stripe's API; empty means DefaultAPIURL. Tests point it at stripe-mock. It must
	// be https, or http on a loopback address.
	APIURL string
	// HTTPClient makes the requests; nil means a client with DefaultTimeout. Each attempt is
	// bounded by its timeout (and the whole by the context's deadline).
	HTTPClient *http.Client
	// Logger receives stripe-go's retries; nil means none.
	Logger *slog.Logger
	// Now is the clock webhooks' signatures are timed by; nil means time.Now.
	Now func() time.Time
}

// DefaultAPIURL is Stripe's own API.
const DefaultAPIURL = stripe.APIURL

// DefaultTimeout bounds one attempt of one request when Config.HTTPClient is nil: Stripe
// answers in well under a second, and a member waits on the page for it.
const DefaultTimeout = 15 * time.Second

// maxNetworkRetries is how many times stripe-go tries again a request that got no answer of
// Stripe's (see doc.go), with the same idempotency key; it sleeps 0.5 s, then about 1 s, between
// tries. Two keeps a member's wait short while riding out a dropped connection.
const maxNetworkRetries = 2

// String leaves the secrets out.
func (c Config) String() string {
	client := "default"
	if c.HTTPClient != nil {
		client = fmt.Sprintf("timeout %v", c.HTTPClient.Timeout)
	}
	return fmt.Sprintf("stripepay.Config{SecretKey:%s WebhookSecret:%s APIURL:%q HTTPClient:%s}",
		redacted(c.SecretKey), redacted(c.WebhookSecret), c.APIURL, client)
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

// LogValue leaves the secrets out of log lines.
func (c Config) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("secret_key", redacted(c.SecretKey)),
		slog.String("webhook_secret", redacted(c.WebhookSecret)),
		slog.String("api_url", c.APIURL))
}

// redacted says whether a secret is set, and whether it is a test-mode one, never what it is.
func redacted(secret string) string {
	switch {
	case secret == "":
		return "(unset)"
	case strings.Contains(secret, "_test_"):
		return "(test key set)"
	default:
		return "(set)"
	}
}

// check refuses a config that cannot work or would be unsafe, naming the field, never its
// value.
func (c Config) check() error {
	if !strings.HasPrefix(c.SecretKey, "sk_") && !strings.HasPrefix(c.SecretKey, "rk_") {
		return errors.New("stripepay: SecretKey must be a secret or restricted API key (sk_... or rk_...), not a publishable key or empty")
	}
	if !strings.HasPrefix(c.WebhookSecret, "whsec_") {
		return errors.New("stripepay: WebhookSecret must be the webhook endpoint's signing secret (whsec_...)")
	}
	if c.APIURL == "" {
		return nil
	}
	u, err := url.Parse(c.APIURL)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return errors.New("stripepay: APIURL must be a base URL such as https://api.stripe.com")
	}
	if u.Scheme != "https" && (u.Scheme != "http" || !isLoopback(u.Hostname())) {
		// The secret key goes in every request's Authorization header.
		return errors.New("stripepay: APIURL must be https (http only on a loopback address, for tests)")
	}
	return nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// backends are stripe-go's, made from a Config, with no package-level state of stripe-go's.
func (c Config) backends() *stripe.Backends {
	apiURL := c.APIURL
	if apiURL == "" {
		apiURL = DefaultAPIURL
	}
	client := c.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout}
	}
	logger := c.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return stripe.NewBackendsWithConfig(&stripe.BackendConfig{
		HTTPClient:        client,
		URL:               stripe.String(apiURL),
		MaxNetworkRetries: stripe.Int64(maxNetworkRetries),
		LeveledLogger:     retryLogger{logger},
		EnableTelemetry:   stripe.Bool(false),
	})
}

// retryLogger passes stripe-go's warnings (its retries: method, host, path and wait) to the
// service's log and drops the rest: its debug lines hold whole responses, with the member's
// details, and its errors the raw answers that the adapter returns, mapped, as errors.
type retryLogger struct{ logger *slog.Logger }

func (l retryLogger) Warnf(ctx context.Context, format string, v ...any) {
	l.logger.WarnContext(ctx, "stripe: "+fmt.Sprintf(format, v...))
}

func (retryLogger) Debugf(context.Context, string, ...any) {}
func (retryLogger) Infof(context.Context, string, ...any)  {}
func (retryLogger) Errorf(context.Context, string, ...any) {}
