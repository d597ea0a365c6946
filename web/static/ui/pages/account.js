// My account: a member's own page. Their loans (the lent books the catalog marks as theirs),
// what they owe, the account's history, and Pay, which takes them to the payment provider's
// page (pay.js) when the library takes payments online. Nothing here fines, lends or takes back.

import { call, path, writtenUpTo } from "../api.js";
import { accountFacts, historyPanel } from "../ledger.js";
import { offLimits } from "../masthead.js";
import { checkoutForm } from "../pay.js";
import { can, me } from "../session.js";
import { clearError, formatDay, h, setOutcome, showError } from "../ui.js";

/** LOAN_PAGES bounds how many pages of lent books are read to find the member's own. */
const LOAN_PAGES = 10;

export async function render(main, { signal }) {
  if (!can("account")) {
    offLimits(main, { title: "My account", text: "Sign in to see your loans and what you owe, and to pay." });
    return;
  }
  const memberId = me().memberId;
  document.title = "My account · Library";
  const page = {
    memberId, signal,
    summary: h("section", { class: "panel", "aria-labelledby": "account-heading" }),
    loans: h("section", { class: "panel", "aria-labelledby": "loans-caption" }),
    errors: h("div", { class: "alert-slot" }),
    history: historyPanel(memberId, { signal }),
  };
  page.pay = checkoutForm(memberId, { signal, onRefused: () => refresh(page) });
  main.append(
    h("h1", { tabindex: -1 }, "My account"),
    h("p", { class: "lede" }, "Your loans, what you owe, and your payments."),
    page.errors,
    page.summary,
    page.loans,
    h("div", { class: "columns" }, page.pay.section),
    page.history.section);
  await Promise.all([refresh(page), showLoans(page)]);
}

/** refresh reads the account (from its own events: always the latest) and its history. */
async function refresh(page) {
  const { memberId, signal } = page;
  const title = h("h2", { id: "account-heading" }, "Account");
  try {
    const { data } = await call("GET", path("accounts", memberId), { signal });
    clearError(page.errors);
    page.summary.replaceChildren(title, ...accountFacts(data));
    page.pay.show(data.balance);
  } catch (err) {
    if (signal.aborted) return;
    if (err.code !== "NotFound") {
      page.pay.show(null);
      showError(page.errors, err, { retry: () => { clearError(page.errors); refresh(page); } });
      return;
    }
    page.summary.replaceChildren(title, h("p", {}, "You have no account yet: the library opens it for you."));
    page.pay.show(0);
  }
  await page.history.refresh();
}

/** showLoans lists the lent books whose loan is the member's own. */
async function showLoans(page) {
  const { signal } = page;
  const state = h("p", { class: "outcome", role: "status" });
  const caption = h("h2", { id: "loans-caption" }, "My loans");
  page.loans.replaceChildren(caption, state);
  setOutcome(state, "Looking for your loans…", { pending: true });
  const mine = [];
  try {
    let after = "";
    for (let n = 0; n < LOAN_PAGES; n++) {
      const query = new URLSearchParams({ status: "lent", limit: "1000" });
      if (after) query.set("after", after);
      if (writtenUpTo() > 0) query.set("minPosition", String(writtenUpTo()));
      const { data } = await call("GET", `/books?${query}`, { signal });
      mine.push(...(data.books ?? []).filter((b) => b.loan?.mine === true));
      if (typeof data.next !== "string" || data.next === "") break;
      after = data.next;
    }
  } catch (err) {
    if (signal.aborted) return;
    setOutcome(state, "");
    const slot = h("div", { class: "alert-slot" });
    page.loans.append(slot);
    showError(slot, err, { retry: () => showLoans(page) });
    return;
  }
  setOutcome(state, mine.length === 0 ? "You have no books on loan." : "");
  if (mine.length === 0) return;
  page.loans.append(h("div", { class: "table-wrap" }, h("table", { "aria-labelledby": "loans-caption" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Title"), h("th", { scope: "col" }, "Author"), h("th", { scope: "col" }, "Due back"))),
    h("tbody", {}, mine.map((b) => h("tr", {},
      h("th", { scope: "row" }, h("a", { href: `#/books/${encodeURIComponent(b.id)}` }, b.title)),
      h("td", {}, b.author),
      h("td", {}, formatDay(b.loan.dueAt))))))));
}
