// Overdue: the librarian's list of the loans past their due time, longest overdue first, from
// the loans view (GET /loans?overdue=true), a page at a time. Each says the book, the member
// (a link to their page, where the loan can be renewed), the due date and how many days it is
// overdue. The page's cursor is in the fragment (#/overdue?cursor=…), so Back and a bookmark
// show the same page again.

import { call } from "../api.js";
import { daysText } from "../loans.js";
import { offLimits } from "../masthead.js";
import { can } from "../session.js";
import { formatDay, formatTime, h, setOutcome, showError } from "../ui.js";

/** PAGE_SIZE is how many loans a page shows. */
export const PAGE_SIZE = 20;

export async function render(main, { query, signal }) {
  if (!can("desk")) {
    offLimits(main, { title: "Overdue loans", text: "The list of overdue loans is for librarians." });
    return;
  }
  document.title = "Overdue loans · Library";
  const cursor = query.get("cursor") ?? "";
  const view = {
    cursor, signal,
    state: h("p", { class: "outcome", role: "status" }),
    errors: h("div", { class: "alert-slot" }),
    body: h("tbody"),
    pager: h("nav", { class: "pager", "aria-label": "Pages of overdue loans" }),
  };
  main.append(
    h("h1", { tabindex: -1 }, "Overdue loans"),
    h("p", { class: "lede" }, "Books past their due date, longest overdue first. Open a member to renew a loan or take a payment."),
    h("section", { class: "panel", "aria-labelledby": "overdue-caption" },
      view.state, view.errors,
      h("div", { class: "table-wrap" }, h("table", {},
        h("caption", { id: "overdue-caption" }, "Overdue loans"),
        h("thead", {}, h("tr", {}, ["Title", "Member", "Due back", "Days overdue"].map((c) => h("th", { scope: "col" }, c)))),
        view.body)),
      view.pager));
  await load(view);
}

async function load(view) {
  const { cursor, signal } = view;
  const params = new URLSearchParams({ overdue: "true", limit: String(PAGE_SIZE) });
  if (cursor) params.set("cursor", cursor);
  setOutcome(view.state, "Looking for overdue loans…", { pending: true });
  let data;
  try {
    ({ data } = await call("GET", `/loans?${params}`, { signal }));
  } catch (err) {
    if (signal.aborted) return;
    setOutcome(view.state, "");
    showError(view.errors, err, { retry: () => { view.errors.replaceChildren(); load(view); } });
    return;
  }
  setOutcome(view.state, "");
  const loans = data.loans ?? [];
  view.body.replaceChildren(...(loans.length ? loans.map(loanRow)
    : [h("tr", {}, h("td", { colspan: 4, class: "empty" }, cursor ? "No more overdue loans." : "No loan is overdue."))]));
  view.pager.replaceChildren(...pagerLinks(loans.length, cursor, data.next));
}

function loanRow(loan) {
  const days = Number(loan.daysOverdue ?? 0);
  return h("tr", {},
    h("th", { scope: "row" }, h("a", { href: `#/books/${encodeURIComponent(loan.bookId)}` }, loan.title || loan.bookId)),
    h("td", {}, h("a", { href: `#/members/${encodeURIComponent(loan.memberId)}` }, loan.memberId)),
    h("td", { title: formatTime(loan.dueAt) }, formatDay(loan.dueAt)),
    h("td", {}, days > 0 ? daysText(days) : "less than a day"));
}

/** pagerLinks are "First page" (when not on it) and "Next page" (when the service gave a cursor). */
function pagerLinks(count, cursor, next) {
  const links = [h("p", { class: "summary" }, `${count} overdue ${count === 1 ? "loan" : "loans"} on this page.`)];
  if (cursor) links.push(h("a", { href: "#/overdue" }, "First page"));
  if (typeof next === "string" && next !== "") {
    links.push(h("a", { href: `#/overdue?${new URLSearchParams({ cursor: next })}` }, "Next page"));
  }
  return links;
}
