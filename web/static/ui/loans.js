// A member's current loans, as the loans view shows them (GET /accounts/{memberId}/loans): each
// book's title, when it was lent and is due back, whether it is overdue (said in words, never by
// colour alone), how many renewals are left, and Renew. The member's own page and a librarian's
// page of the member both show it: the service lets either renew.
//
// Renew is a command as Pay is (command.js): one Idempotency-Key per intended renewal, made at
// the first press and kept across every attempt of it, so that a double click, a second Enter
// or a retry after no answer renews once. The new due date is the renewal's own answer, shown at
// once: the loans view follows the log a moment behind, so until a read of it has reached the
// renewal's position, the row keeps what the renewal said. A refusal (the book came back
// meanwhile, the loan was renewed as often as it may be, or another member waits for the book)
// is said in one sentence, and the list is read again.

import { ApiError, call, path } from "./api.js";
import { commandForm } from "./command.js";
import { clearError, formatDay, formatTime, h, outcomeRegion, setOutcome, showError } from "./ui.js";

/** RENEW_ATTEMPTS is how many times one renewal is sent before the page stops and says so. */
export const RENEW_ATTEMPTS = 4;

const COLUMNS = ["Title", "Lent on", "Due back", "Renewals left", "Renew"];

/**
 * loansPanel is {section, refresh} for memberId's loans. title heads it ("My loans", "Loans");
 * empty is what it says when there is none. refresh reads the list again.
 */
export function loansPanel(memberId, { signal, title = "Loans", empty = "No books on loan." }) {
  const panel = {
    memberId, signal, empty,
    body: h("tbody"),
    outcome: outcomeRegion(),
    errors: h("div", { class: "alert-slot" }), // what a renewal met
    readErrors: h("div", { class: "alert-slot" }), // what reading the list met
    more: h("p", { class: "hint" }),
    rows: new Map(), // loan id → its row, kept across reads so that a renewal in flight keeps its key
    renewed: new Map(), // loan id → [{position, dueAt}]: renewals the list may not show yet
    loaded: false,
  };
  panel.section = h("section", { class: "panel", "aria-labelledby": "loans-heading" },
    h("h2", { id: "loans-heading", tabindex: -1 }, title),
    h("div", { class: "table-wrap" }, h("table", { "aria-labelledby": "loans-heading" },
      h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", { scope: "col" }, c)))),
      panel.body)),
    panel.more, panel.outcome, panel.errors, panel.readErrors);
  return { section: panel.section, refresh: () => load(panel) };
}

/** load reads the member's loans and redraws the table, keeping the rows of loans still there. */
async function load(panel) {
  const { memberId, signal } = panel;
  if (!panel.loaded) setOutcome(panel.outcome, "Looking for loans…", { pending: true });
  let data;
  try {
    ({ data } = await call("GET", path("accounts", memberId, "loans"), { signal }));
  } catch (err) {
    if (signal.aborted) return;
    if (!panel.loaded) setOutcome(panel.outcome, "");
    showError(panel.readErrors, err, { retry: () => load(panel) });
    return;
  }
  if (!panel.loaded) setOutcome(panel.outcome, "");
  panel.loaded = true;
  clearError(panel.readErrors);
  const loans = (data.loans ?? []).map((loan) => asOf(panel, loan, Number(data.position ?? 0)));
  const shown = new Set(loans.map((l) => l.loanId));
  for (const [loanId, row] of panel.rows) {
    if (!shown.has(loanId) && !row.intent.busy) panel.rows.delete(loanId);
  }
  const rows = loans.map((loan) => {
    const row = panel.rows.get(loan.loanId) ?? newRow(panel, loan);
    panel.rows.set(loan.loanId, row);
    fill(row, loan);
    return row.tr;
  });
  panel.body.replaceChildren(...(rows.length ? rows
    : [h("tr", {}, h("td", { colspan: COLUMNS.length, class: "empty" }, panel.empty))]));
  panel.more.textContent = data.more ? "Only the loans due first are shown here: there are more." : "";
}

/**
 * asOf is loan as the page knows it: the list's, with the renewals this page made that the list,
 * as of position, has not seen yet.
 */
function asOf(panel, loan, position) {
  const unseen = (panel.renewed.get(loan.loanId) ?? []).filter((r) => r.position > position);
  if (unseen.length === 0) {
    panel.renewed.delete(loan.loanId);
    return loan;
  }
  const last = unseen[unseen.length - 1];
  return { ...loan, dueAt: last.dueAt, daysOverdue: 0, renewalsLeft: Math.max(0, loan.renewalsLeft - unseen.length) };
}

/** newRow makes a loan's row and its Renew form, whose intent lives as long as the row. */
function newRow(panel, loan) {
  const row = {
    loan,
    title: h("a", { href: `#/books/${encodeURIComponent(loan.bookId)}` }),
    lentAt: h("td"), dueAt: h("td"), renewalsLeft: h("td"), renew: h("td"),
    button: h("button", { type: "submit", class: "secondary" }, "Renew"),
  };
  row.form = h("form", { class: "renew" }, row.button);
  row.tr = h("tr", {}, h("th", { scope: "row" }, row.title), row.lentAt, row.dueAt, row.renewalsLeft, row.renew);
  row.intent = commandForm(row.form, {
    name: `renew:${panel.memberId}:${loan.loanId}`, button: row.button, outcome: panel.outcome, errors: panel.errors, signal: panel.signal,
    read: () => ({ pending: `Renewing “${row.loan.title}”…` }),
    send: (_, key, { onRetry }) => renew(row.loan, key, { signal: panel.signal, onRetry }),
    retrying: ({ attempt, error }) => `${error.message} Sending the same renewal again (attempt ${attempt + 1} of ${RENEW_ATTEMPTS}): ` +
      "it carries the same key, so the loan is renewed once.",
    done: (result) => `Renewed “${row.loan.title}”: it is due back ${formatDay(renewedDue(result) ?? row.loan.dueAt)}.`,
    after: (result) => {
      const dueAt = renewedDue(result);
      if (dueAt) {
        const list = panel.renewed.get(row.loan.loanId) ?? [];
        if (!list.some((r) => r.position === result.data.position)) list.push({ position: Number(result.data.position ?? 0), dueAt });
        panel.renewed.set(row.loan.loanId, list);
        fill(row, { ...row.loan, dueAt, daysOverdue: 0, renewalsLeft: Math.max(0, row.loan.renewalsLeft - 1) });
      }
      return load(panel);
    },
    failed: (err) => (err?.definite ? load(panel) : null),
    focus: () => panel.section.querySelector("h2"),
    unsure: "The renewal may or may not have been recorded. Press Renew again to find out: it is sent with the same key, so the loan is renewed once.",
    again: "Press Renew to renew it: it carries the same key as before, so the loan is renewed once.",
  });
  return row;
}

/** fill shows loan in its row. */
function fill(row, loan) {
  row.loan = loan;
  row.title.textContent = loan.title || loan.bookId;
  row.lentAt.textContent = formatDay(loan.lentAt);
  row.dueAt.replaceChildren(formatDay(loan.dueAt), ...overdueTag(loan), ...movedNote(loan));
  row.dueAt.title = formatTime(loan.dueAt);
  row.renewalsLeft.textContent = String(loan.renewalsLeft);
  row.button.setAttribute("aria-label", `Renew ${loan.title || loan.bookId}`);
  const canRenew = loan.renewalsLeft > 0 || row.intent?.busy || row.intent?.key;
  row.renew.replaceChildren(canRenew ? row.form : h("span", { class: "hint" }, "No renewals left"));
}

/** overdueTag says, in words, that a loan is overdue and by how long; nothing when it is not. */
export function overdueTag(loan) {
  const days = Number(loan.daysOverdue ?? 0);
  if (days <= 0 && !(Date.parse(loan.dueAt) < Date.now())) return [];
  return [" ", h("span", { class: "tag overdue" }, days > 0 ? `Overdue by ${daysText(days)}` : "Overdue")];
}

/** movedNote says why a loan's due date moved (the library closed the day it was due); nothing
 * when it did not. */
export function movedNote(loan) {
  const moved = loan.dueMoved;
  if (!moved) return [];
  return [h("br"), h("span", { class: "hint moved" }, `Moved from ${formatDay(moved.from)}: the library is closed on ${formatDay(`${moved.date}T12:00:00`)}`)];
}

/** daysText is a count of days in words: "1 day", "3 days". */
export function daysText(days) {
  return `${days} ${days === 1 ? "day" : "days"}`;
}

/** renewedDue is the new due time a renewal's answer gives. */
function renewedDue(result) {
  return result?.data?.events?.find((e) => e.type === "LoanRenewed")?.data?.dueAt ?? null;
}

/** renew sends one renewal of loan under key; a refusal is said in the page's words. */
async function renew(loan, key, { signal, onRetry }) {
  try {
    return await call("POST", path("books", loan.bookId, "loans", loan.loanId, "renewals"), {
      headers: { "Idempotency-Key": key }, attempts: RENEW_ATTEMPTS, signal, onRetry,
    });
  } catch (err) {
    throw refusal(err, loan);
  }
}

/** refusal says why the service refused a renewal, in one sentence; other errors are kept. */
function refusal(err, loan) {
  const title = `“${loan.title || loan.bookId}”`;
  const sentence = {
    RenewalLimitReached: `${title} can't be renewed again: it has been renewed as many times as a loan may be. Please bring it back when it is due.`,
    LoanNotCurrent: `${title} can't be renewed: it has been brought back, so this loan has ended.`,
    HoldsWaiting: `${title} can't be renewed: another member is waiting for it. Please bring it back when it is due.`,
  }[err?.code];
  if (!sentence || !(err instanceof ApiError)) return err;
  return new ApiError(err.kind, sentence, { status: err.status, code: err.code, problem: err.problem, base: err.base });
}
