// A form that sends one command per intent: the scaffolding every form that changes something
// shares. The form's first submit makes the intent's Idempotency-Key (intent.js), and every
// attempt of it carries that key: a double click or a second Enter joins the attempt in flight,
// and a retry after no answer can't do it twice. The button is disabled and the fields are
// read-only while it is in flight, and the outcome is said once. A 401 (the sign-in ended, or
// its token was refused) keeps the intent: the form's name, values and key wait in this tab
// while the person signs in again, and come back into the same form afterwards, so that
// pressing its button again sends the same intent under the same key. A command whose answer
// names a page to go on to (a payment provider's) leaves for it with the form still locked, so
// that nothing more is sent from a page on its way out.

import { wrote } from "./api.js";
import { Intent, savePending, takePending } from "./intent.js";
import { lastMember, signIn, signInAvailable } from "./session.js";
import { clearError, refocus, setOutcome, showError } from "./ui.js";

/**
 * commandForm makes form send a command. spec:
 *   name: which form this is, the same on every visit ("pay:alice"), for the sign-in round trip;
 *   button, outcome, errors: its submit button, outcome region and alert slot; signal: the page's;
 *   read(): the command's input from the form, with pending (what to say while it is sent), or
 *     {error};
 *   send(input, key, {onRetry}): the request, under the intent's key;
 *   done(result, input, {resent}): what to say once it is recorded (resent: the key was used
 *     before this submit);
 *   after(result, input), failed(err): what else to do then (optional);
 *   explain(err): what to show for an error instead of its alert, or null (optional);
 *   leave(result): the http(s) address to go on to once it is recorded, instead of after
 *     (optional); back: what to say if the person comes Back to this page from there;
 *   focus(): where focus goes when the button is hidden once it is done (optional);
 *   retrying({attempt, error}): what to say before a retry (optional);
 *   unsure: what to add when the outcome is not known (no answer in the end, or 5xx);
 *   again: what to say when the intent is back after a sign-in ("Press Pay to …");
 *   secret: the form's values are secrets (a PIN): they are never kept for the sign-in round
 *     trip, only the intent's key, and the person types them again (optional).
 * It returns the form's Intent.
 */
export function commandForm(form, spec) {
  const { name, button, outcome, errors, signal } = spec;
  const intent = new Intent();
  let leaving = false;
  form.addEventListener("input", () => intent.reset());
  // Back from the page it left for, restored as it was (the back/forward cache): usable again.
  window.addEventListener("pageshow", (event) => {
    if (!event.persisted || !leaving) return;
    leaving = false;
    lock(form, button, false);
    setOutcome(outcome, spec.back ?? "");
  }, { signal });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (intent.busy) return; // the attempt in flight goes on, under its key; nothing new is sent
    const input = spec.read();
    if (input.error) {
      setOutcome(outcome, "");
      showError(errors, { message: input.error });
      return;
    }
    const resent = intent.key !== "";
    lock(form, button, true);
    clearError(errors);
    setOutcome(outcome, input.pending, { pending: true });
    try {
      const result = await intent.run((key) => spec.send(input, key, {
        onRetry: (retry) => setOutcome(outcome, spec.retrying?.(retry) ?? `${retry.error.message} Trying again…`, { pending: true }),
      }));
      wrote(result.data);
      setOutcome(outcome, spec.done(result, input, { resent }));
      const away = spec.leave?.(result);
      if (away !== undefined) {
        location.assign(webAddress(away));
        leaving = true;
        return;
      }
      await spec.after?.(result, input);
    } catch (err) {
      if (signal.aborted) return;
      setOutcome(outcome, "");
      if (err?.signInNeeded && signInAvailable()) {
        keepForSignIn(form, name, intent, errors, err, button.textContent, spec.secret);
        return;
      }
      const explained = spec.explain?.(err);
      if (explained) errors.replaceChildren(explained);
      else showError(errors, err, { extra: err?.definite ? null : spec.unsure });
      await spec.failed?.(err);
    } finally {
      if (!leaving) {
        lock(form, button, false);
        const shown = button.isConnected && !button.closest("[hidden]");
        refocus(shown ? button : spec.focus?.() ?? document.getElementById("main"));
      }
    }
  });
  resume(form, spec, intent);
  return intent;
}

/** webAddress is address when it is an absolute http(s) URL; anything else is refused. */
function webAddress(address) {
  let url = null;
  try {
    url = new URL(String(address));
  } catch {
    url = null;
  }
  if (url?.protocol !== "https:" && url?.protocol !== "http:") {
    // definite: nothing more can come of it, and the page's way on was never taken
    throw Object.assign(new Error("The service's answer has no web address to go on to: nothing was paid. Tell the library."), { definite: true });
  }
  return url.href;
}

/** lock makes the form's fields read-only, and its button disabled, while an attempt is in flight. */
function lock(form, button, on) {
  button.disabled = on;
  for (const el of form.elements) {
    if (el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement) el.readOnly = on;
  }
}

/**
 * keepForSignIn saves the intent for after a sign-in, and asks the person to sign in again. A
 * secret form's values are not saved: sessionStorage is no place for a PIN.
 */
function keepForSignIn(form, name, intent, errors, err, label, secret) {
  const values = {};
  if (!secret) for (const [field, value] of new FormData(form)) if (typeof value === "string") values[field] = value;
  savePending({ form: name, values, key: intent.key, by: lastMember() });
  showError(errors, err, {
    extra: secret
      ? `Sign in again, then type it again and press ${label}.`
      : `Sign in again, then press ${label} once more: it is kept, with its key, so it is done only once.`,
    retry: () => signIn().catch((e) => showError(errors, e)),
    retryLabel: "Sign in again",
  });
}

/** resume puts back the intent that waited for a sign-in, if it is this form's and this person's. */
function resume(form, spec, intent) {
  const saved = takePending(spec.name, lastMember());
  if (!saved) return;
  for (const [field, value] of Object.entries(saved.values)) {
    const el = form.elements.namedItem(field);
    if (el && "value" in el) el.value = value;
  }
  intent.adopt(saved.key);
  setOutcome(spec.outcome, `You are signed in again. ${spec.again}`);
}
