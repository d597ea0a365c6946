// One book: its loan, if any, and the two things a librarian does with it: lend it to a member,
// and take it back (shown to librarians only). Each lend is one intent with its own loan id,
// made once and kept across retries, so that a lend sent twice is recorded once.

import { call, path } from "../api.js";
import { commandForm } from "../command.js";
import { can } from "../session.js";
import {
  clearError, field, formatDay, formatTime, h, ID_HINT, ID_PATTERN, outcomeRegion, showError,
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
  const form = !can("desk") ? null : book.status === "lent" ? returnForm(book, page) : lendForm(book, page);
  body.replaceChildren(facts(book), form ?? "");
}

function facts(book) {
  const rows = [["Id", book.id], ["Status", book.status === "lent" ? "Lent" : "On the shelf"]];
  if (book.loan) {
    const { memberId, mine } = book.loan;
    if (memberId) rows.push(["Lent to", h("a", { href: `#/members/${encodeURIComponent(memberId)}` }, memberId)]);
    else if (mine) rows.push(["Lent to", "you"]);
    rows.push(["Lent on", formatTime(book.loan.lentAt)], ["Due back", formatDay(book.loan.dueAt)], ["Loan id", book.loan.loanId]);
  }
  return h("section", { class: "panel", "aria-labelledby": "facts-heading" },
    h("h2", { id: "facts-heading" }, "This book"),
    h("dl", { class: "facts" }, rows.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)])));
}

function lendForm(book, page) {
  const button = h("button", { type: "submit" }, "Lend");
  const form = h("form", {},
    h("div", { class: "fields" },
      field({ id: "lend-member", name: "memberId", label: "Member id", required: true, pattern: ID_PATTERN, hint: ID_HINT, autocomplete: "off", spellcheck: "false" }),
      button));
  command(form, page, {
    name: `lend:${book.id}`, button,
    read: () => {
      const memberId = form.elements.memberId.value.trim();
      return { memberId, pending: `Lending “${book.title}” to ${memberId}…` };
    },
    send: ({ memberId }, key) => call("POST", path("books", book.id, "loans"), {
      body: { loanId: `loan-${key}`, memberId }, headers: { "Idempotency-Key": key }, signal: page.signal,
    }),
    retrying: () => "No answer yet; sending the same loan again…",
    done: (result, { memberId }) => {
      const lent = result.data.events?.find((e) => e.type === "BookLent")?.data;
      const due = lent?.dueAt ? `, due back ${formatDay(lent.dueAt)}` : "";
      return `Lent “${book.title}” to ${memberId}${due}.`;
    },
    again: "Press Lend to lend it: it carries the same key and loan id as before, so it is lent once.",
  });
  return h("section", { class: "panel", "aria-labelledby": "lend-heading" }, h("h2", { id: "lend-heading" }, "Lend this book"), form);
}

function returnForm(book, page) {
  const button = h("button", { type: "submit" }, "Take back");
  const who = book.loan.memberId ? ` to ${book.loan.memberId}` : "";
  const form = h("form", {}, h("p", {}, `Lent${who}, due back ${formatDay(book.loan.dueAt)}.`), button);
  command(form, page, {
    name: `return:${book.id}:${book.loan.loanId}`, button,
    read: () => ({ pending: `Taking back “${book.title}”…` }),
    send: (_, key) => call("POST", path("books", book.id, "returns"), {
      body: { loanId: book.loan.loanId }, headers: { "Idempotency-Key": key }, signal: page.signal,
    }),
    done: (result) => {
      const daysLate = result.data.events?.find((e) => e.type === "BookReturned")?.data?.daysLate ?? 0;
      const late = daysLate > 0 ? ` It came back ${daysLate} ${daysLate === 1 ? "day" : "days"} late: a late fine follows.` : "";
      return `“${book.title}” is back on the shelf.${late}`;
    },
    again: "Press Take back to record it.",
  });
  return h("section", { class: "panel", "aria-labelledby": "return-heading" }, h("h2", { id: "return-heading" }, "Take it back"), form);
}

/**
 * command sends a form's command under its intent's key (command.js), with the page's outcome
 * and alert slot: once it is recorded the book is read again (the catalog was told the
 * command's position, so it shows the change at once). A refusal (such as a book lent
 * meanwhile by someone else) says the page is out of date: the book is read again too.
 */
function command(form, page, spec) {
  commandForm(form, {
    ...spec, outcome: page.outcome, errors: page.errors, signal: page.signal,
    after: () => refresh(page),
    failed: (err) => err.definite ? refresh(page, { keepErrors: true }) : null,
    // The redrawn book has new forms: focus goes to the one that follows, if it was lost.
    focus: () => page.body.querySelector("button") ?? page.heading,
  });
}
