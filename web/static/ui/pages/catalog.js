// The catalog: the library's titles (GET /titles), a page at a time, each a row linked to its
// page (pages/title.js) that says how many of its copies are on the shelf and how many members
// wait for one (titlerows.js); a search by words of the title, authors or subjects, or by an
// ISBN; a filter to the titles with a copy on the shelf. A member signed in sees their place in
// each title's line, and places a hold on a title none of whose copies is on the shelf. A
// librarian adds titles and books here (catalogforms.js), and finds every copy, and who has
// it, under Copies (pages/copies.js).
//
// The list is the catalog view, which follows the log a moment behind: it is read as of this
// page's last write (minPosition). After an upgrade, until the new build of the view that keeps
// titles is ready, GET /titles answers 503 NotCaughtUp: the page says the catalog is being
// rebuilt, and reads it again after each Retry-After, for as long as it is shown.

import { call, writtenUpTo } from "../api.js";
import { addBookForm, addTitleForm } from "../catalogforms.js";
import { go } from "../router.js";
import { can, me } from "../session.js";
import { memberHolds, titlesTable } from "../titlerows.js";
import { clearError, field, h, setOutcome, showError } from "../ui.js";

/** PAGE_SIZE is how many titles a page shows. */
const PAGE_SIZE = 25;

export async function render(main, { query, signal }) {
  document.title = "Catalog · Library";
  const filter = { q: query.get("q") ?? "", available: query.get("available") === "true", after: query.get("after") ?? "" };
  const view = {
    filter, signal,
    list: h("div", { class: "table-wrap" }),
    state: h("p", { class: "outcome", role: "status", "aria-label": "Catalog" }),
    errors: h("div", { class: "alert-slot" }),
    pager: h("nav", { class: "pager", "aria-label": "Pages of titles" }),
  };
  const reload = () => load(view);
  // A hold placed or refused changes the title's counts: the list is read as of it, and so are the holds.
  view.holds = can("account") ? memberHolds(me().memberId, { signal, onChanged: () => load(view, { holdsAt: writtenUpTo() }) }) : null;
  main.append(
    h("h1", { tabindex: -1 }, "Catalog"),
    h("p", { class: "lede" }, "Every title in the library, how many of its copies are on the shelf, and how many members wait for one."),
    can("desk") ? h("p", {}, h("a", { href: "#/copies" }, "Every copy, and who has it")) : "",
    searchForm(filter),
    h("section", { class: "panel", "aria-labelledby": "titles-caption" },
      view.state, view.errors, view.list, view.pager, view.holds?.outcome, view.holds?.errors),
    can("desk") ? addTitleForm(reload, signal) : "",
    can("desk") ? addBookForm(reload, signal) : "",
  );
  await load(view);
}

/** hashQuery is the fragment's query for a filter: "?q=dune&available=true", or "". */
function hashQuery({ q, available, after }) {
  const params = new URLSearchParams();
  if (q) params.set("q", q);
  if (available) params.set("available", "true");
  if (after) params.set("after", after);
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** searchForm searches the titles, and keeps those with a copy on the shelf when asked; each search is an address of its own. */
function searchForm(filter) {
  const form = h("form", {
    role: "search", "aria-label": "Titles", class: "panel",
    onsubmit: (event) => {
      event.preventDefault();
      const { q, available } = event.target.elements;
      go(`#/books${hashQuery({ q: q.value.trim(), available: available.checked, after: "" })}`);
    },
  },
  h("div", { class: "fields" },
    field({
      id: "search-q", name: "q", label: "Title, author, subject or ISBN", type: "search", value: filter.q, wide: true,
      autocomplete: "off", hint: "Every word must match; an ISBN may have hyphens.",
    }),
    h("div", { class: "field check" },
      h("input", { type: "checkbox", id: "search-available", name: "available", value: "true", checked: filter.available }),
      h("label", { for: "search-available" }, "Only titles on the shelf")),
    h("button", { type: "submit" }, "Search")));
  return form;
}

/**
 * load reads a page of titles and draws it, with the member's holds when they are signed in
 * (read as of holdsAt, the position of a hold this page placed).
 */
async function load(view, { holdsAt = 0 } = {}) {
  const { filter, list, state, errors, pager, signal, holds } = view;
  const params = new URLSearchParams({ limit: String(PAGE_SIZE) });
  if (filter.q) params.set("q", filter.q);
  if (filter.available) params.set("available", "true");
  if (filter.after) params.set("after", filter.after);
  const minPosition = writtenUpTo();
  if (minPosition > 0) params.set("minPosition", String(minPosition));

  list.setAttribute("aria-busy", "true");
  setOutcome(state, "Loading the catalog…", { pending: true });
  clearError(errors);
  try {
    const [{ data }] = await Promise.all([call("GET", `/titles?${params}`, {
      signal,
      attempts: 5,
      keepTrying: (error) => rebuilding(error, minPosition),
      onRetry: ({ error, wait }) => setOutcome(state, retryText(error, wait, minPosition), { pending: true }),
    }), holds?.read({ position: holdsAt })]);
    const empty = can("desk") ? "No titles yet: add the first one below." : "No titles yet.";
    list.replaceChildren(titlesTable(data.titles ?? [], { found: filter.q !== "" || filter.available, holds, empty }));
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

/**
 * rebuilding says whether a failure is the catalog's titles still being built (an upgrade): a
 * NotCaughtUp to a read that waited for no position can be nothing else, and to one that did,
 * its detail says so.
 */
function rebuilding(error, minPosition) {
  if (error.code !== "NotCaughtUp") return false;
  return minPosition === 0 || /\bbeing built\b/.test(String(error.problem?.detail ?? ""));
}

/** retryText says why the catalog is read again, and, while it is being rebuilt, when. */
function retryText(error, wait, minPosition) {
  if (rebuilding(error, minPosition)) {
    const seconds = Math.max(1, Math.round(wait / 1000));
    return `The catalog is being rebuilt, and shows here once it is ready. ` +
      `Trying again in ${seconds} ${seconds === 1 ? "second" : "seconds"}…`;
  }
  if (error.code === "NotCaughtUp") return "The catalog is catching up with your last change…";
  return `${error.message} Trying again…`;
}

/** pagerLinks are "First page" (when not on it) and "Next page" (when the service gave a cursor). */
function pagerLinks(data, filter) {
  const count = (data.titles ?? []).length;
  const links = [h("p", { class: "summary" }, `${count} ${count === 1 ? "title" : "titles"} on this page.`)];
  if (filter.after) links.push(h("a", { href: `#/books${hashQuery({ ...filter, after: "" })}` }, "First page"));
  if (typeof data.next === "string" && data.next !== "") {
    links.push(h("a", { href: `#/books${hashQuery({ ...filter, after: data.next })}` }, "Next page"));
  }
  return links;
}
