package stripepay

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

const secretKey = "sk_live_51Hq9QxSECRETvalue"

func TestNewRefusesAConfigThatCannotWork(t *testing.T) {
	t.Parallel()
	good := Config{SecretKey: secretKey, WebhookSecret: testWebhookSecret}
	for name, c := range map[string]struct {
		change func(*Config)
		names  string
	}{
		"no key":             {func(c *Config) { c.SecretKey = "" }, "SecretKey"},
		"publishable key":    {func(c *Config) { c.SecretKey = "pk_live_51Hq9Qx" }, "SecretKey"},
		"no webhook secret":  {func(c *Config) { c.WebhookSecret = "" }, "WebhookSecret"},
		"not a whsec":        {func(c *Config) { c.WebhookSecret = "sk_live_51Hq9Qx" }, "WebhookSecret"},
		"http to a host":     {func(c *Config) { c.APIURL = "http://api.stripe.com" }, "APIURL"},
		"not a URL":          {func(c *Config) { c.APIURL = "api.stripe.com" }, "APIURL"},
		"credentials in URL": {func(c *Config) { c.APIURL = "https://" + secretKey + "@api.stripe.com" }, "APIURL"},
	} {
		c2 := good
		c.change(&c2)
		_, err := New(c2)
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		if !strings.Contains(err.Error(), c.names) {
			t.Errorf("%s: %q does not name %s", name, err, c.names)
		}
		if strings.Contains(err.Error(), "51Hq9Qx") {
			t.Errorf("%s: %q shows the value", name, err)
		}
	}
	for _, apiURL := range []string{"", "https://api.stripe.com", "http://127.0.0.1:12111", "http://localhost:12111", "http://[::1]:12111"} {
		c := good
		c.APIURL = apiURL
		if _, err := New(c); err != nil {
			t.Errorf("APIURL %q: %v", apiURL, err)
		}
	}
}

// A config printed or logged any way shows no secret.
func TestConfigPrintsWithoutSecrets(t *testing.T) {
	t.Parallel()
	c := Config{SecretKey: secretKey, WebhookSecret: testWebhookSecret, APIURL: "https://api.stripe.com"}
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "stripe", c)
	for _, out := range []string{fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), c.String(), logged.String()} {
		if strings.Contains(out, "SECRET") || strings.Contains(out, "3Qx9vLrT2mKp8Wz") {
			t.Errorf("shows a secret: %s", out)
		}
		if !strings.Contains(out, "api.stripe.com") {
			t.Errorf("lost the URL: %s", out)
		}
	}
}

// stripe-go's retries reach the log, and nothing of the key or the answers does.
func TestRetriesAreLoggedWithoutSecrets(t *testing.T) {
	t.Parallel()
	failing := newFailingStripe(t, answer{502, gatewayErrorPage})
	var logged bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logged, &slog.HandlerOptions{Level: slog.LevelDebug}))
	p, err := New(Config{SecretKey: "sk_test_51Hq9QxSECRETvalue", WebhookSecret: testWebhookSecret, APIURL: failing.URL, Logger: logger})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.StartCheckout(context.Background(), checkoutRequest()); err != nil {
		t.Fatal(err)
	}
	out := logged.String()
	if !strings.Contains(out, "retry") {
		t.Errorf("no retry logged: %q", out)
	}
	for _, leak := range []string{"SECRET", "m_ada", "Late fines", "Bad Gateway", "cs_test"} {
		if strings.Contains(out, leak) {
			t.Errorf("the log shows %q: %s", leak, out)
		}
	}
}
