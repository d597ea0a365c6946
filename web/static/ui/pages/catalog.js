// The catalog: every book, a page at a time, whether it is on the shelf, lent (until when, and
// to whom for librarians; a member sees which loans are theirs) or held on the hold shelf, a
// search by title or author, and, for librarians, a form to add a book. A member signed in
// sees their holds beside the books (GET /accounts/{memberId}/holds), and places one on a book
// that is out with its Place hold button (hold.js).

import { call, path, writtenUpTo } from "../api.js";
import { commandForm } from "../command.js";
import { holdForm, placeText } from "../hold.js";
import { go } from "../router.js";
import { can, me } from "../session.js";
import {
  clearError, field, formatDay, h, ID_HINT, ID_PATTERN, outcomeRegion, setOutcome, showError,
} from "../ui.js";

/** PAGE_SIZE is how many books a page shows. */
const PAGE_SIZE = 25;

export async function render(main, { query, signal }) {
  document.title = "Catalog · Library";
  const filter = { q: query.get("q") ?? "", status: query.get("status") ?? "", after: query.get("after") ?? "" };
  const list = h("div", { class: "table-wrap" });
  const listState = h("p", { class: "outcome", role: "status" });
  const listError = h("div", { class: "alert-slot" });
  const pager = h("nav", { class: "pager", "aria-label": "Pages of books" });
  const holds = can("account") ? memberHolds(me().memberId, signal) : null;
  const reload = () => load({ filter, list, listState, listError, pager, signal, holds });
  main.append(
    h("h1", { tabindex: -1 }, "Catalog"),
    h("p", { class: "lede" }, "Every book in the library, whether it is on the shelf, and who has it."),
    searchForm(filter),
    h("section", { class: "panel", "aria-labelledby": "books-caption" }, listState, listError, list, pager,
      holds?.outcome, holds?.errors),
    can("desk") ? addBookForm(reload, signal) : "",
  );
  await reload();
}

/** hashQuery is the fragment's query for a filter: "?q=dune&status=lent", or "". */
function hashQuery({ q, status, after }) {
  const params = new URLSearchParams();
  if (q) params.set("q", q);
  if (status) params.set("status", status);
  if (after) params.set("after", after);
  const s = params.toString();
  return s ? `?${s}` : "";
}

function searchForm(filter) {
  const form = h("form", {
    role: "search", "aria-label": "Books", class: "panel",
    onsubmit: (event) => {
      event.preventDefault();
      const form = event.target;
      go(`#/books${hashQuery({ q: form.elements.q.value.trim(), status: form.elements.status.value, after: "" })}`);
    },
  },
  h("div", { class: "fields" },
    field({ id: "search-q", name: "q", label: "Title or author", type: "search", value: filter.q, wide: true, autocomplete: "off" }),
    field({
      id: "search-status", name: "status", label: "Status", tag: "select",
      options: [["", "Any"], ["available", "On the shelf"], ["lent", "Lent"], ["held", "On the hold shelf"]],
    }),
    h("button", { type: "submit" }, "Search")));
  form.elements.status.value = filter.status;
  return form;
}

async function load({ filter, list, listState, listError, pager, signal, holds }) {
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filter.q) params.set("q", filter.q);
  if (filter.status) params.set("status", filter.status);
  if (filter.after) params.set("after", filter.after);
  const minPosition = writtenUpTo();
  if (minPosition > 0) params.set("minPosition", String(minPosition));

  list.setAttribute("aria-busy", "true");
  setOutcome(listState, "Loading the catalog…", { pending: true });
  clearError(listError);
  try {
    const [{ data }] = await Promise.all([call("GET", `/books?${params}`, {
      signal,
      attempts: 5,
      onRetry: ({ error }) => setOutcome(listState, error.code === "NotCaughtUp"
        ? "The catalog is catching up with your last change…"
        : `${error.message} Trying again…`, { pending: true }),
    }), holds?.read()]);
    list.replaceChildren(booksTable(data.books ?? [], filter, holds));
    pager.replaceChildren(...pagerLinks(data, filter));
    setOutcome(listState, "");
  } catch (err) {
    if (signal.aborted) return;
    setOutcome(listState, "");
    showError(listError, err, { retry: () => load({ filter, list, listState, listError, pager, signal, holds }) });
  } finally {
    list.removeAttribute("aria-busy");
  }
}

function booksTable(books, filter, holds) {
  const caption = filter.q || filter.status ? "Books found" : "Books";
  const columns = ["Title", "Author", "Status", ...(holds ? ["Hold"] : [])];
  const rows = books.map((b) => {
    const title = h("a", { href: `#/books/${encodeURIComponent(b.id)}` }, b.title);
    return h("tr", {},
      h("th", { scope: "row" }, title),
      h("td", {}, b.author),
      h("td", {}, loanCell(b, holds?.of(b.id))),
      holds ? h("td", {}, holds.cell(b, title)) : null);
  });
  if (rows.length === 0) {
    const text = filter.q || filter.status ? "No book matches." : can("desk") ? "No books yet: add the first one below." : "No books yet.";
    rows.push(h("tr", {}, h("td", { colspan: columns.length, class: "empty" }, text)));
  }
  return h("table", {},
    h("caption", { id: "books-caption" }, caption),
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows));
}

/**
 * loanCell says whether a book is on the shelf, on the hold shelf (for whom, when it is for the
 * member reading: myHold is their hold on it), or until when it is lent, and to whom when that may be
 * shown: "Lent to alice until Dec 18, 2026", "Lent until …". The words after the tag start with
 * a word, never a comma, which would stand apart from the tag on screen and be read out after a
 * pause.
 */
function loanCell(book, myHold) {
  if (book.status === "held") {
    const until = myHold?.status === "ready" ? ` for you until ${formatDay(myHold.until)}` : " on the hold shelf";
    return [h("span", { class: "tag held" }, "Held"), until];
  }
  if (book.status !== "lent" || !book.loan) return h("span", { class: "tag available" }, "On the shelf");
  const { memberId, mine, dueAt } = book.loan;
  const to = memberId ? [" to ", h("a", { href: `#/members/${encodeURIComponent(memberId)}` }, memberId)] : mine ? [" to you"] : [];
  return [h("span", { class: "tag lent" }, "Lent"), ...to, ` until ${formatDay(dueAt)}`];
}

/**
 * memberHolds is what the catalog knows of the holds of the member signed in: read() reads them
 * (a failure leaves them unknown: the service refuses a hold twice anyway), of(bookId) is their
 * hold on a book, and cell(book, title) the Hold column's cell: their place in the queue, or
 * Place hold on a book that is out. The Place hold forms are kept across reads of the catalog,
 * with their keys, for as long as the page is shown.
 */
function memberHolds(memberId, signal) {
  const holds = {
    outcome: outcomeRegion(),
    errors: h("div", { class: "alert-slot" }),
    byBook: new Map(),
    forms: new Map(), // book id → its Place hold form
  };
  holds.outcome.setAttribute("aria-label", "Holds");
  holds.read = async () => {
    try {
      const { data } = await call("GET", path("accounts", memberId, "holds"), { signal, attempts: 2 });
      holds.byBook = new Map((data.holds ?? []).map((x) => [x.bookId, x]));
    } catch {
      // unknown: every book that is out offers Place hold, and the service says what is so
    }
  };
  holds.of = (bookId) => holds.byBook.get(bookId);
  holds.cell = (book, title) => {
    const cell = h("span");
    const draw = () => cell.replaceChildren(holdCell(holds, memberId, book, { title, signal, redraw: draw }));
    draw();
    return cell;
  };
  return holds;
}

/** holdCell is what the Hold column says of book to the member: their place, or Place hold. */
function holdCell(holds, memberId, book, { title, signal, redraw }) {
  const mine = holds.of(book.id);
  if (mine?.status === "ready") return "Waiting for you";
  if (mine) return mine.place ? `You are ${placeText(mine.place)}` : "On hold for you";
  const form = holds.forms.get(book.id);
  const busy = form?.intent.busy;
  if (!busy && (book.loan?.mine || (book.status !== "lent" && book.status !== "held"))) return "";
  if (form) return form.form;
  const made = holdForm(book, memberId, {
    outcome: holds.outcome, errors: holds.errors, signal, focus: () => title,
    onPlaced: (hold) => {
      holds.byBook.set(book.id, hold ?? { bookId: book.id, status: "waiting", place: null });
      redraw();
    },
    onRefused: () => holds.read().then(redraw),
  });
  holds.forms.set(book.id, made);
  return made.form;
}

/** pagerLinks are "First page" (when not on it) and "Next page" (when the service gave a cursor). */
function pagerLinks(data, filter) {
  const count = (data.books ?? []).length;
  const links = [h("p", { class: "summary" }, `${count} ${count === 1 ? "book" : "books"} on this page.`)];
  if (filter.after) links.push(h("a", { href: `#/books${hashQuery({ ...filter, after: "" })}` }, "First page"));
  if (typeof data.next === "string" && data.next !== "") {
    links.push(h("a", { href: `#/books${hashQuery({ ...filter, after: data.next })}` }, "Next page"));
  }
  return links;
}

function addBookForm(onAdded, signal) {
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Add book");
  const form = h("form", {},
    h("div", { class: "fields" },
      field({ id: "new-book-id", name: "id", label: "Id", required: true, pattern: ID_PATTERN, hint: ID_HINT, autocomplete: "off", spellcheck: "false" }),
      field({ id: "new-book-title", name: "title", label: "Title", required: true, wide: true }),
      field({ id: "new-book-author", name: "author", label: "Author", required: true, wide: true }),
      button),
    outcome, errors);
  commandForm(form, {
    name: "add-book", button, outcome, errors, signal,
    read: () => {
      const book = { id: form.elements.id.value.trim(), title: form.elements.title.value.trim(), author: form.elements.author.value.trim() };
      return { book, pending: `Adding “${book.title}”…` };
    },
    send: ({ book }, key) => call("POST", "/books", { body: book, headers: { "Idempotency-Key": key }, signal }),
    done: (_, { book }) => `Added “${book.title}” by ${book.author}.`,
    after: () => {
      form.reset();
      onAdded();
    },
    again: "Press Add book to add it: it carries the same key as before, so it is added once.",
  });
  return h("section", { class: "panel", "aria-labelledby": "add-book" }, h("h2", { id: "add-book" }, "Add a book"), form);
}
