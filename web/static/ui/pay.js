// The Pay panel of an account, in two kinds. At the desk (a librarian, or anyone while the
// library runs without sign-in) a payment is recorded here: POST /accounts/{id}/payments. A
// member pays online instead: Pay starts a checkout (POST /accounts/{id}/checkouts) and sends
// the browser to the payment provider's page, which sends it back to the checkout's page
// (pages/checkout.js); with payments online off, fines are paid at the desk. A member may have
// only a few checkouts whose pages still take payment: one more is refused (TooManyCheckouts),
// and the panel then lists those, each with its amount, until when its page takes payment, and
// a link back to that page at the provider, where they go on paying.
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
import { clearError, field, formatCents, formatTime, h, nothingToPay, outcomeRegion, parseAmount } from "./ui.js";

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
    ...startingCheckout(memberId, signal),
    name: `checkout:${memberId}`, button, outcome, errors, signal,
    read: () => amountRead(form, (cents) => `Making a payment page for ${formatCents(cents)}…`),
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

/**
 * newCheckoutForm offers a new payment of cents once a checkout ended unpaid (its page expired,
 * pages/checkout.js): one button, which starts a checkout as Pay does, as a new intent with a
 * new Idempotency-Key, and goes to its page. It returns the form with its outcome and alerts.
 */
export function newCheckoutForm(memberId, checkoutId, { signal, cents }) {
  const label = `Start a new payment of ${formatCents(cents)}`;
  const button = h("button", { type: "submit" }, label);
  const form = h("form", {}, button);
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  commandForm(form, {
    ...startingCheckout(memberId, signal),
    name: `checkout-again:${memberId}:${checkoutId}`, button, outcome, errors, signal,
    read: () => ({ cents, pending: `Making a payment page for ${formatCents(cents)}…` }),
    unsure: `The payment page may or may not have been made. Press ${label} again: it carries the same key, so only one is made.`,
    again: `Press ${label} to go on to the payment page: it carries the same key as before, so only one is made.`,
  });
  return h("div", {}, form, outcome, errors);
}

/**
 * startingCheckout is what every form that starts a checkout shares (commandForm's spec): the
 * request under the intent's key, the way to the provider's page it answers with, and what a
 * refusal for too many checkouts shows.
 */
function startingCheckout(memberId, signal) {
  return {
    send: ({ cents }, key, { onRetry }) => call("POST", path("accounts", memberId, "checkouts"), {
      body: { amount: cents }, headers: { "Idempotency-Key": key }, attempts: PAYMENT_ATTEMPTS, signal, onRetry,
    }),
    retrying: ({ attempt, error }) => `${error.message} Asking again (attempt ${attempt + 1} of ${PAYMENT_ATTEMPTS}): ` +
      "it carries the same key, so only one payment page is made.",
    done: () => "Taking you to the payment provider's page…",
    leave: (result) => result.data?.url ?? "",
    back: "Back from the payment provider's page. If you paid there, it shows in your account once the provider has told the library.",
    explain: openCheckoutsNotice,
  };
}

/**
 * openCheckoutsNotice is what a TooManyCheckouts refusal shows instead of a bare error: the
 * payments the member started and did not finish (the problem's openCheckouts), the one whose
 * page stops taking payment soonest first, each with its amount, until when its page takes
 * payment, and a link to go on paying there. It is null for any other error, and for one that
 * names no page to go back to.
 */
function openCheckoutsNotice(err) {
  if (err?.code !== "TooManyCheckouts") return null;
  const ends = (c) => Date.parse(c.expiresAt ?? "") || Infinity;
  const open = (err.problem?.openCheckouts ?? []).filter((c) => /^https?:/.test(String(c?.url ?? "")))
    .sort((a, b) => (ends(a) === ends(b) ? 0 : ends(a) < ends(b) ? -1 : 1));
  if (open.length === 0) return null;
  return h("div", { class: "alert", role: "alert" },
    h("p", {}, "You already have payments started and not finished, as many as can be open at once. " +
      "Go on with one of them on its page, or start a new one once one of those pages no longer takes payment:"),
    h("ul", {}, open.map((c) => h("li", {},
      h("a", { href: c.url }, `Resume the payment of ${formatCents(c.amount)}`),
      c.expiresAt ? `: its page takes payment until ${formatTime(c.expiresAt)}.` : "."))),
    h("p", { class: "code" }, `Code: ${err.code}`));
}
