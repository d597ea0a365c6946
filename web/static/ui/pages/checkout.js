// The page the payment provider sends a member back to: #/checkouts/{memberId}/{checkoutId},
// with ?cancelled=1 when they cancelled there. Coming back says nothing about the money: only
// the service knows, once the provider has told it (its webhook, or the service asking), so the
// page follows GET /accounts/{memberId}/checkouts/{checkoutId} and says "paid" only once the
// service does, and never before. It looks every POLL_EVERY_MS for up to POLL_FOR_MS, then
// offers to look again. A payment that came when nothing was owed any more (two tabs paying one
// fine) is given back, and the page says so.
//
// A checkout's page takes payment until its expiresAt. Cancelled, the page offers the way back
// to it, and says until when; it goes on following the checkout (every WATCH_EVERY_MS until the
// page's time is up), since the member may still pay there, or the page expire. A checkout that
// ended unpaid (its page expired, or the payment failed) is said plainly, and the member is
// offered a new payment of what it was for, or of what is still owed when that is less: a new
// intent, with a new Idempotency-Key, as a new click on Pay is (pay.js).
//
// The page is a new load of the app, and the sign-in lived in the old one's memory: a member who
// comes back signed out is sent to sign in at once, and comes back here.

import { call, path } from "../api.js";
import { offLimits } from "../masthead.js";
import { newCheckoutForm } from "../pay.js";
import { can, isOpen, me, paysOnline, problem, signedIn, signIn, signInAvailable } from "../session.js";
import { clearError, formatCents, formatTime, h, nothingToPay, setOutcome, showError } from "../ui.js";

/** POLL_EVERY_MS is how often the page asks the service about the checkout. */
export const POLL_EVERY_MS = 500;

/** POLL_FOR_MS is how long it asks before it stops and offers "Check again". */
export const POLL_FOR_MS = 60 * 1000;

/** WATCH_EVERY_MS is how often it asks about a cancelled checkout whose page still takes payment. */
export const WATCH_EVERY_MS = 10 * 1000;

const TITLE = "Your payment";

export async function render(main, { params: [memberId, checkoutId], query, signal }) {
  document.title = `${TITLE} · Library`;
  if (signInAvailable() && !signedIn()) {
    await signInFirst(main);
    return;
  }
  const view = {
    memberId, checkoutId, signal, cancelled: query.get("cancelled") === "1",
    state: h("p", { class: "outcome", role: "status" }),
    next: h("div", { class: "next-step" }),
    errors: h("div", { class: "alert-slot" }),
    said: "",
    wayBack: null, // what the way back to the provider's page shows, to redraw it only when it changes
    again: h("section", { class: "panel", "aria-labelledby": "again-heading", hidden: true }),
  };
  main.append(
    h("h1", { tabindex: -1 }, TITLE),
    h("section", { class: "panel", "aria-labelledby": "checkout-heading" },
      h("h2", { id: "checkout-heading" }, "Payment online"),
      view.state, view.next, view.errors,
      h("p", {}, backLink(memberId))),
    view.again);
  await follow(view);
}

/**
 * signInFirst sends the person to sign in, back to this page, unless a sign-in has just failed
 * (the masthead says why): then it asks them to sign in, with the masthead's button.
 */
async function signInFirst(main) {
  const text = "Sign in to see how your payment went: the library keeps it whether or not this page shows it.";
  if (problem() !== "") {
    offLimits(main, { title: TITLE, text });
    return;
  }
  main.append(h("h1", { tabindex: -1 }, TITLE), h("p", { class: "outcome pending", role: "status" }, "Signing you in to see how your payment went…"));
  try {
    await signIn(location.hash, { replace: true });
  } catch (err) {
    main.replaceChildren();
    offLimits(main, { title: TITLE, text });
    main.append(h("div", { class: "alert-slot" }, h("div", { class: "alert", role: "alert" }, h("p", {}, err.message))));
  }
}

/** backLink leads to the account the checkout paid: the member's own page, or the desk's. */
function backLink(memberId) {
  if (can("account") && me()?.memberId === memberId) return h("a", { href: "#/account" }, "Back to your account");
  return h("a", { href: `#/members/${encodeURIComponent(memberId)}` }, `Back to ${memberId}'s account`);
}

/**
 * follow asks about the checkout until it says how it ended, or POLL_FOR_MS has passed (for a
 * cancelled checkout, POLL_FOR_MS after its page's time is up).
 */
async function follow(view) {
  const { signal } = view;
  let until = Date.now() + POLL_FOR_MS;
  view.next.replaceChildren();
  view.wayBack = null;
  view.again.replaceChildren();
  view.again.hidden = true;
  for (;;) {
    let checkout = null;
    try {
      ({ data: checkout } = await call("GET", path("accounts", view.memberId, "checkouts", view.checkoutId), { signal, attempts: 1 }));
      clearError(view.errors);
    } catch (err) {
      if (signal.aborted) return;
      if (err.definite) { // refused (not found, not theirs, signed out): asking again won't change it
        say(view, "");
        showError(view.errors, err, { retry: () => follow(view) });
        return;
      }
      // No answer for now: the next look may get one. Said once, not at every look.
      if (!view.errors.hasChildNodes()) showError(view.errors, err);
    }
    if (checkout && show(view, checkout)) return;
    const ends = expiry(checkout);
    if (view.cancelled && ends) until = Math.max(until, ends + POLL_FOR_MS);
    if (Date.now() >= until) break;
    // Cancelled, with its page still taking payment: looked at less often, until its time is up.
    const left = view.cancelled ? ends - Date.now() : 0;
    try {
      await sleep(left > 0 ? Math.min(Math.max(left, POLL_EVERY_MS), WATCH_EVERY_MS) : POLL_EVERY_MS, signal);
    } catch {
      return; // the page was left
    }
  }
  say(view, "The payment provider has not told the library yet how this payment went. It may take a few minutes: " +
    "the library records it as soon as it hears, and nothing is paid twice.");
  view.wayBack = null;
  view.next.replaceChildren(h("button", { type: "button", class: "secondary", onclick: () => follow(view) }, "Check again"));
}

/** expiry is when an open checkout's page stops taking payment, in ms, or 0 when not known. */
function expiry(c) {
  const at = c?.status === "open" ? Date.parse(c.expiresAt ?? "") : NaN;
  return Number.isNaN(at) ? 0 : at;
}

/** show says where the checkout is, and whether that is the end of it (true) or not yet. */
function show(view, c) {
  if (c.status === "paid") return showPaid(view, c);
  if (c.status === "expired" || c.status === "failed") {
    say(view, c.status === "expired"
      ? "This payment page expired before it was paid: nothing was paid."
      : "This payment failed: nothing was paid.");
    view.next.replaceChildren();
    view.wayBack = null;
    offerAgain(view, c);
    return true;
  }
  if (view.cancelled) {
    say(view, "Cancelled: nothing was paid.");
    showWayBack(view, c);
    return expiry(c) === 0; // with an expiry, it may still be paid there, or expire: followed until then
  }
  say(view, "Waiting for the payment provider…", { pending: true });
  return false;
}

/**
 * showWayBack offers the way back to a cancelled checkout's page at the provider, and until when
 * it takes payment; once that time is up, it says so instead. It is redrawn only when it
 * changes, so that the link keeps its focus across looks.
 */
function showWayBack(view, c) {
  const ends = expiry(c);
  const open = /^https?:/.test(c.url ?? "") && !(ends && ends <= Date.now());
  const until = open && ends ? ` It takes payment until ${formatTime(c.expiresAt)}.` : "";
  const shows = open ? `${c.url}${until}` : "";
  if (view.wayBack === shows) return;
  view.wayBack = shows;
  view.next.replaceChildren(open
    ? h("p", {}, h("a", { href: c.url }, "Go back to the payment page"), until)
    : h("p", {}, "The payment page no longer takes payment."));
}

/**
 * offerAgain offers the member a new payment once a checkout ended unpaid: of what the checkout
 * was for, or of what is still owed when that is less, as the account says now; nothing when
 * nothing is owed. Only a member paying their own account is offered it (anyone, when the library
 * runs without sign-in), and only when the library takes payments online.
 */
async function offerAgain(view, c) {
  const { memberId, checkoutId, signal } = view;
  if (!paysOnline() || !(isOpen() || (can("account") && me()?.memberId === memberId))) return;
  let balance = null;
  try {
    ({ data: { balance } } = await call("GET", path("accounts", memberId), { signal }));
  } catch {
    if (signal.aborted) return;
    balance = null; // not known: offer what the checkout was for, and let the service decide
  }
  const heading = h("h2", { id: "again-heading" }, "Pay again");
  const owed = typeof balance === "number";
  if (owed && balance <= 0) {
    view.again.replaceChildren(heading, h("p", {}, nothingToPay(balance)));
  } else {
    view.again.replaceChildren(heading,
      owed ? h("p", {}, `You still owe ${formatCents(balance)}.`) : null,
      newCheckoutForm(memberId, checkoutId, { signal, cents: owed ? Math.min(c.amount, balance) : c.amount }));
  }
  view.again.hidden = false;
}

/**
 * showPaid says a paid checkout, and what of it is given back: a payment that came when less
 * was owed. It is the end once nothing more is to be given back.
 */
function showPaid(view, c) {
  const paid = `Paid: ${formatCents(c.amount)}.`;
  const due = Number(c.refundDue ?? 0);
  const back = Number(c.refunded ?? 0);
  if (due <= 0 && back <= 0) {
    say(view, paid);
    return true;
  }
  const why = due + back >= c.amount ? "You paid twice" : "You paid more than you owed";
  if (due > 0) {
    say(view, `${paid} ${why}: ${formatCents(due)} is being given back.`, { pending: true });
    return false;
  }
  say(view, `${paid} ${why}: ${formatCents(back)} was given back.`);
  return true;
}

/** say puts text in the page's status region, only when it changed: it is announced each time. */
function say(view, text, { pending = false } = {}) {
  if (view.said === text) return;
  view.said = text;
  setOutcome(view.state, text, { pending });
}

/** sleep waits ms, or throws when signal ends first. */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const stop = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", stop);
      resolve();
    }, ms);
    signal.addEventListener("abort", stop, { once: true });
  });
}
