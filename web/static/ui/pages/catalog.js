// The catalog: every book, a page at a time, whether it is on the shelf, lent (until when, and
// to whom for librarians; a member sees which loans are theirs) or held on the hold shelf, a
// search by title or author, and, for librarians, a form to add a book and one to add a title
// (whose page, pages/title.js, takes its copies by barcode). A member signed in
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
    can("desk") ? addTitleForm(signal) : "",
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
      // A hold waiting for any copy of a title has no book (bookId null), and the catalog's
      // pages don't say which title a book is a copy of: it shows under My account instead.
      holds.byBook = new Map((data.holds ?? []).filter((x) => x.bookId).map((x) => [x.bookId, x]));
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

/**
 * addTitleForm adds a title (POST /titles): its record, with no copy yet. Once it is added the
 * outcome links to its page, where its copies are added by barcode.
 */
function addTitleForm(signal) {
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Add title");
  const form = h("form", {},
    h("div", { class: "fields" },
      field({ id: "new-title-title", name: "title", label: "Title", required: true, wide: true }),
      field({ id: "new-title-authors", name: "authors", label: "Authors, one per line", tag: "textarea", rows: 2, required: true, wide: true })),
    h("div", { class: "fields" },
      field({ id: "new-title-isbn", name: "isbn", label: "ISBN (optional)", autocomplete: "off", spellcheck: "false", inputmode: "numeric", hint: "ISBN-10 or ISBN-13, with or without hyphens." }),
      field({ id: "new-title-year", name: "year", label: "Year (optional)", inputmode: "numeric", pattern: "[0-9]{4}", size: 6, autocomplete: "off" }),
      field({ id: "new-title-language", name: "language", label: "Language (optional)", pattern: "[A-Za-z]{2,3}", size: 8, autocomplete: "off", spellcheck: "false", hint: "Its ISO 639 code: en, fr, deu." }),
      field({ id: "new-title-publisher", name: "publisher", label: "Publisher (optional)", wide: true })),
    h("div", { class: "fields" },
      field({ id: "new-title-subjects", name: "subjects", label: "Subjects, one per line (optional)", tag: "textarea", rows: 2, wide: true }),
      field({ id: "new-title-id", name: "id", label: "Id (optional)", pattern: ID_PATTERN, autocomplete: "off", spellcheck: "false", hint: `Left empty, one is made. ${ID_HINT}` }),
      button),
    outcome, errors);
  commandForm(form, {
    name: "add-title", button, outcome, errors, signal,
    read: () => {
      const { title, error } = titleRequest(form.elements);
      return error ? { error } : { title, pending: `Adding “${title.title}”…` };
    },
    send: ({ title }, key) => call("POST", "/titles", { body: title, headers: { "Idempotency-Key": key }, signal }),
    done: (_, { title }) => `Added “${title.title}” by ${title.authors.join(", ")}. `,
    after: (result, { title }) => {
      const id = result.data.events?.find((e) => e.type === "TitleAdded")?.data?.id ?? result.data.streamId.replace(/^title-/, "");
      outcome.append(h("a", { href: `#/titles/${encodeURIComponent(id)}` }, `Add copies of “${title.title}” on its page`), ".");
      form.reset();
    },
    explain: (err) => titleRefusal(err),
    again: "Press Add title to add it: it carries the same key as before, so it is added once.",
  });
  return h("section", { class: "panel", "aria-labelledby": "add-title" },
    h("h2", { id: "add-title" }, "Add a title"),
    h("p", {}, "A title is the book as the catalog describes it; the library's copies of it are added on its page, by barcode."),
    form);
}

/** titleRefusal is an alert for a title the service refused as a twin of another, with a link to that one; null otherwise. */
function titleRefusal(err) {
  if (err?.code !== "TitleAlreadyExists") return null;
  const detail = err.problem?.detail ?? "";
  const other = /title-(\S+)/.exec(detail)?.[1];
  const link = (id) => h("a", { href: `#/titles/${encodeURIComponent(id)}` }, `the title ${id}`);
  const sentence = other
    ? ["This ISBN belongs to ", link(other), " already: add copies on its page, or check the ISBN."]
    : [`There is a title with this id already (${/title (\S+) already/.exec(detail)?.[1] ?? "the one given"}): choose another id, or leave it empty.`];
  return h("div", { class: "alert", role: "alert" }, h("p", {}, ...sentence), h("p", { class: "code" }, `Code: ${err.code}`));
}

/** lines are a textarea's lines, trimmed, without empty ones or the same one twice. */
function lines(text) {
  return [...new Set(String(text).split("\n").map((x) => x.trim()).filter((x) => x !== ""))];
}

/** titleRequest reads the Add a title form into the body of POST /titles, or an error sentence. */
function titleRequest(fields) {
  const value = (name) => fields[name].value.trim();
  const title = { title: value("title"), authors: lines(fields.authors.value) };
  if (title.title === "") return { error: "Enter the title." };
  if (title.authors.length === 0) return { error: "Enter at least one author, one per line." };
  if (value("id")) title.id = value("id");
  if (value("isbn")) title.isbn = value("isbn");
  if (value("year")) {
    if (!/^\d{4}$/.test(value("year"))) return { error: "Enter the year as four digits, such as 1965, or leave it empty." };
    title.year = Number(value("year"));
  }
  if (value("publisher")) title.publisher = value("publisher");
  if (value("language")) title.language = value("language");
  const subjects = lines(fields.subjects.value);
  if (subjects.length > 0) title.subjects = subjects;
  return { title };
}
