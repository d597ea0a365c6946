package config

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Payments of fines online go through a payment provider (PAYMENTS=stripe): its secret key and
// webhook secret are secrets, never logged; the web app's address (PUBLIC_URL) is where the
// provider's page sends the member back. A service with a database and sign-in takes money for
// real, so it must say whether it takes payments online: PAYMENTS is then required.

// DefaultStripeAPIURL is Stripe's own API.
const DefaultStripeAPIURL = "https://api.stripe.com"

// Payments settings.
type Payments struct {
	// Provider is "stripe", or "off" for no payments online; "" while unset (PAYMENTS).
	Provider string
	// StripeSecretKey authenticates the service to Stripe (STRIPE_SECRET_KEY); a secret.
	StripeSecretKey string
	// StripeWebhookSecret verifies Stripe's webhooks (STRIPE_WEBHOOK_SECRET); a secret.
	StripeWebhookSecret string
	// StripeAPIURL is where Stripe's API is (STRIPE_API_URL): Stripe's own, or a development
	// provider (devpay) or Stripe's mock.
	StripeAPIURL string
	// PublicURL is the web app's address, for the pages the provider sends members back to
	// (PUBLIC_URL).
	PublicURL string
	// Currency is the ISO 4217 code fines are in, lower case (PAYMENTS_CURRENCY).
	Currency string
	// ReconcileAfter is how long after a checkout's page expires the provider is asked what
	// became of it, in case its webhook was lost; also the first wait before asking again about
	// a payment or a refund still on its way (CHECKOUT_RECONCILE_AFTER).
	ReconcileAfter time.Duration
	// ExpiresAfter is how long a checkout's page takes payment (CHECKOUT_EXPIRES_AFTER).
	ExpiresAfter time.Duration
	// OpenMax is how many checkouts a member may have open at once (CHECKOUTS_OPEN_MAX).
	OpenMax int
}

// Stripe's limits on a Checkout Session's expires_at, from its creation.
const (
	StripeMinExpiry = 30 * time.Minute
	StripeMaxExpiry = 24 * time.Hour
)

// devpayWebhookSecret is the development provider's published webhook secret (cmd/devpay's
// default, in the README): known to anyone, so never one to verify real money with.
const devpayWebhookSecret = "whsec_devpay"

// stripeSecretShape is a webhook signing secret as Stripe makes them: whsec_ and at least 32
// letters and digits.
var stripeSecretShape = regexp.MustCompile(`^whsec_[A-Za-z0-9]{32,}$`)

// real reports whether the settings take real money, or could: Stripe's own API, or a live
// key (which must never be sent anywhere else).
func (p Payments) real() bool {
	return p.StripeAPIURL == DefaultStripeAPIURL || strings.HasPrefix(p.StripeSecretKey, "sk_live_") ||
		strings.HasPrefix(p.StripeSecretKey, "rk_live_")
}

// On reports whether fines are taken online.
func (p Payments) On() bool { return p.Provider == "stripe" }

var currencyCode = regexp.MustCompile(`^[a-z]{3}$`)

func currency(name, value string) (string, error) {
	if !currencyCode.MatchString(value) {
		return "", fmt.Errorf("%s must be an ISO 4217 currency code in lower case, such as eur or usd", name)
	}
	return value, nil
}

// checkPayments refuses payment settings that can't work or aren't safe, naming the variable.
func (c Config) checkPayments() error {
	p := c.Payments
	switch {
	case p.Provider == "" && c.DatabaseURL != "" && c.AuthIssuer != "":
		return fmt.Errorf("PAYMENTS is unset: with DATABASE_URL and sign-in, say whether members pay fines online: " +
			"PAYMENTS=stripe (with STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET and PUBLIC_URL), or PAYMENTS=off (payments at the desk only)")
	case !p.On():
		return nil
	case p.StripeSecretKey == "":
		return fmt.Errorf("STRIPE_SECRET_KEY is unset: PAYMENTS=stripe needs the secret key of the library's Stripe account")
	case p.StripeWebhookSecret == "":
		return fmt.Errorf("STRIPE_WEBHOOK_SECRET is unset: PAYMENTS=stripe needs the signing secret of the webhook endpoint " +
			"(POST /webhooks/stripe), or nobody's notification of a payment could be told from a forged one")
	case p.PublicURL == "":
		return fmt.Errorf("PUBLIC_URL is unset: PAYMENTS=stripe needs the web app's address, where the provider's page sends members back")
	}
	if _, err := replicaURL(p.PublicURL); err != nil {
		return fmt.Errorf("PUBLIC_URL must be the web app's address, such as https://library.example.org (https, or http on this machine only)")
	}
	if _, err := replicaURL(p.StripeAPIURL); err != nil {
		return fmt.Errorf("STRIPE_API_URL must be an https URL, such as %s (http only on this machine: a development provider)", DefaultStripeAPIURL)
	}
	if p.real() {
		return p.checkReal()
	}
	return nil
}

// checkReal refuses what is safe only against a development provider, when money is real: a
// webhook secret that is published, short, or not one Stripe made; a live key sent elsewhere
// than Stripe; a page expiry that Stripe refuses.
func (p Payments) checkReal() error {
	switch {
	case p.StripeWebhookSecret == devpayWebhookSecret:
		return fmt.Errorf("STRIPE_WEBHOOK_SECRET is the development provider's published secret: with Stripe's API or a live key, " +
			"set the signing secret of the webhook endpoint from Stripe's dashboard")
	case !stripeSecretShape.MatchString(p.StripeWebhookSecret):
		return fmt.Errorf("STRIPE_WEBHOOK_SECRET is not a signing secret as Stripe makes them (whsec_ and at least 32 letters and digits): " +
			"with Stripe's API or a live key, set the signing secret of the webhook endpoint from Stripe's dashboard")
	case p.StripeAPIURL != DefaultStripeAPIURL:
		return fmt.Errorf("STRIPE_API_URL is not Stripe's API, but STRIPE_SECRET_KEY is a live key: a live key goes to %s only", DefaultStripeAPIURL)
	case p.ExpiresAfter < StripeMinExpiry || p.ExpiresAfter > StripeMaxExpiry:
		return fmt.Errorf("CHECKOUT_EXPIRES_AFTER must be from %v to %v with Stripe's API, which refuses other expiries", StripeMinExpiry, StripeMaxExpiry)
	}
	return nil
}

// publicURL reads PUBLIC_URL: the web app's base URL, canonical (no trailing slash).
func publicURL(name, value string) (string, error) {
	if value == "" {
		return "", nil
	}
	base, err := replicaURL(value)
	if err != nil {
		return "", fmt.Errorf("%s must be the web app's address, such as https://library.example.org (https, or http on this machine only)", name)
	}
	return base, nil
}

// paymentsProvider reads PAYMENTS: unset, stripe or off.
func paymentsProvider(name, value string) (string, error) {
	if value == "" {
		return "", nil
	}
	return oneOf("stripe", "off")(name, value)
}
