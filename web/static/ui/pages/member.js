// A member, as a librarian sees them: their account (open it, or change its name and email), the
// balance, their library card (give one, or another), their loans with Renew (loans.js), their
// holds with Lend and Cancel (holds.js), a fine to charge, a payment (see pay.js) and the
// account's history. Their PIN is theirs alone to set (on their own page). Anyone else is sent to
// their own account (account.js), or told that the page is for librarians.

import { call, path } from "../api.js";
import { commandForm } from "../command.js";
import { holdsPanel } from "../holds.js";
import { accountFacts, historyPanel } from "../ledger.js";
import { loansPanel } from "../loans.js";
import { offLimits } from "../masthead.js";
import { paymentForm } from "../pay.js";
import { can, me } from "../session.js";
import { clearError, field, formatCents, h, outcomeRegion, parseAmount, showError } from "../ui.js";

export async function render(main, { params: [memberId], signal }) {
  if (!can("desk")) {
    if (memberId === me()?.memberId) {
      location.replace("#/account");
      return;
    }
    offLimits(main, { title: "Members", text: "Members' pages are for librarians. Your own account is under My account." });
    return;
  }
  document.title = `Member ${memberId} · Library`;
  const page = {
    memberId, signal,
    heading: h("h1", { tabindex: -1 }, `Member ${memberId}`),
    summary: h("section", { class: "panel", "aria-labelledby": "account-heading" }),
    errors: h("div", { class: "alert-slot" }),
    account: null,
    history: historyPanel(memberId, { signal }),
    loans: loansPanel(memberId, { signal, title: "Loans", empty: "No books on loan to this member." }),
  };
  page.holds = holdsPanel(memberId, { signal, title: "Holds", empty: "This member waits for no book.", desk: true, onLent: () => page.loans.refresh() });
  page.contact = contactForm(page);
  page.card = cardForm(page);
  page.pay = paymentForm(memberId, { signal, onPaid: () => refresh(page) });
  main.append(
    page.heading,
    h("p", { class: "lede" }, "The member's account: their loans and holds, what they owe, fines and payments."),
    page.errors,
    page.summary,
    page.loans.section,
    page.holds.section,
    h("div", { class: "columns" },
      page.pay.section,
      fineForm(page),
      page.contact.section,
      page.card.section),
    page.history.section);
  await Promise.all([refresh(page), page.loans.refresh(), page.holds.refresh()]);
}

/** refresh reads the account (from its own events: always the latest) and shows it. */
async function refresh(page) {
  const { memberId, signal } = page;
  try {
    const { data } = await call("GET", path("accounts", memberId), { signal });
    page.account = data;
    clearError(page.errors);
  } catch (err) {
    if (signal.aborted) return;
    if (err.code !== "NotFound") {
      page.pay.show(null);
      showError(page.errors, err, { retry: () => { clearError(page.errors); refresh(page); } });
      return;
    }
    page.account = null;
    clearError(page.errors);
  }
  page.pay.show(page.account?.balance ?? 0);
  showSummary(page);
  page.contact.fill(page.account);
  page.card.fill(page.account);
  await page.history.refresh();
}

function showSummary({ summary, heading, account, memberId }) {
  const title = h("h2", { id: "account-heading" }, "Account");
  if (!account) {
    summary.replaceChildren(title, h("p", {}, `${memberId} has no account yet. Open it with their name and email below.`));
    return;
  }
  if (account.name) {
    heading.textContent = account.name;
    document.title = `${account.name} · Library`;
  }
  summary.replaceChildren(title, ...accountFacts(account));
}

/** contactForm opens the account or changes its name and email. */
function contactForm(page) {
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Save account");
  const form = h("form", {},
    h("div", { class: "fields" },
      field({ id: "account-name", name: "name", label: "Name", required: true, wide: true, autocomplete: "off" }),
      field({ id: "account-email", name: "email", label: "Email", type: "email", wide: true, autocomplete: "off", hint: "For loan emails; may be left empty." }),
      button),
    outcome, errors);
  commandForm(form, {
    name: `contact:${page.memberId}`, button, outcome, errors, signal: page.signal,
    read: () => {
      const email = form.elements.email.value.trim();
      return { body: { name: form.elements.name.value.trim(), email: email === "" ? null : email }, pending: "Saving…" };
    },
    // PUT sets the account to this name and email: sending it again changes nothing more.
    send: ({ body }, key) => call("PUT", path("accounts", page.memberId), { body, headers: { "Idempotency-Key": key }, signal: page.signal }),
    done: (result) => result.status === 201 ? "Account saved." : "Nothing to change: the account already says that.",
    after: () => refresh(page),
    again: "Press Save account to save it.",
  });
  const heading = h("h2", { id: "contact-heading" }, "Open the account");
  return {
    section: h("section", { class: "panel", "aria-labelledby": "contact-heading" }, heading, form),
    fill(account) {
      heading.textContent = account?.name ? "Name and email" : "Open the account";
      if (account?.name && form.elements.name.value === "") form.elements.name.value = account.name;
      if (account?.email && form.elements.email.value === "") form.elements.email.value = account.email;
    },
  };
}

/**
 * cardForm gives the member a library card, or another: the number on the card, as scanned or
 * typed (the service keeps it in capitals). A number another member has is refused, and says
 * whose it is.
 */
function cardForm(page) {
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Save card");
  const form = h("form", {},
    h("div", { class: "fields" },
      field({
        id: "card-number-field", name: "cardNumber", label: "Card number", required: true, maxlength: 32, autocomplete: "off",
        hint: "Up to 32 letters, digits and hyphens, as printed on the card.",
      }),
      button),
    outcome, errors);
  commandForm(form, {
    name: `card:${page.memberId}`, button, outcome, errors, signal: page.signal,
    read: () => {
      const cardNumber = form.elements.cardNumber.value.trim();
      if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/.test(cardNumber)) {
        return { error: "A card number is 1 to 32 letters, digits and hyphens, starting with a letter or digit." };
      }
      return { cardNumber, pending: "Saving the card…" };
    },
    // PUT sets the member's card to this number: sending it again changes nothing more.
    send: ({ cardNumber }, key) => call("PUT", path("accounts", page.memberId, "card"), {
      body: { cardNumber }, headers: { "Idempotency-Key": key }, signal: page.signal,
    }),
    done: (result, { cardNumber }) => result.status === 201
      ? `Library card ${cardNumber.toUpperCase()} saved.`
      : `Nothing to change: the member has card ${cardNumber.toUpperCase()} already.`,
    after: () => refresh(page),
    again: "Press Save card to save it.",
  });
  return {
    section: h("section", { class: "panel", "aria-labelledby": "card-heading" }, h("h2", { id: "card-heading" }, "Library card"), form),
    fill(account) {
      if (account?.cardNumber && form.elements.cardNumber.value === "") form.elements.cardNumber.value = account.cardNumber;
    },
  };
}

/** fineForm charges a fine: one intent, one key, so that a retry can't charge it twice. */
function fineForm(page) {
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Charge fine");
  const form = h("form", {},
    h("div", { class: "fields" },
      field({ id: "fine-amount", name: "amount", label: "Fine amount", inputmode: "decimal", required: true, autocomplete: "off", hint: "For example 2.00." }),
      field({ id: "fine-reason", name: "reason", label: "Reason", required: true, wide: true, autocomplete: "off" }),
      button),
    outcome, errors);
  commandForm(form, {
    name: `fine:${page.memberId}`, button, outcome, errors, signal: page.signal,
    read: () => {
      const amount = parseAmount(form.elements.amount.value);
      if (amount.error) return amount;
      return { cents: amount.cents, reason: form.elements.reason.value.trim(), pending: `Charging ${formatCents(amount.cents)}…` };
    },
    send: ({ cents, reason }, key) => call("POST", path("accounts", page.memberId, "fines"), {
      body: { amount: cents, reason }, headers: { "Idempotency-Key": key }, signal: page.signal,
    }),
    done: (_, { cents, reason }) => `Fine of ${formatCents(cents)} charged (${reason}).`,
    after: () => {
      form.reset();
      return refresh(page);
    },
    unsure: "The fine may or may not have been charged. Press Charge fine again to find out: it is sent with the same key, so it can't be charged twice.",
    again: "Press Charge fine to charge it: it carries the same key as before, so it can't be charged twice.",
  });
  return h("section", { class: "panel", "aria-labelledby": "fine-heading" }, h("h2", { id: "fine-heading" }, "Charge a fine"), form);
}
