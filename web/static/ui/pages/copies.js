// Copies: every copy in the library (GET /books), a page at a time, whether it is on the shelf,
// lent (until when, and to whom for librarians; a member sees which loans are theirs) or on the
// hold shelf, with a search by title or author and a filter by status. It is the desk's list of
// what is out; the catalog (pages/catalog.js) lists titles, and links here for librarians.

import { call, writtenUpTo } from "../api.js";
import { go } from "../router.js";
import { clearError, field, formatDay, h, setOutcome, showError } from "../ui.js";

/** PAGE_SIZE is how many copies a page shows. */
const PAGE_SIZE = 25;

export async function render(main, { query, signal }) {
  document.title = "Copies · Library";
  const filter = { q: query.get("q") ?? "", status: query.get("status") ?? "", after: query.get("after") ?? "" };
  const view = {
    filter, signal,
    list: h("div", { class: "table-wrap" }),
    state: h("p", { class: "outcome", role: "status", "aria-label": "Copies" }),
    errors: h("div", { class: "alert-slot" }),
    pager: h("nav", { class: "pager", "aria-label": "Pages of copies" }),
  };
  main.append(
    h("p", {}, h("a", { href: "#/books" }, "← Catalog")),
    h("h1", { tabindex: -1 }, "Copies"),
    h("p", { class: "lede" }, "Every copy in the library, one by one: whether it is on the shelf, and who has it."),
    searchForm(filter),
    h("section", { class: "panel", "aria-labelledby": "copies-caption" }, view.state, view.errors, view.list, view.pager));
  await load(view);
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
    role: "search", "aria-label": "Copies", class: "panel",
    onsubmit: (event) => {
      event.preventDefault();
      const form = event.target;
      go(`#/copies${hashQuery({ q: form.elements.q.value.trim(), status: form.elements.status.value, after: "" })}`);
    },
  },
  h("div", { class: "fields" },
    field({ id: "copies-q", name: "q", label: "Title or author", type: "search", value: filter.q, wide: true, autocomplete: "off" }),
    field({
      id: "copies-status", name: "status", label: "Status", tag: "select",
      options: [["", "Any"], ["available", "On the shelf"], ["lent", "Lent"], ["held", "On the hold shelf"]],
    }),
    h("button", { type: "submit" }, "Search")));
  form.elements.status.value = filter.status;
  return form;
}

/** load reads a page of copies, as of this page's last write (minPosition), and draws it. */
async function load(view) {
  const { filter, list, state, errors, pager, signal } = view;
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filter.q) params.set("q", filter.q);
  if (filter.status) params.set("status", filter.status);
  if (filter.after) params.set("after", filter.after);
  const minPosition = writtenUpTo();
  if (minPosition > 0) params.set("minPosition", String(minPosition));

  list.setAttribute("aria-busy", "true");
  setOutcome(state, "Loading the copies…", { pending: true });
  clearError(errors);
  try {
    const { data } = await call("GET", `/books?${params}`, {
      signal,
      attempts: 5,
      onRetry: ({ error }) => setOutcome(state, error.code === "NotCaughtUp"
        ? "The list of copies is catching up with your last change…"
        : `${error.message} Trying again…`, { pending: true }),
    });
    list.replaceChildren(copiesTable(data.books ?? [], filter));
    pager.replaceChildren(...pagerLinks(data, filter));
    setOutcome(state, "");
  } catch (err) {
    if (signal.aborted) return;
    setOutcome(state, "");
    showError(errors, err, { retry: () => load(view) });
  } finally {
    list.removeAttribute("aria-busy");
  }
}

function copiesTable(books, filter) {
  const found = filter.q || filter.status;
  const rows = books.map((b) => h("tr", {},
    h("th", { scope: "row" }, h("a", { href: `#/books/${encodeURIComponent(b.id)}` }, b.title)),
    h("td", {}, b.author),
    h("td", {}, b.id),
    h("td", {}, loanCell(b))));
  if (rows.length === 0) {
    rows.push(h("tr", {}, h("td", { colspan: 4, class: "empty" }, found ? "No copy matches." : "No copies yet.")));
  }
  return h("table", {},
    h("caption", { id: "copies-caption" }, found ? "Copies found" : "Copies"),
    h("thead", {}, h("tr", {}, ["Title", "Author", "Copy", "Status"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows));
}

/**
 * loanCell says whether a copy is on the shelf, on the hold shelf, or until when it is lent, and
 * to whom when that may be shown: "Lent to alice until Dec 18, 2026", "Lent until …". The words
 * after the tag start with a word, never a comma, which would stand apart from the tag on
 * screen and be read out after a pause.
 */
function loanCell(book) {
  if (book.status === "held") return [h("span", { class: "tag held" }, "Held"), " on the hold shelf"];
  if (book.status !== "lent" || !book.loan) return h("span", { class: "tag available" }, "On the shelf");
  const { memberId, mine, dueAt } = book.loan;
  const to = memberId ? [" to ", h("a", { href: `#/members/${encodeURIComponent(memberId)}` }, memberId)] : mine ? [" to you"] : [];
  return [h("span", { class: "tag lent" }, "Lent"), ...to, ` until ${formatDay(dueAt)}`];
}

/** pagerLinks are "First page" (when not on it) and "Next page" (when the service gave a cursor). */
function pagerLinks(data, filter) {
  const count = (data.books ?? []).length;
  const links = [h("p", { class: "summary" }, `${count} ${count === 1 ? "copy" : "copies"} on this page.`)];
  if (filter.after) links.push(h("a", { href: `#/copies${hashQuery({ ...filter, after: "" })}` }, "First page"));
  if (typeof data.next === "string" && data.next !== "") {
    links.push(h("a", { href: `#/copies${hashQuery({ ...filter, after: data.next })}` }, "Next page"));
  }
  return links;
}
