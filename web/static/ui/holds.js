// A member's holds, as the holds view shows them (GET /accounts/{memberId}/holds): the copies on
// the hold shelf for them first, each with the day it waits until, then the holds they wait
// in line with, each with their place in its line; and Cancel on each. A hold on a title waits
// for any copy of it (no copy yet: bookId null) and links to the title's page; a hold on one
// copy, and a copy held on the shelf, link to the copy's. The member's own page and a
// librarian's page of the member both show it: the service lets either cancel. A librarian
// also lends a copy on the shelf to the member from here (hold.js), which fulfils the hold.
//
// Cancel is a command as Renew is (command.js): one Idempotency-Key per intended cancel, kept
// across every attempt of it. A hold with a copy is cancelled on the copy (DELETE
// /books/{bookId}/holds/{memberId}), one waiting for any copy on its title (DELETE
// /titles/{titleId}/holds/{memberId}, which gives up a copy held for the member meanwhile too).
// The holds view follows the log a moment behind, so a hold this page ended (cancelled, or
// lent) stays out of the list until a read of the view has reached the command's position. A
// refusal (the hold ended meanwhile) is said in one sentence, and the list is read again.

import { ApiError, call, path } from "./api.js";
import { commandForm } from "./command.js";
import { bookTitle, HOLD_ATTEMPTS, lendHolderForm, placeText } from "./hold.js";
import { clearError, formatDay, formatTime, h, outcomeRegion, setOutcome, showError } from "./ui.js";

/**
 * holdsPanel is {section, refresh} for memberId's holds. title heads it ("My holds", "Holds");
 * empty is what it says when there is none; desk adds Lend to the copies on the shelf, and
 * onLent() is told when one is lent. refresh reads the list again.
 */
export function holdsPanel(memberId, { signal, title = "Holds", empty = "No holds.", desk = false, onLent }) {
  const panel = {
    memberId, signal, empty, desk, onLent,
    columns: ["Title", "Copy", "Status", "Placed on", desk ? "Lend or cancel" : "Cancel"],
    body: h("tbody"),
    outcome: outcomeRegion(),
    errors: h("div", { class: "alert-slot" }), // what a cancel or a lend met
    readErrors: h("div", { class: "alert-slot" }), // what reading the list met
    more: h("p", { class: "hint" }),
    rows: new Map(), // hold key → its row, kept across reads so that a command in flight keeps its key
    ended: new Map(), // hold key → the position of the command of this page that ended the hold
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

/**
 * holdKey names one hold of a member: its title and its copy. A member waits at most once in a
 * title's line, so a hold for any copy (bookId null) is its title's alone; a hold on a copy,
 * or a copy held on the shelf, is that copy's.
 */
export function holdKey(hold) {
  return `${hold.titleId ?? ""}/${hold.bookId ?? ""}`;
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
  for (const [key, at] of panel.ended) if (at <= position) panel.ended.delete(key);
  const holds = (data.holds ?? []).filter((x) => !panel.ended.has(holdKey(x)));
  holds.sort((a, b) => (a.status === b.status ? 0 : a.status === "ready" ? -1 : 1));
  const shown = new Set(holds.map(holdKey));
  for (const [key, row] of panel.rows) {
    if (!shown.has(key) && !row.busy()) panel.rows.delete(key);
  }
  const rows = holds.map((hold) => {
    const key = holdKey(hold);
    const row = panel.rows.get(key) ?? newRow(panel, hold);
    panel.rows.set(key, row);
    fill(panel, row, hold);
    return row.tr;
  });
  panel.body.replaceChildren(...(rows.length ? rows
    : [h("tr", {}, h("td", { colspan: panel.columns.length, class: "empty" }, panel.empty))]));
  panel.more.textContent = data.more ? "There are more holds than this list shows." : "";
}

/** newRow makes a hold's row and its Cancel form; fill adds Lend at the desk once a copy waits on the shelf. */
function newRow(panel, hold) {
  const row = {
    hold,
    title: h("a"),
    copy: h("td"), status: h("td"), placedAt: h("td"), actions: h("td"),
    cancelButton: h("button", { type: "submit", class: "secondary" }, "Cancel"),
    lend: null,
  };
  row.tr = h("tr", {}, h("th", { scope: "row" }, row.title), row.copy, row.status, row.placedAt, row.actions);
  row.ended = (result) => {
    const position = Number(result?.data?.position ?? 0);
    if (position > 0) panel.ended.set(holdKey(row.hold), position);
    return load(panel);
  };
  row.cancelForm = h("form", { class: "renew" }, row.cancelButton);
  row.cancel = commandForm(row.cancelForm, {
    ...common(panel), name: `cancel-hold:${panel.memberId}:${holdKey(hold)}`, button: row.cancelButton,
    read: () => ({ pending: `Cancelling the hold on ${bookTitle(row.hold)}…` }),
    send: (_, key, { onRetry }) => cancelHold(row.hold, key, { signal: panel.signal, onRetry }),
    retrying: ({ attempt, error }) => `${error.message} Sending the same cancel again (attempt ${attempt + 1} of ${HOLD_ATTEMPTS})…`,
    done: (result) => row.hold.status === "ready" || (!row.hold.bookId && gaveUpCopy(result))
      ? `Cancelled the hold on ${bookTitle(row.hold)}: the copy on the hold shelf goes to the next member waiting, or back on the shelf.`
      : `Cancelled the hold on ${bookTitle(row.hold)}.`,
    after: row.ended,
    failed: (err) => (err?.definite ? load(panel) : null),
    unsure: "The cancel may or may not have been recorded. Press Cancel again to find out.",
    again: "Press Cancel to cancel the hold.",
  });
  row.busy = () => row.cancel.busy || row.lend?.intent.busy;
  return row;
}

/** common is what every command of the panel shares: where it speaks, and where focus goes. */
function common(panel) {
  return { outcome: panel.outcome, errors: panel.errors, signal: panel.signal, focus: () => panel.section.querySelector("h2") };
}

/**
 * fill shows hold in its row: a hold waiting for any copy links to its title, one with a copy
 * to the copy. At the desk, a copy on the shelf gets Lend (made once, and kept with its key).
 */
function fill(panel, row, hold) {
  row.hold = hold;
  const name = hold.title || hold.bookId || hold.titleId;
  row.title.textContent = name;
  row.title.href = hold.bookId ? `#/books/${encodeURIComponent(hold.bookId)}` : `#/titles/${encodeURIComponent(hold.titleId)}`;
  row.copy.textContent = hold.bookId ?? "Any copy";
  row.status.replaceChildren(...statusWords(hold, { yours: !panel.desk }));
  row.status.title = hold.status === "ready" ? formatTime(hold.until) : "";
  row.placedAt.textContent = formatDay(hold.placedAt);
  row.cancelButton.setAttribute("aria-label", `Cancel the hold on ${name}`);
  if (panel.desk && hold.status === "ready" && hold.bookId && !row.lend) {
    row.lend = lendHolderForm(hold, { ...common(panel), after: (result) => Promise.all([row.ended(result), result && panel.onLent?.()]) });
  }
  const lend = row.lend && (hold.status === "ready" || row.lend.intent.busy) ? row.lend.form : null;
  row.actions.replaceChildren(h("div", { class: "actions" }, lend, row.cancelForm));
}

/**
 * statusWords say where a hold is, in words (never by colour alone): "Ready for you until Mar
 * 3, 2026" (for pickup, to a librarian), or the place in the line: "First in line".
 */
function statusWords(hold, { yours }) {
  if (hold.status === "ready") {
    return [h("span", { class: "tag available" }, "Ready"), ` ${yours ? "for you" : "for pickup"} until ${formatDay(hold.until)}`];
  }
  const place = placeText(hold.place);
  return [h("span", { class: "tag lent" }, place[0].toUpperCase() + place.slice(1))];
}

/**
 * gaveUpCopy says whether the cancel of a hold waiting for any copy gave up a copy held for it
 * on the shelf meanwhile: the title's route then answers with the copy's HoldCancelled.
 */
function gaveUpCopy(result) {
  return (result?.data?.events ?? []).some((e) => e.type === "HoldCancelled");
}

/**
 * cancelHold cancels hold under key: on its copy when it has one, on its title otherwise. A hold
 * that ended meanwhile is said in the page's words.
 */
async function cancelHold(hold, key, { signal, onRetry }) {
  const target = hold.bookId
    ? path("books", hold.bookId, "holds", hold.memberId)
    : path("titles", hold.titleId, "holds", hold.memberId);
  try {
    return await call("DELETE", target, { headers: { "Idempotency-Key": key }, attempts: HOLD_ATTEMPTS, signal, onRetry });
  } catch (err) {
    if (err?.code !== "NotFound" || !(err instanceof ApiError)) throw err;
    throw new ApiError(err.kind, `There is no hold on ${bookTitle(hold)} to cancel any more: it was lent, cancelled or ended meanwhile.`,
      { status: err.status, code: err.code, problem: err.problem, base: err.base });
  }
}
