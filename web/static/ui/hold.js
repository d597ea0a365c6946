// The commands of holds and what they say: placing a hold on a book that is out (POST
// /books/{bookId}/holds) or on a title none of whose copies is on the shelf (POST
// /titles/{titleId}/holds), and lending a book on the hold shelf to the member it waits for.
//
// Both are sent as Renew and Pay are (command.js): one Idempotency-Key per intent, made at the
// first press and kept across every attempt of it, so that a double click, a second Enter or a
// retry after no answer places one hold, or makes one loan. A hold's answer says it was placed,
// not where: the member's place in the queue is in the holds view, which follows the log a
// moment behind, so the page reads the member's holds until the view has seen the hold (its
// position), for a while, and says the place then. A refusal is said in one sentence of the
// page's own.

import { ApiError, call, path } from "./api.js";
import { commandForm } from "./command.js";
import { formatCents, formatDay, h, setOutcome } from "./ui.js";

/** HOLD_ATTEMPTS is how many times one hold (or lend) is sent before the page stops and says so. */
export const HOLD_ATTEMPTS = 4;

/** PLACE_READS is how many times the holds view is read for a new hold's place before giving up. */
const PLACE_READS = 12;

const ordinals = new Intl.PluralRules("en", { type: "ordinal" });
const SUFFIXES = { one: "st", two: "nd", few: "rd", other: "th" };

/** placeText says a place in a book's queue: "first in line", "2nd in line". */
export function placeText(place) {
  const n = Number(place);
  return n === 1 ? "first in line" : `${n}${SUFFIXES[ordinals.select(n)]} in line`;
}

/** bookTitle is a book's or a hold's title in quotes, or its id (the copy's, else the title's) when it has none. */
export function bookTitle(item) {
  return `“${item.title || item.bookId || item.titleId || item.id}”`;
}

/**
 * holdForm is the Place hold button of a book that is out, for the member signed in: {form,
 * intent}. outcome and errors are where it speaks; onPlaced(hold) is told the hold as the holds
 * view shows it (null when the view has not shown it yet), and onRefused() a refusal; focus()
 * is where focus goes when the button is gone.
 */
export function holdForm(book, memberId, { outcome, errors, signal, onPlaced, onRefused, focus }) {
  const title = bookTitle(book);
  const button = h("button", { type: "submit", class: "secondary", "aria-label": `Place hold on ${book.title || book.id}` }, "Place hold");
  const form = h("form", { class: "renew" }, button);
  const intent = commandForm(form, {
    name: `hold:${memberId}:${book.id}`, button, outcome, errors, signal,
    read: () => ({ pending: `Placing a hold on ${title}…` }),
    send: (_, key, { onRetry }) => placeHold(book, memberId, key, { signal, onRetry }),
    retrying: ({ attempt, error }) => `${error.message} Sending the same hold again (attempt ${attempt + 1} of ${HOLD_ATTEMPTS}): ` +
      "it carries the same key, so one hold is placed.",
    done: () => `Hold placed on ${title}. Finding your place in the queue…`,
    after: async (result) => {
      const hold = await waitForHold(memberId, book.id, Number(result.data?.position ?? 0), signal);
      if (signal.aborted) return;
      setOutcome(outcome, `Hold placed on ${title}: ${hold ? holdSentence(hold) : "your place in the queue shows under My account in a moment."}`);
      onPlaced?.(hold);
    },
    failed: (err) => (err?.definite ? onRefused?.() : null),
    focus,
    unsure: "The hold may or may not have been placed. Press Place hold again to find out: it is sent with the same key, so one hold is placed.",
    again: "Press Place hold to place it: it carries the same key as before, so one hold is placed.",
  });
  return { form, intent };
}

/** holdSentence says where the member's hold is: "you are 2nd in line." */
function holdSentence(hold) {
  return hold.status === "ready"
    ? `it waits for you on the hold shelf until ${formatDay(hold.until)}.`
    : `you are ${placeText(hold.place)}.`;
}

/** placeHold sends one hold of memberId on book under key; a refusal is said in the page's words. */
async function placeHold(book, memberId, key, { signal, onRetry }) {
  try {
    return await call("POST", path("books", book.id, "holds"), {
      body: { memberId }, headers: { "Idempotency-Key": key }, attempts: HOLD_ATTEMPTS, signal, onRetry,
    });
  } catch (err) {
    throw restated(err, holdRefusal(err, book));
  }
}

/**
 * titleHoldForm is the Place hold button of a title, for the member signed in: {form, intent}.
 * The hold is on the title, so the first copy of it that comes free is kept for them. Its answer
 * says it was placed, not where in the line (their place shows under My account, from the holds
 * view): onPlaced() is told once it is placed, and onRefused(err) a refusal; focus() is where
 * focus goes when the button is gone.
 */
export function titleHoldForm(title, memberId, { outcome, errors, signal, onPlaced, onRefused, focus }) {
  const quoted = `“${title.title}”`;
  const button = h("button", { type: "submit", class: "secondary", "aria-label": `Place hold on ${title.title}` }, "Place hold");
  const form = h("form", { class: "renew" }, button);
  const intent = commandForm(form, {
    name: `title-hold:${memberId}:${title.id}`, button, outcome, errors, signal,
    read: () => ({ pending: `Placing a hold on ${quoted}…` }),
    send: (_, key, { onRetry }) => placeTitleHold(title, memberId, key, { signal, onRetry }),
    retrying: ({ attempt, error }) => `${error.message} Sending the same hold again (attempt ${attempt + 1} of ${HOLD_ATTEMPTS}): ` +
      "it carries the same key, so one hold is placed.",
    done: () => `Hold placed on ${quoted}: the first copy that comes back is kept for you on the hold shelf.`,
    after: () => onPlaced?.(),
    failed: (err) => (err?.definite ? onRefused?.(err) : null),
    focus,
    unsure: "The hold may or may not have been placed. Press Place hold again to find out: it is sent with the same key, so one hold is placed.",
    again: "Press Place hold to place it: it carries the same key as before, so one hold is placed.",
  });
  return { form, intent };
}

/** placeTitleHold sends one hold of memberId on title under key; a refusal is said in the page's words. */
async function placeTitleHold(title, memberId, key, { signal, onRetry }) {
  try {
    return await call("POST", path("titles", title.id, "holds"), {
      body: { memberId }, headers: { "Idempotency-Key": key }, attempts: HOLD_ATTEMPTS, signal, onRetry,
    });
  } catch (err) {
    throw restated(err, titleHoldRefusal(err, title));
  }
}

/** titleHoldRefusal is the sentence for a hold on a title the service refused, or "" for other errors. */
function titleHoldRefusal(err, title) {
  const quoted = `“${title.title}”`;
  switch (err?.code) {
    case "TitleAvailable":
      return `A copy of ${quoted} is on the shelf now, so there is no need to wait for it: ask at the desk to borrow it.`;
    case "AlreadyHeld":
      return `You are waiting for ${quoted} already, or a copy of it is held for you or lent to you.`;
    case "HoldQueueFull":
      return `${quoted} can't be held now: as many members are waiting for it as may. Please try again later.`;
    case "NotFound":
      return /member|account/.test(err.problem?.detail ?? "")
        ? memberRefusal(err)
        : `The library has no title ${quoted} any more.`;
    default:
      return memberRefusal(err);
  }
}

/** holdRefusal is the sentence for a hold the service refused, or "" for other errors. */
function holdRefusal(err, book) {
  const title = bookTitle(book);
  switch (err?.code) {
    case "BookAvailable":
      return `${title} is on the shelf now, so there is no need to wait for it: ask at the desk to borrow it.`;
    case "AlreadyHeld":
      return `You are waiting for ${title} already, or it is held for you or lent to you: see My account.`;
    case "HoldQueueFull":
      return `${title} can't be held now: as many members are waiting for it as may. Please try again later.`;
    case "NotFound":
      return /account/.test(err.problem?.detail ?? "") ? memberRefusal(err) : "";
    default:
      return memberRefusal(err);
  }
}

/** memberRefusal is the sentence for a hold refused for what the member is, or "" for other errors. */
function memberRefusal(err) {
  switch (err?.code) {
    case "MemberBlocked":
      return `You can't place holds while you owe ${owed(err)}: please pay under My account first.`;
    case "NotFound":
      return "The library has no account for you yet, so you can't place holds: ask at the desk to open one.";
    case "Gone":
      return "Your account was closed, so you can't place holds.";
    default:
      return "";
  }
}

/** owed is what a MemberBlocked refusal says the member owes, as an amount, or a phrase. */
function owed(err) {
  const m = /owes (-?\d+) cents/.exec(err.problem?.detail ?? "");
  return m ? formatCents(Number(m[1])) : "more than the library allows";
}

/** restated is err with sentence as its message (when there is one), its code kept. */
export function restated(err, sentence) {
  if (!sentence || !(err instanceof ApiError)) return err;
  return new ApiError(err.kind, sentence, { status: err.status, code: err.code, problem: err.problem, base: err.base });
}

/**
 * waitForHold reads memberId's holds until the holds view has seen the event at position, and
 * returns their hold on bookId then (null when it ended meanwhile). It gives up, with null,
 * after PLACE_READS reads or when a read fails: the place is then said elsewhere.
 */
export async function waitForHold(memberId, bookId, position, signal) {
  for (let read = 0; read < PLACE_READS && !signal.aborted; read++) {
    let data;
    try {
      ({ data } = await call("GET", path("accounts", memberId, "holds"), { signal, attempts: 1 }));
    } catch {
      return null;
    }
    if (Number(data.position ?? 0) >= position) return (data.holds ?? []).find((x) => x.bookId === bookId) ?? null;
    await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** read, 1000)));
  }
  return null;
}

/**
 * lendHolderForm is the Lend button of a hold on the shelf: it lends the book to the member it
 * waits for, which fulfils the hold. after(result) is told once it is lent (or a refusal said).
 */
export function lendHolderForm(hold, { outcome, errors, signal, after, focus }) {
  const title = bookTitle(hold);
  const button = h("button", { type: "submit", "aria-label": `Lend ${hold.title || hold.bookId} to ${hold.memberId}` }, "Lend");
  const form = h("form", { class: "renew" }, button);
  const intent = commandForm(form, {
    name: `lend-held:${hold.bookId}:${hold.memberId}`, button, outcome, errors, signal,
    read: () => ({ pending: `Lending ${title} to ${hold.memberId}…` }),
    send: (_, key, { onRetry }) => lendToHolder(hold, key, { signal, onRetry }),
    retrying: ({ attempt, error }) => `${error.message} Sending the same loan again (attempt ${attempt + 1} of ${HOLD_ATTEMPTS}): ` +
      "it carries the same key and loan id, so the book is lent once.",
    done: (result) => {
      const lent = result.data?.events?.find((e) => e.type === "BookLent")?.data;
      return `Lent ${title} to ${hold.memberId}${lent?.dueAt ? `, due back ${formatDay(lent.dueAt)}` : ""}. Their hold is fulfilled.`;
    },
    after: (result) => after?.(result),
    failed: (err) => (err?.definite ? after?.(null) : null),
    focus,
    unsure: "The loan may or may not have been recorded. Press Lend again to find out: it carries the same key and loan id, so the book is lent once.",
    again: "Press Lend to lend it: it carries the same key and loan id as before, so it is lent once.",
  });
  return { form, intent };
}

/** lendToHolder lends hold's book to its member under key (the loan id is made of the key). */
async function lendToHolder(hold, key, { signal, onRetry }) {
  try {
    return await call("POST", path("books", hold.bookId, "loans"), {
      body: { loanId: `loan-${key}`, memberId: hold.memberId }, headers: { "Idempotency-Key": key }, attempts: HOLD_ATTEMPTS, signal, onRetry,
    });
  } catch (err) {
    throw restated(err, lendRefusal(err, hold));
  }
}

/** lendRefusal is the sentence for a lend to a holder the service refused, or "". */
function lendRefusal(err, hold) {
  const title = bookTitle(hold);
  const who = hold.memberId;
  return {
    BookOnHold: `${title} is no longer held for ${who}: it waits for another member now.`,
    BookAlreadyLent: `${title} is lent already: the hold ended meanwhile.`,
    MemberBlocked: `${title} can't be lent to ${who} while they owe ${owed(err)}: they must pay first.`,
    LoanLimitReached: `${title} can't be lent to ${who}: they have as many books out as a member may.`,
    Gone: `${title} can't be lent to ${who}: their account was erased.`,
  }[err?.code] ?? "";
}
