// The payment form, sent the way the service was built for: one Idempotency-Key per payment
// intent, made when the form is first submitted and sent with every attempt of it (command.js).
// The button is disabled while the payment is in flight, and a second submit then (a double
// click, Enter) joins the payment in flight instead of starting another. No answer, a timeout or
// a 503 is sent again with the same key after a backoff; the service records the payment once
// and answers a repeat with the first answer and Idempotent-Replayed: true. For the page's own
// retries that replay is this payment's success, and it says so: "Payment of 3.00 received."
// Only a new payment (the form changed, or submitted again after a definite outcome) gets a new
// key; a payment whose sign-in ended waits, with its key, until the person has signed in again.

import { call, path } from "./api.js";
import { commandForm } from "./command.js";
import { field, formatCents, h, outcomeRegion, parseAmount } from "./ui.js";

/** PAYMENT_ATTEMPTS is how many times one payment is sent before the page stops and says so. */
export const PAYMENT_ATTEMPTS = 6;

/**
 * paymentForm is the "Pay" form of a member's page. onPaid(result) is called after a payment is
 * recorded (or found already recorded).
 */
export function paymentForm(memberId, { signal, onPaid }) {
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Pay");
  const form = h("form", {},
    h("div", { class: "fields" },
      field({ id: "pay-amount", name: "amount", label: "Amount to pay", inputmode: "decimal", required: true, autocomplete: "off", placeholder: "3.50" }),
      button),
    outcome, errors);

  commandForm(form, {
    name: `pay:${memberId}`, button, outcome, errors, signal,
    read: () => {
      const amount = parseAmount(form.elements.amount.value);
      return amount.error ? amount : { cents: amount.cents, pending: `Sending a payment of ${formatCents(amount.cents)}…` };
    },
    send: ({ cents }, key, { onRetry }) => call("POST", path("accounts", memberId, "payments"), {
      body: { amount: cents }, headers: { "Idempotency-Key": key }, attempts: PAYMENT_ATTEMPTS, signal, onRetry,
    }),
    retrying: ({ attempt, error }) => `${error.message} Sending the same payment again (attempt ${attempt + 1} of ${PAYMENT_ATTEMPTS}): ` +
      "it carries the same key, so it can't be paid twice.",
    // A replay answers an attempt of this same payment, so it is this payment's success. Only
    // when the person pressed Pay again after an unknown outcome is there more to say.
    done: (result, { cents }, { resent }) => `Payment of ${formatCents(cents)} received.` +
      (result.replayed && resent ? " The earlier attempt had reached the library: it is recorded once, and nothing more was paid." : ""),
    after: (result) => onPaid?.(result),
    unsure: "The payment may or may not have been recorded. Press Pay again to find out: it is sent with the same key, so it can't be paid twice.",
    again: "Press Pay to send the same payment: it carries the same key as before, so it can't be paid twice.",
  });

  return h("section", { class: "panel", "aria-labelledby": "pay-heading" }, h("h2", { id: "pay-heading" }, "Pay"), form);
}
