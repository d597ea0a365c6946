// The parts of an account that both a librarian's page of a member and a member's own page show:
// its facts and balance, and its history, newest first.

import { call, path } from "./api.js";
import { balanceText, clearError, formatCents, formatTime, h, showError } from "./ui.js";

/** HISTORY_PAGE is how many entries of the history a page shows at a time. */
const HISTORY_PAGE = 20;

/** LOAN_ENTRIES are the account's events that name a book, by its id. */
const LOAN_ENTRIES = new Set(["LoanOpened", "LoanClosed"]);

/** accountFacts are an account's id, name, email, library card, PIN (set or not) and balance. */
export function accountFacts(account) {
  return [
    h("dl", { class: "facts" },
      h("dt", {}, "Member id"), h("dd", {}, account.memberId),
      h("dt", {}, "Name"), h("dd", {}, account.name ?? "not given yet"),
      h("dt", {}, "Email"), h("dd", {}, account.email ?? "none"),
      h("dt", {}, "Library card"), h("dd", { id: "card-number" }, account.cardNumber ?? "none yet"),
      h("dt", {}, "PIN for self-check"), h("dd", {}, account.pinSet ? "set" : "not set")),
    h("p", { class: "balance", id: "balance" }, `Balance: ${balanceText(account.balance)}`),
  ];
}

/**
 * historyPanel is the account's history, newest first, a page at a time: {section, refresh}.
 * refresh reads the newest page again (after the page changed the account).
 */
export function historyPanel(memberId, { signal }) {
  const body = h("tbody");
  const errors = h("div", { class: "alert-slot" });
  const more = h("p");
  const section = h("section", { class: "panel", "aria-labelledby": "history-caption" },
    h("div", { class: "table-wrap" }, h("table", {},
      h("caption", { id: "history-caption" }, "History"),
      h("thead", {}, h("tr", {}, ["What", "When", "By"].map((c) => h("th", { scope: "col" }, c)))),
      body)),
    more, errors);

  // A loan's entries name its book by id; people know it by its title, which GET /books/{id}
  // gives. Each book is read once for the panel; one that can't be read now is shown by its id,
  // and read again with the next page.
  const titles = new Map(); // book id → a promise of its title, or of null
  function titleOf(bookId) {
    if (!titles.has(bookId)) {
      titles.set(bookId, call("GET", path("books", bookId), { signal }).then(({ data }) => data?.title || null, () => {
        titles.delete(bookId);
        return null;
      }));
    }
    return titles.get(bookId);
  }
  async function booksOf(entries) {
    const ids = [...new Set(entries.filter((e) => LOAN_ENTRIES.has(e.type) && e.data?.bookId).map((e) => e.data.bookId))];
    const found = await Promise.all(ids.map(titleOf));
    return new Map(ids.map((id, i) => [id, { id, title: found[i] }]));
  }

  async function load(before) {
    const query = new URLSearchParams({ limit: String(HISTORY_PAGE) });
    if (before) query.set("before", String(before));
    try {
      const { data } = await call("GET", `${path("accounts", memberId, "history")}?${query}`, { signal });
      const entries = data.entries ?? [];
      const books = await booksOf(entries);
      clearError(errors);
      const rows = entries.map((entry) => entryRow(entry, books));
      if (before) body.append(...rows);
      else body.replaceChildren(...(rows.length ? rows : [h("tr", {}, h("td", { colspan: 3, class: "empty" }, "Nothing yet."))]));
      more.replaceChildren(typeof data.next === "number"
        ? h("button", { type: "button", class: "secondary", onclick: () => load(data.next) }, "Show older entries")
        : "");
    } catch (err) {
      if (signal.aborted) return;
      if (err.code === "NotFound") {
        body.replaceChildren(h("tr", {}, h("td", { colspan: 3, class: "empty" }, "No account yet.")));
        return;
      }
      showError(errors, err, { retry: () => load(before) });
    }
  }

  return { section, refresh: () => load(0) };
}

function entryRow(entry, books) {
  return h("tr", {},
    h("th", { scope: "row" }, what(entry, books)),
    h("td", {}, formatTime(entry.recordedAt)),
    h("td", {}, who(entry.by)));
}

/** what says an event of the account in words; books maps the ids of its books to them. */
function what({ type, data }, books) {
  const d = data ?? {};
  switch (type) {
    case "AccountOpened": return `Account opened for ${d.name ?? "the member"}`;
    case "ContactChanged": return `Name or email set: ${[d.name, d.email].filter(Boolean).join(", ")}`;
    case "FineCharged": return `Fine of ${formatCents(d.amount)}${d.reason ? `: ${d.reason}` : ""}`;
    case "PaymentReceived": return `Payment of ${formatCents(d.amount)}${d.checkoutId ? " online" : ""}`;
    case "CheckoutStarted": return `Payment page opened for ${formatCents(d.amount)}`;
    case "CheckoutEnded": return "Payment page ended unpaid";
    case "RefundDue": return `${formatCents(d.amount)} paid twice, to be given back`;
    case "RefundIssued": return `${formatCents(d.amount)} given back`;
    case "CardAssigned": return `Library card ${d.cardNumber} given`;
    case "PINSet": return "PIN for self-check set";
    case "PINRefused": return d.lockedUntil
      ? `Wrong PIN at a self-check kiosk: locked until ${formatTime(d.lockedUntil)}`
      : "Wrong PIN at a self-check kiosk";
    case "PINAccepted": return "Right PIN at a self-check kiosk, after wrong ones";
    case "LoanOpened": return ["Borrowed ", bookLink(books.get(d.bookId))];
    case "LoanClosed": return ["Brought back ", bookLink(books.get(d.bookId))];
    default: return type;
  }
}

/** bookLink is a book's title (its id when it has none to show), linked to its page. */
function bookLink(book) {
  if (!book) return "a book";
  return h("a", { href: `#/books/${encodeURIComponent(book.id)}` }, book.title ?? book.id);
}

/** who says who did it, as much as the viewer may see. */
function who(by) {
  if (!by) return "not recorded";
  if (by.role === "system") return "the library";
  if (by.role === "open") return "someone (no sign-in)";
  return by.subject ? `${by.subject} (${by.role})` : `a ${by.role}`;
}
