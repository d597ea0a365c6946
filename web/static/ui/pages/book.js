// One book: its loan, if any, and the two things a librarian does with it: lend it to a member,
// and take it back (shown to librarians only). Each lend is one intent with its own loan id,
// made once and kept across retries, so that a lend sent twice is recorded once. A book on the
// hold shelf shows, to librarians, whom it waits for and until when (GET /holds?bookId=), and
// its Lend form is filled in with that member; a member signed in places a hold on a book that
// is out (hold.js). A copy of a title links to the title's page: the members waiting for any
// copy wait in the title's line, shown there; the book's own list is of those waiting for it
// alone.

import { call, path } from "../api.js";
import { commandForm } from "../command.js";
import { holdForm, placeText } from "../hold.js";
import { can, me } from "../session.js";
import {
  clearError, field, formatDay, formatTime, h, ID_HINT, ID_PATTERN, outcomeRegion, showError,
} from "../ui.js";

/** STATUS_WORDS are a book's status as the page says it. */
const STATUS_WORDS = { available: "On the shelf", lent: "Lent", held: "On the hold shelf" };

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
  const holds = can("desk") && book.status !== "available" ? await bookHolds(page) : [];
  if (signal.aborted) return;
  document.title = `${book.title} · Library`;
  heading.textContent = book.title;
  byline.textContent = `by ${book.author}`;
  const holder = holds.find((x) => x.status === "ready");
  const form = !can("desk") ? holdPanel(book, page) : book.status === "lent" ? returnForm(book, page) : lendForm(book, page, holder);
  body.replaceChildren(facts(book, holds), form ?? "");
}

/** bookHolds are the book's holder and queue, for a librarian; [] when they can't be read. */
async function bookHolds(page) {
  try {
    const { data } = await call("GET", `/holds?${new URLSearchParams({ bookId: page.bookId, limit: "100" })}`, { signal: page.signal });
    return data.holds ?? [];
  } catch {
    return []; // the page shows the book without them; a lend to another member is refused
  }
}

function facts(book, holds) {
  const rows = [["Id", book.id], ["Status", STATUS_WORDS[book.status] ?? book.status]];
  if (book.titleId) rows.push(["Copy of", h("a", { href: `#/titles/${encodeURIComponent(book.titleId)}` }, book.title)]);
  if (book.loan) {
    const { memberId, mine } = book.loan;
    if (memberId) rows.push(["Lent to", memberLink(memberId)]);
    else if (mine) rows.push(["Lent to", "you"]);
    rows.push(["Lent on", formatTime(book.loan.lentAt)], ["Due back", formatDay(book.loan.dueAt)], ["Loan id", book.loan.loanId]);
  }
  const holder = holds.find((x) => x.status === "ready");
  if (holder) rows.push(["Held for", memberLink(holder.memberId)], ["Until", formatTime(holder.until)]);
  const queue = holds.filter((x) => x.status === "waiting");
  if (queue.length > 0) {
    rows.push([book.titleId ? "Waiting for this copy" : "Waiting", queue.flatMap((x, i) => [i > 0 ? ", " : "", memberLink(x.memberId), ` (${placeText(x.place)})`])]);
  }
  return h("section", { class: "panel", "aria-labelledby": "facts-heading" },
    h("h2", { id: "facts-heading" }, "This book"),
    h("dl", { class: "facts" }, rows.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)])));
}

function memberLink(memberId) {
  return h("a", { href: `#/members/${encodeURIComponent(memberId)}` }, memberId);
}

/**
 * holdPanel is Place hold, for a member signed in, on a book that is out and not theirs: the
 * outcome says their place in the queue.
 */
function holdPanel(book, page) {
  if (!can("account") || book.loan?.mine || (book.status !== "lent" && book.status !== "held")) return null;
  const { form } = holdForm(book, me().memberId, {
    outcome: page.outcome, errors: page.errors, signal: page.signal, focus: () => page.heading,
  });
  return h("section", { class: "panel", "aria-labelledby": "hold-heading" },
    h("h2", { id: "hold-heading" }, "Wait for this book"),
    h("p", {}, book.status === "held"
      ? "It is on the hold shelf for another member. Place a hold to be next when they have had it."
      : "Place a hold, and it is kept for you on the hold shelf when it comes back."),
    form);
}

/** lendForm lends the book; a book on the hold shelf is filled in with the member it waits for. */
function lendForm(book, page, holder) {
  const button = h("button", { type: "submit" }, "Lend");
  const hint = holder ? `It waits for ${holder.memberId} on the hold shelf: lent to them, their hold is fulfilled.` : ID_HINT;
  const form = h("form", {},
    h("div", { class: "fields" },
      field({ id: "lend-member", name: "memberId", label: "Member id", required: true, pattern: ID_PATTERN, hint, autocomplete: "off", spellcheck: "false", value: holder?.memberId }),
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
      const held = result.data.events?.find((e) => e.type === "BookHeld")?.data;
      const where = held ? `is back, and held for ${held.memberId} on the hold shelf until ${formatDay(held.until)}` : "is back on the shelf";
      return `“${book.title}” ${where}.${late}`;
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
