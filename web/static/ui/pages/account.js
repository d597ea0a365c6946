// My account: a member's own page. Their loans, with Renew (loans.js), their holds, with their
// place in each queue and Cancel (holds.js), what they owe, their library card, the account's
// history, Pay, which takes them to the payment provider's page (pay.js) when the library takes
// payments online, and their PIN for self-check (pin.js). Nothing here fines, lends or takes
// back. A librarian has no
// such page (the masthead does not offer it): she is told where members' accounts are instead,
// and nothing of hers is read, opened or shown as a member's account.

import { call, path } from "../api.js";
import { holdsPanel } from "../holds.js";
import { accountFacts, historyPanel } from "../ledger.js";
import { loansPanel } from "../loans.js";
import { offLimits } from "../masthead.js";
import { checkoutForm } from "../pay.js";
import { pinForm } from "../pin.js";
import { can, me, signedIn } from "../session.js";
import { clearError, h, showError } from "../ui.js";

export async function render(main, { signal }) {
  if (can("desk") && signedIn()) {
    offLimits(main, {
      title: "My account",
      text: "You are signed in as a librarian, and My account is for members: no account is opened or shown for you here. " +
        "To see a member's account, loans and fines, find them by their member id at the top of the page.",
    });
    return;
  }
  if (!can("account")) {
    offLimits(main, { title: "My account", text: "Sign in to see your loans and what you owe, and to pay." });
    return;
  }
  const memberId = me().memberId;
  document.title = "My account · Library";
  const page = {
    memberId, signal,
    summary: h("section", { class: "panel", "aria-labelledby": "account-heading" }),
    loans: loansPanel(memberId, { signal, title: "My loans", empty: "You have no books on loan." }),
    holds: holdsPanel(memberId, { signal, title: "My holds", empty: "You are waiting for no book. Place a hold on a book that is out in the catalog." }),
    errors: h("div", { class: "alert-slot" }),
    history: historyPanel(memberId, { signal }),
  };
  page.pay = checkoutForm(memberId, { signal, onRefused: () => refresh(page) });
  page.pin = pinForm(memberId, { signal, onSet: () => refresh(page) });
  main.append(
    h("h1", { tabindex: -1 }, "My account"),
    h("p", { class: "lede" }, "Your loans and holds, what you owe, your payments, and your library card."),
    page.errors,
    page.summary,
    page.loans.section,
    page.holds.section,
    h("div", { class: "columns" }, page.pay.section, page.pin.section),
    page.history.section);
  await Promise.all([refresh(page), page.loans.refresh(), page.holds.refresh()]);
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
