// Small helpers for building pages: elements, messages people can read, amounts and dates.

/**
 * h makes an element. props are attributes, except: on* (event listeners), and true/false/null
 * values (a boolean attribute set or left out). children are nodes or strings.
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (name.startsWith("on") && typeof value === "function") {
      el.addEventListener(name.slice(2), value);
    } else if (value === true) {
      el.setAttribute(name, "");
    } else if (value !== false && value != null) {
      el.setAttribute(name, String(value));
    }
  }
  el.append(...children.flat().filter((c) => c != null && c !== false));
  return el;
}

/** field is a labelled input: {id, label, ...attributes of the input}, and an optional hint. */
export function field({ id, label, hint, wide = false, tag = "input", options, ...attrs }) {
  const hintId = hint ? `${id}-hint` : null;
  const control = tag === "select"
    ? h("select", { id, name: attrs.name ?? id, ...attrs }, ...options.map(([value, text]) => h("option", { value }, text)))
    : h(tag, { id, name: attrs.name ?? id, "aria-describedby": hintId, ...attrs });
  return h("div", { class: wide ? "field wide" : "field" },
    h("label", { for: id }, label),
    control,
    hint ? h("p", { class: "hint", id: hintId }, hint) : null);
}

/** outcomeRegion is a polite live region for what a form did. */
export function outcomeRegion() {
  return h("p", { class: "outcome", role: "status" });
}

/** setOutcome shows text in an outcome region; pending marks work still under way. */
export function setOutcome(region, text, { pending = false } = {}) {
  region.classList.toggle("pending", pending);
  region.textContent = text;
}

/**
 * errorAlert is an error as people read it: a sentence, the problem's code (and request id when
 * the service failed), and a "Try again" button when retry is given.
 */
export function errorAlert(err, { retry, retryLabel = "Try again", extra } = {}) {
  const message = err?.message ? String(err.message) : "Something went wrong in this page.";
  const details = [];
  if (err?.code) details.push(`Code: ${err.code}`);
  if (err?.requestId) details.push(`request id: ${err.requestId}`);
  return h("div", { class: "alert", role: "alert" },
    h("p", {}, message),
    extra ? h("p", {}, extra) : null,
    details.length ? h("p", { class: "code" }, details.join(" · ")) : null,
    retry ? h("button", { type: "button", class: "secondary", onclick: retry }, retryLabel) : null);
}

/** showError replaces what slot shows with an error alert; clearError empties it. */
export function showError(slot, err, options) {
  slot.replaceChildren(errorAlert(err, options));
}

export function clearError(slot) {
  slot.replaceChildren();
}

const money = new Intl.NumberFormat(undefined, { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** formatCents shows cents as an amount: 1234 → "12.34". */
export function formatCents(cents) {
  return money.format(Number(cents) / 100);
}

/** balanceText says what a balance in cents means: owed, in credit, or nothing. */
export function balanceText(cents) {
  if (cents > 0) return `${formatCents(cents)} owed`;
  if (cents < 0) return `${formatCents(-cents)} in credit`;
  return "Nothing owed";
}

/** nothingToPay says, in one sentence, why there is nothing to pay on a balance of 0 or less. */
export function nothingToPay(cents) {
  return cents < 0
    ? `Nothing to pay: the account is ${formatCents(-cents)} in credit.`
    : `Nothing to pay: the balance is ${formatCents(0)}.`;
}

/** MAX_CENTS is the largest amount the API takes. */
const MAX_CENTS = 100000000;

/**
 * parseAmount reads an amount such as "3", "3.5" or "3.50" into cents, or returns an error
 * sentence.
 */
export function parseAmount(text) {
  const s = String(text).trim().replace(",", ".");
  const m = /^(\d{1,7})(?:\.(\d{1,2}))?$/.exec(s);
  if (!m) return { error: "Enter an amount such as 3.50." };
  const cents = Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
  if (cents < 1 || cents > MAX_CENTS) return { error: `Enter an amount from 0.01 to ${formatCents(MAX_CENTS)}.` };
  return { cents };
}

const dayFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/** formatDay shows an RFC 3339 time as a day; formatTime as a day and time. */
export function formatDay(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : dayFormat.format(d);
}

export function formatTime(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? String(iso) : timeFormat.format(d);
}

/** listText joins names as people write them: "A", "A and B", "A, B and C". */
export function listText(names) {
  if (names.length < 2) return names.join("");
  return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** ID_PATTERN is the API's identifier rule, for input patterns. */
export const ID_PATTERN = "[A-Za-z0-9][A-Za-z0-9._:@+\\-]{0,127}";

/** ID_HINT says the identifier rule in words. */
export const ID_HINT = "Letters, digits and . _ : @ + - (starting with a letter or digit).";

/** refocus puts focus back on el when an update left it nowhere (on the page's body). */
export function refocus(el) {
  if (!document.activeElement || document.activeElement === document.body) el.focus();
}
