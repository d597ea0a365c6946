// Package stripepay adapts Stripe's API (stripe-go, API version stripe.APIVersion,
// 2026-02-25.clover) to payments.Provider: a Checkout Session in payment mode for a checkout,
// read (with its PaymentIntent expanded) and expired; a refund of its PaymentIntent, found again
// among the payment's refunds by the key in its metadata, and read; and Stripe's signed webhooks
// read as notifications.
//
// What it promises:
//
//   - Idempotency: the request's Key (payments.SessionKey, payments.RefundKey) is sent as
//     Stripe's Idempotency-Key, unchanged, so the same key makes one session or one refund at
//     Stripe whatever the retries. stripe-go itself tries a request up to twice more, with the
//     same key, when no answer of Stripe's came back (a network error, an attempt past the HTTP
//     client's timeout, a proxy's error page) or on a 429 lock timeout; a context that ends
//     stops it. Stripe's own error answers, 5xx and 409 included, it returns at once (v84.4.1),
//     so those reach the caller as errs.Unavailable, to try again under the same key.
//   - What Stripe is told: the session carries one line item (price_data: the amount, the
//     currency in lower case, the description as the product's name; quantity 1), the return
//     URLs, the page's expires_at, client_reference_id = the member, and metadata {checkout_id,
//     member_id} on the session and on its PaymentIntent; a refund carries {refund_key,
//     checkout_id, member_id} as metadata. Nothing else of the member's is sent.
//   - What the service is told: a session's member and checkout are its metadata's; its
//     payment is the PaymentIntent's id, whether Stripe sends the id or the expanded object;
//     it is Paid only when complete with payment_status paid (a slow payment method completes
//     the session unpaid), and Failed when complete, unpaid and its PaymentIntent back to
//     requires_payment_method or canceled. A refund's status passes through; only succeeded is
//     money given back. Statuses Stripe adds later pass through as they are.
//   - Errors are the service's own (package errs): Stripe unreachable, slow past the HTTP
//     client's timeout or the context's deadline, failing (5xx), limiting the rate (429) or busy
//     with the same idempotency key (409) is errs.Unavailable, to try again later; a request
//     Stripe refuses for its content (other 4xx, an unknown session included) is
//     errs.InvalidRequest; a refused key (401, 403) or an idempotency key reused with other
//     parameters (idempotency_error) is errs.Internal, a fault of the service's configuration
//     or code. A detail names at most Stripe's error code (amount_too_small); the cause, for
//     the logs, its status, error type, code, parameter name and request id. Neither holds
//     Stripe's message (which can quote the request, the Authorization header included) nor a
//     secret.
//   - A webhook is read only from its raw body once its Stripe-Signature header verifies
//     with the endpoint's signing secret (HMAC-SHA256 over the timestamp and the body) and the
//     signature was made within payments.Tolerance of now, before or after (stripe-go checks
//     only before); anything else is errs.InvalidRequest. The checkout.session.* events carry
//     the session, the refund.* events their refund's id; other events only their id and
//     type, for the caller to acknowledge and ignore. What an event carries is a hint: the
//     service reads the object from Stripe before recording anything (package checkouts).
//   - API versions: requests are pinned to stripe.APIVersion by stripe-go. An event rendered
//     in another release train (the part after the dot: clover, dahlia...) is refused as
//     errs.Internal, naming both versions: stripe-go's types would decode it wrongly, and a
//     payment misread is worse than a payment recorded late. The webhook endpoint must be
//     created with api_version = stripe.APIVersion (see docs/operations.md); Stripe retries a
//     refused event for three days, and reconciliation (Session, through the pinned API)
//     records the payment meanwhile.
//   - No secret is logged or put in an error: Config prints without them, stripe-go logs only
//     its retries through Config.Logger (its other lines can hold whole responses, with the
//     member's details, so they are dropped).
package stripepay
