// The member's PIN for self-check: typed twice, 4 to 8 digits, sent once per intent with its
// Idempotency-Key (command.js) to PUT /accounts/{id}/pin. The PIN is a secret: the fields are
// password fields, cleared once it is set, and nothing of them is kept in the tab while the
// person signs in again. The service keeps only a hash of it, and says only whether one is set.

import { call, path } from "./api.js";
import { commandForm } from "./command.js";
import { field, h, outcomeRegion } from "./ui.js";

/** PIN_RULE is the rule a PIN follows, in words. */
const PIN_RULE = "4 to 8 digits.";

/** pinProblem says what is wrong with a PIN typed twice, or returns "" when nothing is. */
export function pinProblem(pin, again) {
  if (!/^[0-9]{4,8}$/.test(pin)) return "A PIN is 4 to 8 digits (0 to 9), and nothing else.";
  if (pin !== again) return "The two PINs are not the same: type the same PIN in both fields.";
  return "";
}

/**
 * pinForm is the panel that sets the member's PIN: {section}. onSet() is called once one is
 * set, for the page to read the account again.
 */
export function pinForm(memberId, { signal, onSet }) {
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Set PIN");
  const pinField = (id, name, label, hint) => field({
    id, name, label, hint, type: "password", inputmode: "numeric", autocomplete: "new-password",
    required: true, maxlength: 8, // the rule itself is read() to say, in words
  });
  const form = h("form", {},
    h("div", { class: "fields" },
      pinField("pin-new", "pin", "New PIN", PIN_RULE),
      pinField("pin-again", "again", "New PIN again", "The same PIN, to be sure of it."),
      button),
    outcome, errors);
  commandForm(form, {
    name: `pin:${memberId}`, button, outcome, errors, signal, secret: true,
    read: () => {
      const pin = form.elements.pin.value;
      const problem = pinProblem(pin, form.elements.again.value);
      if (problem) return { error: problem };
      return { pin, pending: "Setting your PIN…" };
    },
    send: ({ pin }, key) => call("PUT", path("accounts", memberId, "pin"), { body: { pin }, headers: { "Idempotency-Key": key }, signal }),
    done: () => "Your PIN is set. Use it with your library card at the self-check kiosk.",
    after: () => {
      form.reset();
      return onSet?.();
    },
    unsure: "Your PIN may or may not have been set. Press Set PIN again: it is sent with the same key, so it is set once.",
    again: "Type your new PIN again, twice, and press Set PIN.",
  });
  return {
    section: h("section", { class: "panel", "aria-labelledby": "pin-heading" },
      h("h2", { id: "pin-heading" }, "PIN for self-check"),
      h("p", {}, "The self-check kiosk asks for your library card and this PIN. Five wrong PINs in a row lock it for 15 minutes."),
      form),
  };
}
