// Hold shelf: the librarian's list of the books on the hold shelf, from the holds view (GET
// /holds?status=ready), the soonest to leave it first, a page at a time. Each says the book, the
// member it waits for (a link to their page) and until when, and Lend lends it to that member
// (hold.js), which fulfils the hold. The page's cursor is in the fragment (#/holds?cursor=…), so
// Back and a bookmark show the same page again. The holds view follows the log a moment behind:
// a book this page lent stays off the list until a read of the view has reached the loan.

import { call } from "../api.js";
import { lendHolderForm } from "../hold.js";
import { offLimits } from "../masthead.js";
import { can } from "../session.js";
import { clearError, formatDay, formatTime, h, outcomeRegion, setOutcome, showError } from "../ui.js";

/** PAGE_SIZE is how many books a page of the hold shelf shows. */
export const PAGE_SIZE = 20;

const COLUMNS = ["Title", "Member", "Waits until", "Lend"];

export async function render(main, { query, signal }) {
  if (!can("desk")) {
    offLimits(main, { title: "Hold shelf", text: "The hold shelf is for librarians. Your own holds are under My account." });
    return;
  }
  document.title = "Hold shelf · Library";
  const view = {
    cursor: query.get("cursor") ?? "", signal,
    state: h("p", { class: "outcome", role: "status" }),
    outcome: outcomeRegion(),
    errors: h("div", { class: "alert-slot" }), // what a lend met
    readErrors: h("div", { class: "alert-slot" }),
    body: h("tbody"),
    pager: h("nav", { class: "pager", "aria-label": "Pages of the hold shelf" }),
    heading: h("h1", { tabindex: -1 }, "Hold shelf"),
    rows: new Map(), // "book member" → its row, kept across reads so that a lend in flight keeps its key
    lent: new Map(), // "book member" → the position of the loan this page made
  };
  view.outcome.setAttribute("aria-label", "Lending");
  main.append(
    view.heading,
    h("p", { class: "lede" }, "Books waiting for the members who asked for them, the soonest to leave the shelf first. Lend one to its member when they come for it."),
    h("section", { class: "panel", "aria-labelledby": "shelf-caption" },
      view.state, view.readErrors,
      h("div", { class: "table-wrap" }, h("table", {},
        h("caption", { id: "shelf-caption" }, "Books on the hold shelf"),
        h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", { scope: "col" }, c)))),
        view.body)),
      view.pager, view.outcome, view.errors));
  await load(view);
}

async function load(view) {
  const { cursor, signal } = view;
  const params = new URLSearchParams({ status: "ready", limit: String(PAGE_SIZE) });
  if (cursor) params.set("cursor", cursor);
  setOutcome(view.state, "Looking at the hold shelf…", { pending: true });
  let data;
  try {
    ({ data } = await call("GET", `/holds?${params}`, { signal }));
  } catch (err) {
    if (signal.aborted) return;
    setOutcome(view.state, "");
    showError(view.readErrors, err, { retry: () => { clearError(view.readErrors); load(view); } });
    return;
  }
  setOutcome(view.state, "");
  clearError(view.readErrors);
  const position = Number(data.position ?? 0);
  for (const [id, at] of view.lent) if (at <= position) view.lent.delete(id);
  const holds = (data.holds ?? []).filter((x) => !view.lent.has(holdId(x)));
  const shown = new Set(holds.map(holdId));
  for (const [id, row] of view.rows) if (!shown.has(id) && !row.intent.busy) view.rows.delete(id);
  const rows = holds.map((hold) => {
    const row = view.rows.get(holdId(hold)) ?? newRow(view, hold);
    view.rows.set(holdId(hold), row);
    return row.tr;
  });
  view.body.replaceChildren(...(rows.length ? rows
    : [h("tr", {}, h("td", { colspan: COLUMNS.length, class: "empty" }, cursor ? "No more books on the hold shelf." : "No book is on the hold shelf."))]));
  view.pager.replaceChildren(...pagerLinks(rows.length, cursor, data.next));
}

/** holdId names a hold on the shelf: one book, one member. */
function holdId(hold) {
  return `${hold.bookId} ${hold.memberId}`;
}

/** newRow is a hold's row, with its Lend form, whose key lives as long as the row. */
function newRow(view, hold) {
  const { form, intent } = lendHolderForm(hold, {
    outcome: view.outcome, errors: view.errors, signal: view.signal, focus: () => view.heading,
    after: (result) => {
      const position = Number(result?.data?.position ?? 0);
      if (position > 0) view.lent.set(holdId(hold), position);
      return load(view);
    },
  });
  const tr = h("tr", {},
    h("th", { scope: "row" }, h("a", { href: `#/books/${encodeURIComponent(hold.bookId)}` }, hold.title || hold.bookId)),
    h("td", {}, h("a", { href: `#/members/${encodeURIComponent(hold.memberId)}` }, hold.memberId)),
    h("td", { title: formatTime(hold.until) }, formatDay(hold.until)),
    h("td", {}, form));
  return { tr, intent };
}

/** pagerLinks are "First page" (when not on it) and "Next page" (when the service gave a cursor). */
function pagerLinks(count, cursor, next) {
  const links = [h("p", { class: "summary" }, `${count} ${count === 1 ? "book" : "books"} on this page.`)];
  if (cursor) links.push(h("a", { href: "#/holds" }, "First page"));
  if (typeof next === "string" && next !== "") {
    links.push(h("a", { href: `#/holds?${new URLSearchParams({ cursor: next })}` }, "Next page"));
  }
  return links;
}
