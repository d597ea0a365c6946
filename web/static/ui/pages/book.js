// One book: its loan, if any, and the two things a librarian does with it: lend it to a member,
// and take it back. Each lend is one intent with its own loan id, made once and kept across
// retries, so that a lend sent twice is recorded once.

import { call, path, wrote } from "../api.js";
import { Intent } from "../intent.js";
import {
  clearError, field, formatDay, formatTime, h, ID_HINT, ID_PATTERN, outcomeRegion, refocus, setOutcome, showError,
} from "../ui.js";

export async function render(main, { params: [bookId], signal }) {
  document.title = `${bookId} · Library`;
  const heading = h("h1", { tabindex: -1 }, bookId);
  const byline = h("p", { class: "lede" });
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const body = h("div", { class: "columns" });
  main.append(
    h("p", {}, h("a", { href: "#/books" }, "← Catalog")),
    heading, byline, body, outcome, errors);
  const page = { bookId, heading, byline, body, outcome, errors, signal };
  await refresh(page);
}

/** refresh reads the book (from its own events, so it always shows the latest) and redraws it. */
async function refresh(page, { keepErrors = false } = {}) {
  const { bookId, heading, byline, body, errors, signal } = page;
  let book;
  try {
    ({ data: book } = await call("GET", path("books", bookId), { signal }));
    if (!keepErrors) clearError(errors);
  } catch (err) {
    if (signal.aborted) return;
    body.replaceChildren();
    showError(errors, err, { retry: () => { clearError(errors); refresh(page); } });
    return;
  }
  document.title = `${book.title} · Library`;
  heading.textContent = book.title;
  byline.textContent = `by ${book.author}`;
  body.replaceChildren(facts(book), book.status === "lent" ? returnForm(book, page) : lendForm(book, page));
}

function facts(book) {
  const rows = [["Id", book.id], ["Status", book.status === "lent" ? "Lent" : "On the shelf"]];
  if (book.loan) {
    rows.push(
      ["Lent to", h("a", { href: `#/members/${encodeURIComponent(book.loan.memberId)}` }, book.loan.memberId)],
      ["Lent on", formatTime(book.loan.lentAt)],
      ["Due back", formatDay(book.loan.dueAt)],
      ["Loan id", book.loan.loanId]);
  }
  return h("section", { class: "panel", "aria-labelledby": "facts-heading" },
    h("h2", { id: "facts-heading" }, "This book"),
    h("dl", { class: "facts" }, rows.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)])));
}

function lendForm(book, page) {
  const intent = new Intent();
  const button = h("button", { type: "submit" }, "Lend");
  const form = h("form", {
    oninput: () => intent.reset(),
    onsubmit: (event) => {
      event.preventDefault();
      if (intent.busy) return;
      const memberId = form.elements.memberId.value.trim();
      send(page, button, `Lending “${book.title}” to ${memberId}…`, () => intent.run((key) => call("POST", path("books", book.id, "loans"), {
        body: { loanId: `loan-${key}`, memberId }, headers: { "Idempotency-Key": key }, signal: page.signal,
        onRetry: () => setOutcome(page.outcome, "No answer yet; sending the same loan again…", { pending: true }),
      })), (result) => {
        const lent = result.data.events?.find((e) => e.type === "BookLent")?.data;
        const due = lent?.dueAt ? `, due back ${formatDay(lent.dueAt)}` : "";
        return `Lent “${book.title}” to ${memberId}${due}.`;
      });
    },
  },
  h("div", { class: "fields" },
    field({ id: "lend-member", name: "memberId", label: "Member id", required: true, pattern: ID_PATTERN, hint: ID_HINT, autocomplete: "off", spellcheck: "false" }),
    button));
  return h("section", { class: "panel", "aria-labelledby": "lend-heading" }, h("h2", { id: "lend-heading" }, "Lend this book"), form);
}

function returnForm(book, page) {
  const intent = new Intent();
  const button = h("button", { type: "submit" }, "Take back");
  const form = h("form", {
    onsubmit: (event) => {
      event.preventDefault();
      if (intent.busy) return;
      send(page, button, `Taking back “${book.title}”…`, () => intent.run((key) => call("POST", path("books", book.id, "returns"), {
        body: { loanId: book.loan.loanId }, headers: { "Idempotency-Key": key }, signal: page.signal,
      })), (result) => {
        const daysLate = result.data.events?.find((e) => e.type === "BookReturned")?.data?.daysLate ?? 0;
        const late = daysLate > 0 ? ` It came back ${daysLate} ${daysLate === 1 ? "day" : "days"} late: a late fine follows.` : "";
        return `“${book.title}” is back on the shelf.${late}`;
      });
    },
  },
  h("p", {}, `Lent to ${book.loan.memberId}, due back ${formatDay(book.loan.dueAt)}.`),
  button);
  return h("section", { class: "panel", "aria-labelledby": "return-heading" }, h("h2", { id: "return-heading" }, "Take it back"), form);
}

/**
 * send runs a command from a form: the button is disabled while it is in flight, its outcome is
 * shown once, the catalog is told the command's position (so it shows the change at once), and
 * the book is read again.
 */
async function send(page, button, pendingText, command, describe) {
  button.disabled = true;
  clearError(page.errors);
  setOutcome(page.outcome, pendingText, { pending: true });
  try {
    const result = await command();
    wrote(result.data);
    setOutcome(page.outcome, describe(result));
    await refresh(page);
  } catch (err) {
    if (page.signal.aborted) return;
    setOutcome(page.outcome, "");
    showError(page.errors, err);
    // A refusal (such as a book lent meanwhile by someone else) says the page is out of date.
    if (err.definite) await refresh(page, { keepErrors: true });
  } finally {
    button.disabled = false;
    // The redrawn book has new forms: focus goes to the one that follows, if it was lost.
    refocus(button.isConnected ? button : page.body.querySelector("button") ?? page.heading);
  }
}
