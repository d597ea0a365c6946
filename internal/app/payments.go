package app

import (
	"library/internal/accounts/accountsapi"
	"library/internal/checkouts"
	"library/internal/payments/stripepay"
	"library/internal/processor"
)

// payments builds what takes fines online (PAYMENTS=stripe): the provider's client and the
// web app's address for the checkout routes; nil with PAYMENTS off. Neither secret is logged.
func (a *App) payments() (*accountsapi.Payments, error) {
	p := a.cfg.Payments
	if !p.On() {
		a.logger.Info("payments: none online (PAYMENTS=off); fines are paid at the desk")
		return nil, nil
	}
	provider, err := stripepay.New(stripepay.Config{SecretKey: p.StripeSecretKey, WebhookSecret: p.StripeWebhookSecret,
		APIURL: p.StripeAPIURL, Logger: a.logger, Now: a.cfg.Tuning.Now})
	if err != nil {
		return nil, err
	}
	a.logger.Info("payments: Stripe", "api", p.StripeAPIURL, "currency", p.Currency, "expires_after", p.ExpiresAfter.String(),
		"reconcile_after", p.ReconcileAfter.String(), "open_max", p.OpenMax)
	return &accountsapi.Payments{Provider: provider, Currency: p.Currency, PublicURL: p.PublicURL,
		ExpiresAfter: p.ExpiresAfter, Now: a.cfg.Tuning.Now}, nil
}

// checkoutsSaga is the saga that reconciles open checkouts and refunds what came for nothing,
// when fines are taken online.
func (a *App) checkoutsSaga(pay *accountsapi.Payments, accounts checkouts.Accounts) []processor.Processor {
	if pay == nil {
		return nil
	}
	saga := checkouts.Saga{Accounts: accounts, Provider: pay.Provider, ReconcileAfter: a.cfg.Payments.ReconcileAfter,
		RefundRecheck: a.cfg.Payments.ReconcileAfter, Now: a.cfg.Tuning.Now}
	return []processor.Processor{saga.Processor()}
}
