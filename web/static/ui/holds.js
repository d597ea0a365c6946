// A member's holds, as the holds view shows them (GET /accounts/{memberId}/holds): the books on
// the hold shelf for them first, each with the day it waits until, then the books they wait
// for, each with their place in its queue; and Cancel on each. The member's own page and a
// librarian's page of the member both show it: the service lets either cancel. A librarian
// also lends a book on the shelf to the member from here (hold.js), which fulfils the hold.
//
// Cancel is a command as Renew is (command.js): one Idempotency-Key per intended cancel, kept
// across every attempt of it. The holds view follows the log a moment behind, so a hold this
// page ended (cancelled, or lent) stays out of the list until a read of the view has reached
// the command's position. A refusal (the hold ended meanwhile) is said in one sentence, and the
// list is read again.

import { ApiError, call, path } from "./api.js";
import { commandForm } from "./command.js";
import { bookTitle, HOLD_ATTEMPTS, lendHolderForm, placeText } from "./hold.js";
import { clearError, formatDay, formatTime, h, outcomeRegion, setOutcome, showError } from "./ui.js";

/**
 * holdsPanel is {section, refresh} for memberId's holds. title heads it ("My holds", "Holds");
 * empty is what it says when there is none; desk adds Lend to the books on the shelf, and
 * onLent() is told when one is lent. refresh reads the list again.
 */
export function holdsPanel(memberId, { signal, title = "Holds", empty = "No holds.", desk = false, onLent }) {
  const panel = {
    memberId, signal, empty, desk, onLent,
    columns: ["Title", "Status", "Placed on", desk ? "Lend or cancel" : "Cancel"],
    body: h("tbody"),
    outcome: outcomeRegion(),
    errors: h("div", { class: "alert-slot" }), // what a cancel or a lend met
    readErrors: h("div", { class: "alert-slot" }), // what reading the list met
    more: h("p", { class: "hint" }),
    rows: new Map(), // book id → its row, kept across reads so that a command in flight keeps its key
    ended: new Map(), // book id → the position of the command of this page that ended the hold
    loaded: false,
  };
  panel.section = h("section", { class: "panel", "aria-labelledby": "holds-heading" },
    h("h2", { id: "holds-heading", tabindex: -1 }, title),
    h("div", { class: "table-wrap" }, h("table", { "aria-labelledby": "holds-heading" },
      h("thead", {}, h("tr", {}, panel.columns.map((c) => h("th", { scope: "col" }, c)))),
      panel.body)),
    panel.more, panel.outcome, panel.errors, panel.readErrors);
  return { section: panel.section, refresh: () => load(panel) };
}

/** load reads the member's holds and redraws the table, keeping the rows of holds still there. */
async function load(panel) {
  const { memberId, signal } = panel;
  if (!panel.loaded) setOutcome(panel.outcome, "Looking for holds…", { pending: true });
  let data;
  try {
    ({ data } = await call("GET", path("accounts", memberId, "holds"), { signal }));
  } catch (err) {
    if (signal.aborted) return;
    if (!panel.loaded) setOutcome(panel.outcome, "");
    showError(panel.readErrors, err, { retry: () => load(panel) });
    return;
  }
  if (!panel.loaded) setOutcome(panel.outcome, "");
  panel.loaded = true;
  clearError(panel.readErrors);
  const position = Number(data.position ?? 0);
  for (const [bookId, at] of panel.ended) if (at <= position) panel.ended.delete(bookId);
  const holds = (data.holds ?? []).filter((x) => !panel.ended.has(x.bookId));
  holds.sort((a, b) => (a.status === b.status ? 0 : a.status === "ready" ? -1 : 1));
  const shown = new Set(holds.map((x) => x.bookId));
  for (const [bookId, row] of panel.rows) {
    if (!shown.has(bookId) && !row.busy()) panel.rows.delete(bookId);
  }
  const rows = holds.map((hold) => {
    const row = panel.rows.get(hold.bookId) ?? newRow(panel, hold);
    panel.rows.set(hold.bookId, row);
    fill(panel, row, hold);
    return row.tr;
  });
  panel.body.replaceChildren(...(rows.length ? rows
    : [h("tr", {}, h("td", { colspan: panel.columns.length, class: "empty" }, panel.empty))]));
  panel.more.textContent = data.more ? "Only the holds of the first books are shown here: there are more." : "";
}

/** newRow makes a hold's row, its Cancel form and (at the desk) its Lend form. */
function newRow(panel, hold) {
  const row = {
    hold,
    title: h("a", { href: `#/books/${encodeURIComponent(hold.bookId)}` }),
    status: h("td"), placedAt: h("td"), actions: h("td"),
    cancelButton: h("button", { type: "submit", class: "secondary" }, "Cancel"),
  };
  row.tr = h("tr", {}, h("th", { scope: "row" }, row.title), row.status, row.placedAt, row.actions);
  const ended = (result) => {
    const position = Number(result?.data?.position ?? 0);
    if (position > 0) panel.ended.set(row.hold.bookId, position);
    return load(panel);
  };
  const common = { outcome: panel.outcome, errors: panel.errors, signal: panel.signal, focus: () => panel.section.querySelector("h2") };
  row.cancelForm = h("form", { class: "renew" }, row.cancelButton);
  row.cancel = commandForm(row.cancelForm, {
    ...common, name: `cancel-hold:${panel.memberId}:${hold.bookId}`, button: row.cancelButton,
    read: () => ({ pending: `Cancelling the hold on ${bookTitle(row.hold)}…` }),
    send: (_, key, { onRetry }) => cancelHold(row.hold, key, { signal: panel.signal, onRetry }),
    retrying: ({ attempt, error }) => `${error.message} Sending the same cancel again (attempt ${attempt + 1} of ${HOLD_ATTEMPTS})…`,
    done: () => row.hold.status === "ready"
      ? `Cancelled the hold on ${bookTitle(row.hold)}: it goes to the next member waiting for it, or back on the shelf.`
      : `Cancelled the hold on ${bookTitle(row.hold)}.`,
    after: ended,
    failed: (err) => (err?.definite ? load(panel) : null),
    unsure: "The cancel may or may not have been recorded. Press Cancel again to find out.",
    again: "Press Cancel to cancel the hold.",
  });
  if (panel.desk) row.lend = lendHolderForm(hold, { ...common, after: (result) => Promise.all([ended(result), result && panel.onLent?.()]) });
  row.busy = () => row.cancel.busy || row.lend?.intent.busy;
  return row;
}

/** fill shows hold in its row. */
function fill(panel, row, hold) {
  row.hold = hold;
  const name = hold.title || hold.bookId;
  row.title.textContent = name;
  row.status.replaceChildren(...statusWords(hold, { yours: !panel.desk }));
  row.status.title = hold.status === "ready" ? formatTime(hold.until) : "";
  row.placedAt.textContent = formatDay(hold.placedAt);
  row.cancelButton.setAttribute("aria-label", `Cancel the hold on ${name}`);
  const lend = panel.desk && (hold.status === "ready" || row.lend.intent.busy) ? row.lend.form : null;
  row.actions.replaceChildren(h("div", { class: "actions" }, lend, row.cancelForm));
}

/**
 * statusWords say where a hold is, in words (never by colour alone): "Ready for you until Mar
 * 3, 2026" (for pickup, to a librarian), or the place in the queue: "First in line".
 */
function statusWords(hold, { yours }) {
  if (hold.status === "ready") {
    return [h("span", { class: "tag available" }, "Ready"), ` ${yours ? "for you" : "for pickup"} until ${formatDay(hold.until)}`];
  }
  const place = placeText(hold.place);
  return [h("span", { class: "tag lent" }, place[0].toUpperCase() + place.slice(1))];
}

/** cancelHold cancels hold under key; a hold that ended meanwhile is said in the page's words. */
async function cancelHold(hold, key, { signal, onRetry }) {
  try {
    return await call("DELETE", path("books", hold.bookId, "holds", hold.memberId), {
      headers: { "Idempotency-Key": key }, attempts: HOLD_ATTEMPTS, signal, onRetry,
    });
  } catch (err) {
    if (err?.code !== "NotFound" || !(err instanceof ApiError)) throw err;
    throw new ApiError(err.kind, `There is no hold on ${bookTitle(hold)} to cancel any more: it was lent, cancelled or ended meanwhile.`,
      { status: err.status, code: err.code, problem: err.problem, base: err.base });
  }
}
