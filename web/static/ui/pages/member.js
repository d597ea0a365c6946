// A member: their account (open it, or change its name and email), the balance, a fine to
// charge, and a payment (see pay.js).

import { call, path, wrote } from "../api.js";
import { Intent } from "../intent.js";
import { paymentForm } from "../pay.js";
import {
  balanceText, clearError, field, formatCents, h, outcomeRegion, parseAmount, refocus, setOutcome, showError,
} from "../ui.js";

export async function render(main, { params: [memberId], signal }) {
  document.title = `Member ${memberId} · Library`;
  const page = {
    memberId, signal,
    heading: h("h1", { tabindex: -1 }, `Member ${memberId}`),
    summary: h("section", { class: "panel", "aria-labelledby": "account-heading" }),
    errors: h("div", { class: "alert-slot" }),
    account: null,
  };
  page.contact = contactForm(page);
  main.append(
    page.heading,
    h("p", { class: "lede" }, "The member's account: what they owe, fines and payments."),
    page.errors,
    page.summary,
    h("div", { class: "columns" },
      paymentForm(memberId, { signal, onPaid: () => refresh(page) }),
      fineForm(page),
      page.contact.section));
  await refresh(page);
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
      showError(page.errors, err, { retry: () => { clearError(page.errors); refresh(page); } });
      return;
    }
    page.account = null;
    clearError(page.errors);
  }
  showSummary(page);
  page.contact.fill(page.account);
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
  summary.replaceChildren(title,
    h("dl", { class: "facts" },
      h("dt", {}, "Member id"), h("dd", {}, account.memberId),
      h("dt", {}, "Name"), h("dd", {}, account.name ?? "not given yet"),
      h("dt", {}, "Email"), h("dd", {}, account.email ?? "none")),
    h("p", { class: "balance", id: "balance" }, `Balance: ${balanceText(account.balance)}`));
}

/** contactForm opens the account or changes its name and email. */
function contactForm(page) {
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Save account");
  const form = h("form", {
    onsubmit: async (event) => {
      event.preventDefault();
      if (button.disabled) return;
      const email = form.elements.email.value.trim();
      const body = { name: form.elements.name.value.trim(), email: email === "" ? null : email };
      button.disabled = true;
      clearError(errors);
      setOutcome(outcome, "Saving…", { pending: true });
      try {
        // PUT sets the account to this name and email: sending it again changes nothing more.
        const result = await call("PUT", path("accounts", page.memberId), { body, signal: page.signal });
        wrote(result.data);
        setOutcome(outcome, result.status === 201 ? "Account saved." : "Nothing to change: the account already says that.");
        await refresh(page);
      } catch (err) {
        if (page.signal.aborted) return;
        setOutcome(outcome, "");
        showError(errors, err);
      } finally {
        button.disabled = false;
        refocus(button);
      }
    },
  },
  h("div", { class: "fields" },
    field({ id: "account-name", name: "name", label: "Name", required: true, wide: true, autocomplete: "off" }),
    field({ id: "account-email", name: "email", label: "Email", type: "email", wide: true, autocomplete: "off", hint: "For loan emails; may be left empty." }),
    button),
  outcome, errors);
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

/** fineForm charges a fine: one intent, one key, so that a retry can't charge it twice. */
function fineForm(page) {
  const intent = new Intent();
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Charge fine");
  const form = h("form", {
    oninput: () => intent.reset(),
    onsubmit: async (event) => {
      event.preventDefault();
      if (intent.busy) return;
      const amount = parseAmount(form.elements.amount.value);
      if (amount.error) {
        showError(errors, { message: amount.error });
        return;
      }
      const reason = form.elements.reason.value.trim();
      button.disabled = true;
      clearError(errors);
      setOutcome(outcome, `Charging ${formatCents(amount.cents)}…`, { pending: true });
      try {
        const result = await intent.run((key) => call("POST", path("accounts", page.memberId, "fines"), {
          body: { amount: amount.cents, reason }, headers: { "Idempotency-Key": key }, signal: page.signal,
        }));
        wrote(result.data);
        setOutcome(outcome, `Fine of ${formatCents(amount.cents)} charged (${reason}).`);
        form.reset();
        await refresh(page);
      } catch (err) {
        if (page.signal.aborted) return;
        setOutcome(outcome, "");
        showError(errors, err);
      } finally {
        button.disabled = false;
        refocus(button);
      }
    },
  },
  h("div", { class: "fields" },
    field({ id: "fine-amount", name: "amount", label: "Fine amount", inputmode: "decimal", required: true, autocomplete: "off", placeholder: "2.00" }),
    field({ id: "fine-reason", name: "reason", label: "Reason", required: true, wide: true, autocomplete: "off" }),
    button),
  outcome, errors);
  return h("section", { class: "panel", "aria-labelledby": "fine-heading" }, h("h2", { id: "fine-heading" }, "Charge a fine"), form);
}
