package config_test

import (
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/config"
	"library/internal/devpay"
)

// A service that signs people in on a database must say whether it takes payments online;
// taking them needs the provider's secrets and the web app's address, each missing one refused
// at start by name, and neither secret ever repeated in the error. Where money is real (Stripe's
// API, or a live key), a webhook secret anyone could know or guess is refused, as are a live key
// sent elsewhere and pages that Stripe would refuse to expire when asked.
func TestPaymentSettings(t *testing.T) {
	t.Parallel()
	signedIn := map[string]string{"DATABASE_URL": "postgres://127.0.0.1/library", "PII_KEY": "k",
		"AUTH_ISSUER": "https://login.example.org", "AUTH_AUDIENCE": "library", "AUTH_CLIENT_ID": "library-web"}
	stripe := map[string]string{"PAYMENTS": "stripe", "STRIPE_SECRET_KEY": "sk_test_secret-value", "STRIPE_WEBHOOK_SECRET": "whsec_secretvalue0123456789abcdefghijklmn",
		"PUBLIC_URL": "https://library.example.org/"}
	devpayAt := map[string]string{"STRIPE_API_URL": "http://127.0.0.1:9097"}
	with := func(sets ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, s := range sets {
			maps.Copy(out, s)
		}
		return out
	}
	for name, tc := range map[string]struct {
		env     map[string]string
		refused string // the variable the error names; "" for none
	}{
		"in memory, unset":             {nil, ""},
		"signed in, unset":             {signedIn, "PAYMENTS"},
		"signed in, off":               {with(signedIn, map[string]string{"PAYMENTS": "off"}), ""},
		"signed in, stripe":            {with(signedIn, stripe), ""},
		"no secret key":                {with(signedIn, stripe, map[string]string{"STRIPE_SECRET_KEY": ""}), "STRIPE_SECRET_KEY"},
		"no webhook secret":            {with(signedIn, stripe, map[string]string{"STRIPE_WEBHOOK_SECRET": ""}), "STRIPE_WEBHOOK_SECRET"},
		"no public URL":                {with(signedIn, stripe, map[string]string{"PUBLIC_URL": ""}), "PUBLIC_URL"},
		"an API over http, elsewhere":  {with(signedIn, stripe, map[string]string{"STRIPE_API_URL": "http://stripe.example.org"}), "STRIPE_API_URL"},
		"an API over http, this host":  {with(signedIn, stripe, map[string]string{"STRIPE_API_URL": "http://127.0.0.1:9097"}), ""},
		"a public URL over http":       {with(signedIn, stripe, map[string]string{"PUBLIC_URL": "http://library.example.org"}), "PUBLIC_URL"},
		"another word":                 {with(signedIn, map[string]string{"PAYMENTS": "paypal"}), "PAYMENTS"},
		"a currency in capitals":       {with(signedIn, stripe, map[string]string{"PAYMENTS_CURRENCY": "EUR"}), "PAYMENTS_CURRENCY"},
		"reconcile after no time":      {with(signedIn, stripe, map[string]string{"CHECKOUT_RECONCILE_AFTER": "0s"}), "CHECKOUT_RECONCILE_AFTER"},
		"reconcile after seconds (ok)": {with(signedIn, stripe, map[string]string{"CHECKOUT_RECONCILE_AFTER": "20s"}), ""},
		"no checkout open at all":      {with(signedIn, stripe, map[string]string{"CHECKOUTS_OPEN_MAX": "0"}), "CHECKOUTS_OPEN_MAX"},
		"devpay's secret at Stripe": {with(signedIn, stripe, map[string]string{"STRIPE_WEBHOOK_SECRET": devpay.DemoWebhookSecret}),
			"STRIPE_WEBHOOK_SECRET is the development provider's published secret"},
		"whsec_ alone at Stripe":  {with(signedIn, stripe, map[string]string{"STRIPE_WEBHOOK_SECRET": "whsec_"}), "STRIPE_WEBHOOK_SECRET"},
		"whsec_ and a space":      {with(signedIn, stripe, map[string]string{"STRIPE_WEBHOOK_SECRET": "whsec_ "}), "STRIPE_WEBHOOK_SECRET"},
		"a short secret":          {with(signedIn, stripe, map[string]string{"STRIPE_WEBHOOK_SECRET": "whsec_secretvalue0123456789"}), "STRIPE_WEBHOOK_SECRET"},
		"a secret of other signs": {with(signedIn, stripe, map[string]string{"STRIPE_WEBHOOK_SECRET": "whsec_secretvalue0123456789-abcdefghijklmn"}), "STRIPE_WEBHOOK_SECRET"},
		"devpay's secrets at devpay": {with(signedIn, stripe, devpayAt, map[string]string{"STRIPE_WEBHOOK_SECRET": devpay.DemoWebhookSecret,
			"STRIPE_SECRET_KEY": devpay.DemoSecretKey, "CHECKOUT_EXPIRES_AFTER": "20s"}), ""},
		"a weak secret with a live key": {with(signedIn, stripe, devpayAt, map[string]string{"STRIPE_WEBHOOK_SECRET": devpay.DemoWebhookSecret,
			"STRIPE_SECRET_KEY": "sk_live_secret-value"}), "STRIPE_WEBHOOK_SECRET"},
		"a restricted live key at devpay": {with(signedIn, stripe, devpayAt, map[string]string{"STRIPE_SECRET_KEY": "rk_live_secret-value"}), "STRIPE_API_URL"},
		"pages of seconds at Stripe":      {with(signedIn, stripe, map[string]string{"CHECKOUT_EXPIRES_AFTER": "20s"}), "CHECKOUT_EXPIRES_AFTER"},
		"pages of a day and more":         {with(signedIn, stripe, map[string]string{"CHECKOUT_EXPIRES_AFTER": "25h"}), "CHECKOUT_EXPIRES_AFTER"},
		"pages of a day at Stripe (ok)":   {with(signedIn, stripe, map[string]string{"CHECKOUT_EXPIRES_AFTER": "24h"}), ""},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cfg, err := config.FromEnv(func(k string) string { return tc.env[k] })
			if err == nil {
				err = cfg.Check()
			}
			if tc.refused == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.refused)
			for _, secret := range []string{"secret-value", "secretvalue0123", tc.env["STRIPE_WEBHOOK_SECRET"]} {
				if len(secret) > len("whsec_")+4 {
					assert.NotContains(t, err.Error(), secret, "a secret is never repeated")
				}
			}
		})
	}
	cfg, err := config.FromEnv(func(k string) string { return with(signedIn, stripe)[k] })
	require.NoError(t, err)
	assert.Equal(t, "https://library.example.org", cfg.Payments.PublicURL, "without its trailing slash")
	assert.Equal(t, config.DefaultStripeAPIURL, cfg.Payments.StripeAPIURL)
	assert.Equal(t, "eur", cfg.Payments.Currency)
	assert.Equal(t, 30*time.Minute, cfg.Payments.ExpiresAfter, "Stripe's least")
	assert.Equal(t, 3, cfg.Payments.OpenMax)
	assert.True(t, cfg.Payments.On())
}
