// The payment form, sent the way the service was built for: one Idempotency-Key per payment
// intent, made when the form is first submitted and sent with every attempt of it. The button is
// disabled while the payment is in flight, and a second submit then (a double click, Enter)
// joins the payment in flight instead of starting another. No answer, a timeout or a 503 is sent
// again with the same key after a backoff; the service records the payment once and answers a
// repeat with the first answer and Idempotent-Replayed: true, which the outcome reports as a
// payment already made. The outcome is shown once. Only a new payment (the form changed, or
// submitted again after a definite outcome) gets a new key.

import { call, path, wrote } from "./api.js";
import { Intent } from "./intent.js";
import { clearError, field, formatCents, h, outcomeRegion, parseAmount, refocus, setOutcome, showError } from "./ui.js";

/** PAYMENT_ATTEMPTS is how many times one payment is sent before the page stops and says so. */
export const PAYMENT_ATTEMPTS = 6;

/**
 * paymentForm is the "Pay" form of a member's page. onPaid(result) is called after a payment is
 * recorded (or found already recorded).
 */
export function paymentForm(memberId, { signal, onPaid }) {
  const intent = new Intent();
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Pay");
  const form = h("form", { oninput: () => intent.reset() },
    h("div", { class: "fields" },
      field({ id: "pay-amount", name: "amount", label: "Amount to pay", inputmode: "decimal", required: true, autocomplete: "off", placeholder: "3.50" }),
      button),
    outcome, errors);

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (intent.busy) return; // the payment in flight goes on, under its key; nothing new is sent
    const amount = parseAmount(form.elements.amount.value);
    if (amount.error) {
      setOutcome(outcome, "");
      showError(errors, { message: amount.error });
      return;
    }
    button.disabled = true;
    form.elements.amount.readOnly = true; // the intent's payload can't change while it is sent
    clearError(errors);
    setOutcome(outcome, `Sending a payment of ${formatCents(amount.cents)}…`, { pending: true });
    try {
      const result = await intent.run((key) => call("POST", path("accounts", memberId, "payments"), {
        body: { amount: amount.cents },
        headers: { "Idempotency-Key": key },
        attempts: PAYMENT_ATTEMPTS,
        signal,
        onRetry: ({ attempt, error }) => setOutcome(outcome,
          `${error.message} Sending the same payment again (attempt ${attempt + 1} of ${PAYMENT_ATTEMPTS}): ` +
          "it carries the same key, so it can't be paid twice.", { pending: true }),
      }));
      wrote(result.data);
      setOutcome(outcome, result.replayed
        ? `This payment of ${formatCents(amount.cents)} was already made: it is recorded once, and nothing more was paid.`
        : `Payment of ${formatCents(amount.cents)} received.`);
      onPaid?.(result);
    } catch (err) {
      if (signal.aborted) return;
      setOutcome(outcome, "");
      showError(errors, err, {
        extra: err.definite ? null
          : "The payment may or may not have been recorded. Press Pay again to find out: it is sent with the same key, so it can't be paid twice.",
      });
    } finally {
      button.disabled = false;
      form.elements.amount.readOnly = false;
      refocus(button);
    }
  });

  return h("section", { class: "panel", "aria-labelledby": "pay-heading" }, h("h2", { id: "pay-heading" }, "Pay"), form);
}
