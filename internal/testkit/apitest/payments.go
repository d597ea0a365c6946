package apitest

import (
	"library/internal/app"
	"library/internal/testkit/paytest"
)

// WithPayments is cfg taking fines online through p (devpay, as Stripe), with the web app at
// publicURL. Point p's webhooks at the service once it has an address (SetWebhookURLs).
func WithPayments(cfg app.Config, p *paytest.Provider, publicURL string) app.Config {
	cfg.Payments.Provider = "stripe"
	cfg.Payments.StripeSecretKey, cfg.Payments.StripeWebhookSecret = p.SecretKey(), p.WebhookSecret()
	cfg.Payments.StripeAPIURL, cfg.Payments.PublicURL = p.URL(), publicURL
	return cfg
}
