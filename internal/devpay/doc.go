// Package devpay is a payment provider for local demos and for tests: it speaks the part of
// Stripe's REST API (version stripe.APIVersion of stripe-go v84) that the library's adapter
// uses, keeps everything in memory, and sends Stripe's signed webhooks. It is never for
// production, and it is not Stripe: there are no cards, customers, taxes, prices, charges,
// disputes, payouts or currencies' exchange; a session has no line item objects of its own;
// nothing persists across a restart.
//
// What it promises:
//
//   - The API at /v1, form-encoded as stripe-go sends it and answered with Stripe's JSON
//     objects, for a stripe.Client whose backend URL is the server's: create a Checkout
//     Session in mode payment (POST /v1/checkout/sessions), retrieve one
//     (GET /v1/checkout/sessions/{id}), expire one (POST /v1/checkout/sessions/{id}/expire),
//     refund a payment (POST /v1/refunds), list a payment's refunds
//     (GET /v1/refunds?payment_intent=pi_..., newest first, in Stripe's list object and pages:
//     limit 1 to 100, default 10, and starting_after or ending_before, which stripe-go's list
//     iterator walks), and retrieve a refund (GET /v1/refunds/{id}). Every request needs the
//     secret key, as a Bearer token or as the user name of basic authentication
//     (curl -u sk_test_devpay:); without it the answer is 401. A parameter devpay does not know
//     is refused (400), rather than silently ignored, and so are a refund of more than is left
//     of a payment, a refund of a payment that has not succeeded, and refunds by charge.
//   - A session's expires_at may be from Options.MinExpiry (default 30 minutes, as at Stripe;
//     seconds for tests and demos) to 24 hours from its creation, by default 24 hours.
//   - Errors are Stripe's: {"error": {"type", "message", "param", "code"}}, with the types
//     invalid_request_error (400, 401, 404), idempotency_error (400) and api_error (500).
//   - Idempotency-Key as at Stripe, for the one secret key: the first answer to a POST (once its
//     parameters are valid) is kept 24 hours by the server's clock; the same key with the same
//     method, path and parameters gets that answer again with Idempotent-Replayed: true; with
//     anything else, a 400 idempotency_error.
//   - A hosted checkout page at each session's url (/pay/{id}), plain HTML with no script:
//     Pay completes the session (payment_status paid, a new payment_intent id) and redirects to
//     success_url with {CHECKOUT_SESSION_ID} replaced; Decline shows that the card was declined
//     and leaves the session open; Cancel redirects to cancel_url and leaves it open. Paying a
//     complete session again pays nothing more. Only an open session offers Pay.
//   - Payments as Stripe makes them: a card's succeeds at once; a slow method's (as SEPA
//     debit's, with PayLater) completes the session unpaid, its payment intent processing,
//     until FinishPayment makes it succeed (paid) or fail (unpaid, the intent
//     requires_payment_method). A session retrieved with expand[]=payment_intent shows the
//     intent's status. A refund succeeds at once, or (after PendRefunds) is pending until
//     SettleRefund makes it succeeded, failed or canceled; a pending refund counts against what
//     is left of the payment until it fails or is canceled.
//   - Events checkout.session.completed, checkout.session.async_payment_succeeded,
//     checkout.session.async_payment_failed, checkout.session.expired, refund.created,
//     refund.updated and refund.failed (a refund's events are its session's), sent as
//     Stripe sends them to every configured webhook URL, signed with the webhook secret in
//     Stripe-Signature (t=<unix>,v1=<HMAC-SHA256 of "<t>.<body>">) so that stripe-go's
//     webhook.ConstructEvent accepts them. A delivery answered other than 2xx, or not at all, is
//     tried again after Options.RetryFirst, doubling, up to Options.Attempts tries. By default
//     each URL gets its deliveries one at a time, in the order the events were made.
//   - A session whose expires_at has passed, by Options.Now, expires (and its event is sent)
//     when it is next read or shown, or within Options.SweepEvery.
//   - Test controls, as methods of Server and as an admin API under /_devpay/ that takes the
//     secret key too (admin.go): pay, pay later and then finish (succeeded or failed), decline
//     or expire a session; send each event several times, at once if asked; hold back a
//     session's events (or all), then release them, in order or reversed, or drop them for
//     good; fail the next refund calls with a 500; make the next refunds pending, and settle a
//     pending refund; list the sessions, refunds, events and delivery attempts, and count the
//     API calls made with each idempotency key.
//   - The secret key and the webhook secret are never logged nor shown; the hosted page shows
//     only the amount and what it is for. All methods are safe for concurrent use, and no
//     goroutine of the server outlives Close.
//
// A refund fault made by FailRefunds happens before the endpoint runs, as a failure in front
// of Stripe's API would: nothing is refunded and nothing is kept under the idempotency key, so
// a retry with the same key goes through. (A 500 from inside Stripe's endpoint would be kept
// and replayed; devpay makes none.) stripe-go does not retry an answer with a Stripe error in
// it, a 500 included: each failed call is the caller's to retry.
package devpay
