// The Pay panel of an account, in two kinds. At the desk (a librarian, or anyone while the
// library runs without sign-in) a payment is recorded here: POST /accounts/{id}/payments. A
// member pays online instead: Pay starts a checkout (POST /accounts/{id}/checkouts) and sends
// the browser to the payment provider's page, which sends it back to the checkout's page
// (pages/checkout.js); with payments online off, fines are paid at the desk.
//
// Both are sent the way the service was built for: one Idempotency-Key per intent, made when
// the form is first submitted and sent with every attempt of it (command.js). The button is
// disabled while it is in flight, and a second submit then (a double click, Enter) joins the
// attempt in flight instead of starting another: one payment, or one page at the provider. No
// answer, a timeout or a 503 is sent again with the same key after a backoff; the service
// answers a repeat with the first answer and Idempotent-Replayed: true. Only a new intent (the
// form changed, or submitted again after a definite outcome) gets a new key; one whose sign-in
// ended waits, with its key, until the person has signed in again.
//
// The panel follows the balance its page reads: with nothing owed it says so in one sentence
// and hides the form, and a payment recorded clears the amount. The amount field is empty until
// the person types: the example is a hint beside it, not a placeholder that looks filled in.

import { call, path } from "./api.js";
import { commandForm } from "./command.js";
import { paysOnline } from "./session.js";
import { clearError, field, formatCents, h, nothingToPay, outcomeRegion, parseAmount } from "./ui.js";

/** PAYMENT_ATTEMPTS is how many times one payment is sent before the page stops and says so. */
export const PAYMENT_ATTEMPTS = 6;

/**
 * A pay panel is {section, show(balance)}: show(cents) after every read of the account, with
 * null when the balance could not be read (the form is shown; the service decides). A refusal
 * for nothing to pay gives way to the panel's own sentence once the balance is read again, so
 * that it is said once.
 */
function payPanel({ hint }) {
  const heading = h("h2", { id: "pay-heading" }, "Pay");
  const nothing = h("p", { class: "nothing-to-pay", tabindex: -1, hidden: true });
  const button = h("button", { type: "submit" }, "Pay");
  const form = h("form", { hidden: true },
    h("div", { class: "fields" },
      field({ id: "pay-amount", name: "amount", label: "Amount to pay", inputmode: "decimal", required: true, autocomplete: "off", hint }),
      button));
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const section = h("section", { class: "panel", "aria-labelledby": "pay-heading" }, heading, nothing, form, outcome, errors);
  return {
    section, form, button, outcome, errors, nothing,
    nothingRefused: false,
    refused(err) {
      this.nothingRefused = err?.code === "NothingToPay";
    },
    show(balance) {
      const owes = balance == null || balance > 0;
      if (!owes) form.reset();
      if (!owes && this.nothingRefused) clearError(errors);
      this.nothingRefused = false;
      form.hidden = !owes;
      nothing.hidden = owes;
      nothing.textContent = owes ? "" : nothingToPay(balance);
    },
  };
}

/** amountRead reads the form's amount: {cents, pending}, or {error}. */
function amountRead(form, pending) {
  const amount = parseAmount(form.elements.amount.value);
  return amount.error ? amount : { cents: amount.cents, pending: pending(amount.cents) };
}

/**
 * paymentForm is the desk's Pay panel: a payment recorded at once. onPaid(result) is called
 * after a payment is recorded (or found already recorded), and after a refusal, so that the
 * page reads the account again.
 */
export function paymentForm(memberId, { signal, onPaid }) {
  const panel = payPanel({ hint: "For example 3.50." });
  const { form, button, outcome, errors } = panel;
  commandForm(form, {
    name: `pay:${memberId}`, button, outcome, errors, signal,
    read: () => amountRead(form, (cents) => `Sending a payment of ${formatCents(cents)}…`),
    send: ({ cents }, key, { onRetry }) => call("POST", path("accounts", memberId, "payments"), {
      body: { amount: cents }, headers: { "Idempotency-Key": key }, attempts: PAYMENT_ATTEMPTS, signal, onRetry,
    }),
    retrying: ({ attempt, error }) => `${error.message} Sending the same payment again (attempt ${attempt + 1} of ${PAYMENT_ATTEMPTS}): ` +
      "it carries the same key, so it can't be paid twice.",
    // A replay answers an attempt of this same payment, so it is this payment's success. Only
    // when the person pressed Pay again after an unknown outcome is there more to say.
    done: (result, { cents }, { resent }) => `Payment of ${formatCents(cents)} received.` +
      (result.replayed && resent ? " The earlier attempt had reached the library: it is recorded once, and nothing more was paid." : ""),
    after: (result) => {
      form.reset();
      return onPaid?.(result);
    },
    failed: (err) => {
      panel.refused(err);
      return err?.definite && onPaid?.(null);
    },
    focus: () => panel.nothing,
    unsure: "The payment may or may not have been recorded. Press Pay again to find out: it is sent with the same key, so it can't be paid twice.",
    again: "Press Pay to send the same payment: it carries the same key as before, so it can't be paid twice.",
  });
  return panel;
}

/**
 * checkoutForm is a member's own Pay panel: Pay makes a page at the payment provider for the
 * amount, and goes there. onRefused() is called after a refusal (nothing to pay any more, say),
 * so that the page reads the account again. With payments online off it says where fines are
 * paid instead.
 */
export function checkoutForm(memberId, { signal, onRefused }) {
  if (!paysOnline()) {
    return {
      section: h("section", { class: "panel", "aria-labelledby": "pay-heading" },
        h("h2", { id: "pay-heading" }, "Pay"), h("p", {}, "Fines are paid at the library's desk.")),
      show() {},
    };
  }
  const panel = payPanel({ hint: "For example 3.50: at most what you owe. You pay on the payment provider's page." });
  const { form, button, outcome, errors } = panel;
  commandForm(form, {
    name: `checkout:${memberId}`, button, outcome, errors, signal,
    read: () => amountRead(form, (cents) => `Making a payment page for ${formatCents(cents)}…`),
    send: ({ cents }, key, { onRetry }) => call("POST", path("accounts", memberId, "checkouts"), {
      body: { amount: cents }, headers: { "Idempotency-Key": key }, attempts: PAYMENT_ATTEMPTS, signal, onRetry,
    }),
    retrying: ({ attempt, error }) => `${error.message} Asking again (attempt ${attempt + 1} of ${PAYMENT_ATTEMPTS}): ` +
      "it carries the same key, so only one payment page is made.",
    done: () => "Taking you to the payment provider's page…",
    leave: (result) => result.data?.url ?? "",
    back: "Back from the payment provider's page. If you paid there, it shows in your account once the provider has told the library.",
    failed: (err) => {
      panel.refused(err);
      return err?.definite && onRefused?.();
    },
    focus: () => panel.nothing,
    unsure: "The payment page may or may not have been made. Press Pay again: it carries the same key, so only one is made.",
    again: "Press Pay to go on to the payment page: it carries the same key as before, so only one is made.",
  });
  return panel;
}
