// The catalog's rows: one per title (GET /titles), linked to the title's page, with its authors,
// how many of its copies are on the shelf and how many members wait, in words ("2 of 3 on the
// shelf", "4 waiting"), never by colour alone. For a member signed in, a column says where they
// are in the title's line, or offers Place hold on a title none of whose copies is on the shelf
// (hold.js): the first copy that comes back is kept for them.

import { call, path } from "./api.js";
import { placeText, titleHoldForm } from "./hold.js";
import { formatDay, h, listText, outcomeRegion } from "./ui.js";

/** HOLD_READS is how many times the holds view is read for a hold this page placed, before the page stops waiting for it. */
const HOLD_READS = 10;

/**
 * titlesTable is the table of titles. found says a search or the filter chose them (the
 * caption and the empty row say so); holds, for a member signed in, adds their column; empty is
 * what an empty catalog says.
 */
export function titlesTable(titles, { found, holds, empty }) {
  const columns = ["Title", "Authors", "Copies", "Holds", ...(holds ? ["Your hold"] : [])];
  if (holds) holds.links.clear();
  const rows = titles.map((t) => {
    const link = h("a", { href: `#/titles/${encodeURIComponent(t.id)}` }, t.title);
    holds?.links.set(t.id, link);
    return h("tr", {},
      h("th", { scope: "row" }, link),
      h("td", {}, listText(t.authors ?? [])),
      h("td", {}, shelfTag(t.counts)),
      h("td", {}, waitingText(t.counts)),
      holds ? h("td", {}, holds.cell(t)) : null);
  });
  if (rows.length === 0) {
    rows.push(h("tr", {}, h("td", { colspan: columns.length, class: "empty" }, found ? "No title matches." : empty)));
  }
  return h("table", {},
    h("caption", { id: "titles-caption" }, found ? "Titles found" : "Titles"),
    h("thead", {}, h("tr", {}, columns.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, rows));
}

/** shelfText says how many of a title's copies are on the shelf: "2 of 3 on the shelf", "None on the shelf", "No copies yet". */
export function shelfText({ total, available }) {
  if (total === 0) return "No copies yet";
  if (available === 0) return "None on the shelf";
  return `${available} of ${total} on the shelf`;
}

/** shelfTag is shelfText in a tag whose colour repeats it: green while a copy is on the shelf. */
function shelfTag(counts) {
  const kind = counts.available > 0 ? "available" : counts.total > 0 ? "lent" : "none";
  return h("span", { class: `tag ${kind}` }, shelfText(counts));
}

/** waitingText says how many members wait for a copy of a title: "4 waiting", "No one waiting". */
export function waitingText({ holdsWaiting }) {
  return holdsWaiting > 0 ? `${holdsWaiting} waiting` : "No one waiting";
}

/**
 * memberHolds is what the catalog knows of the holds of the member signed in, by title. read()
 * reads them (a failure leaves them unknown: the service refuses a hold twice anyway); a hold
 * on one copy, or a copy held on the shelf, names the copy and not its title, whose title is
 * read from the copy (once: a copy stays a copy of its title). cell(title) is the Your hold
 * column's cell. onChanged(), told when a hold is placed or refused, reads the catalog again
 * (its counts, and these holds, as of the hold's position). The Place
 * hold forms are kept across reads of the catalog, with their keys, for as long as the page
 * is shown; outcome and errors are where they speak.
 */
export function memberHolds(memberId, { signal, onChanged }) {
  const holds = {
    outcome: outcomeRegion(),
    errors: h("div", { class: "alert-slot" }),
    byTitle: new Map(), // title id → the member's hold on it (one on the shelf first)
    titleOf: new Map(), // copy id → the id of its title
    placed: new Set(), // titles this page placed a hold on, until the holds view shows it
    forms: new Map(), // title id → its Place hold form
    links: new Map(), // title id → its link in the table drawn last, where focus goes
  };
  holds.outcome.setAttribute("aria-label", "Holds");

  /** read reads the member's holds; with position, again until the view has seen that event, for a while. */
  holds.read = async ({ position = 0 } = {}) => {
    try {
      let data;
      for (let n = 1; ; n++) {
        ({ data } = await call("GET", path("accounts", memberId, "holds"), { signal, attempts: 2 }));
        if (Number(data.position ?? 0) >= position || n >= HOLD_READS) break;
        await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** n, 1000)));
      }
      const list = data.holds ?? [];
      await Promise.all(list.filter((x) => !x.titleId && x.bookId && !holds.titleOf.has(x.bookId)).map(async (x) => {
        const { data: book } = await call("GET", path("books", x.bookId), { signal, attempts: 2 });
        if (book.titleId) holds.titleOf.set(x.bookId, book.titleId);
      }).map((p) => p.catch(() => {}))); // a copy whose title can't be read shows no hold
      holds.byTitle = new Map();
      for (const x of list) {
        const titleId = x.titleId ?? holds.titleOf.get(x.bookId);
        if (!titleId) continue;
        if (x.status === "ready" || !holds.byTitle.has(titleId)) holds.byTitle.set(titleId, x);
        holds.placed.delete(titleId);
      }
    } catch {
      // unknown: every title with no copy on the shelf offers Place hold, and the service says what is so
    }
  };

  holds.cell = (title) => {
    const mine = holds.byTitle.get(title.id);
    if (mine?.status === "ready") return `A copy waits for you until ${formatDay(mine.until)}`;
    if (mine) return mine.place ? `You are ${placeText(mine.place)}` : "You are waiting";
    if (holds.placed.has(title.id)) return "You are waiting";
    const made = holds.forms.get(title.id);
    if (made?.intent.busy) return made.form;
    if (title.counts.available > 0) return "";
    return (made ?? newForm(title)).form;
  };

  function newForm(title) {
    const made = titleHoldForm(title, memberId, {
      outcome: holds.outcome, errors: holds.errors, signal,
      focus: () => holds.links.get(title.id),
      onPlaced: () => {
        holds.placed.add(title.id);
        return onChanged();
      },
      onRefused: () => onChanged(),
    });
    holds.forms.set(title.id, made);
    return made;
  }
  return holds;
}
