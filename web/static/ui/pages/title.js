// One title: its record, its copies with what each is doing ("2 of 3 on the shelf, 4
// waiting"), and what a person does with it. A member signed in places a hold on the title
// when none of its copies is on the shelf (hold.js), so that the first copy that comes back is
// kept for them, whichever it is. A librarian adds copies to it by barcode (POST
// /titles/{titleId}/copies) and sees its queue (GET /titles/{titleId}/holds): the members
// waiting, first in line first, and the copies on the hold shelf. The title and its queue are
// read from the title's own stream, so they show every command that has been answered: the
// page reads them again after each of its own.

import { call, path } from "../api.js";
import { commandForm } from "../command.js";
import { placeText, restated, titleHoldForm } from "../hold.js";
import { can, me } from "../session.js";
import {
  clearError, field, formatDay, formatTime, h, ID_HINT, ID_PATTERN, listText, outcomeRegion, showError,
} from "../ui.js";

const languages = new Intl.DisplayNames(["en"], { type: "language", fallback: "code" });

export async function render(main, { params: [titleId], signal }) {
  document.title = `${titleId} · Library`;
  const page = {
    titleId, signal,
    heading: h("h1", { tabindex: -1 }, titleId),
    byline: h("p", { class: "lede" }),
    outcome: outcomeRegion(),
    errors: h("div", { class: "alert-slot" }),
    facts: h("section", { class: "panel", "aria-labelledby": "title-facts-heading" }),
    summary: h("p", { id: "copies-summary" }),
    copies: h("tbody"),
    queue: can("desk") ? queuePanel() : null,
    placed: false, // a hold this page placed, or was told of (it reads no list of the member's holds)
    title: null,
  };
  page.action = can("desk") ? copyPanel(page) : can("account") ? holdPanel(page) : null;
  const body = h("div", { class: "columns" }, page.facts, page.action?.section);
  body.hidden = true;
  page.body = body;
  page.copiesSection = h("section", { class: "panel", "aria-labelledby": "copies-heading", hidden: true },
    h("h2", { id: "copies-heading" }, "Copies"),
    page.summary,
    h("div", { class: "table-wrap" }, h("table", { "aria-labelledby": "copies-heading", "aria-describedby": "copies-summary" },
      h("thead", {}, h("tr", {}, ["Copy", "Barcode", "Status"].map((c) => h("th", { scope: "col" }, c)))),
      page.copies)));
  main.append(
    h("p", {}, h("a", { href: "#/books" }, "← Catalog")),
    page.heading, page.byline, page.outcome, page.errors,
    body, page.copiesSection, page.queue?.section ?? "");
  await refresh(page);
}

/**
 * refresh reads the title (and, for a librarian, its queue) and redraws them; the forms are
 * kept, with their keys, so that a command in flight is not lost to a redraw.
 */
async function refresh(page, { keepErrors = false } = {}) {
  const { titleId, signal, errors } = page;
  let title, queue;
  try {
    [{ data: title }, queue] = await Promise.all([
      call("GET", path("titles", titleId), { signal }),
      page.queue ? call("GET", path("titles", titleId, "holds"), { signal }).then((r) => r.data, (err) => err) : null,
    ]);
    if (!keepErrors) clearError(errors);
  } catch (err) {
    if (signal.aborted) return;
    showError(errors, err, { retry: () => { clearError(errors); refresh(page); } });
    return;
  }
  if (signal.aborted) return;
  page.title = title;
  document.title = `${title.title} · Library`;
  page.heading.textContent = title.title;
  page.byline.textContent = `by ${listText(title.authors)}`;
  page.facts.replaceChildren(...facts(title));
  page.summary.textContent = countsText(title.counts);
  const rows = title.copies.map((copy) => h("tr", {},
    h("th", { scope: "row" }, h("a", { href: `#/books/${encodeURIComponent(copy.id)}` }, copy.id)),
    h("td", {}, copy.barcode ?? "None"),
    h("td", {}, copyStatus(copy))));
  page.copies.replaceChildren(...(rows.length ? rows
    : [h("tr", {}, h("td", { colspan: 3, class: "empty" }, can("desk") ? "No copies yet: add the first one by its barcode." : "The library has no copy of it yet."))]));
  page.action?.update(title);
  page.queue?.update(queue, () => refresh(page));
  page.body.hidden = false;
  page.copiesSection.hidden = false;
}

function facts(title) {
  const rows = [["Id", title.id], ["Authors", title.authors.join("; ")]];
  if (title.isbn) rows.push(["ISBN", title.isbn]);
  if (title.year != null) rows.push(["Year", String(title.year)]);
  if (title.publisher) rows.push(["Publisher", title.publisher]);
  if (title.language) rows.push(["Language", languages.of(title.language)]);
  if (title.subjects.length > 0) rows.push(["Subjects", title.subjects.join("; ")]);
  return [
    h("h2", { id: "title-facts-heading" }, "This title"),
    h("dl", { class: "facts" }, rows.flatMap(([term, value]) => [h("dt", {}, term), h("dd", {}, value)])),
  ];
}

/** countsText says how many copies are on the shelf, and how many members wait: "2 of 3 on the shelf, 4 waiting." */
export function countsText({ total, available, holdsWaiting }) {
  const waiting = holdsWaiting === 0 ? "no one waiting" : `${holdsWaiting} waiting`;
  if (total === 0) return `No copies yet; ${waiting}.`;
  return `${available} of ${total} on the shelf, ${waiting}.`;
}

/**
 * copyStatus says what a copy is doing, in words (never by colour alone): on the shelf, lent
 * (to whom, to staff; "to you", to its borrower) until when, or on the hold shelf (for whom)
 * until when.
 */
function copyStatus(copy) {
  const who = (word) => (copy.memberId ? [` ${word} `, memberLink(copy.memberId)] : copy.mine ? [` ${word} you`] : []);
  if (copy.status === "lent") {
    return [h("span", { class: "tag lent" }, "Lent"), ...who("to"), copy.dueAt ? ` until ${formatDay(copy.dueAt)}` : ""];
  }
  if (copy.status === "held") {
    const whom = who("for");
    return [h("span", { class: "tag held" }, "Held"), ...(whom.length ? whom : [" on the hold shelf"]),
      copy.heldUntil ? ` until ${formatDay(copy.heldUntil)}` : ""];
  }
  return h("span", { class: "tag available" }, "On the shelf");
}

function memberLink(memberId) {
  return h("a", { href: `#/members/${encodeURIComponent(memberId)}` }, memberId);
}

/**
 * holdPanel is Place hold on the title, for a member signed in. It is offered while no copy is
 * on the shelf and none is theirs; otherwise the panel says why there is nothing to wait for.
 * The service decides in the end: a copy brought back after the page was drawn is a refusal
 * (TitleAvailable), said in the page's words, and the title is read again.
 */
function holdPanel(page) {
  const text = h("p");
  const memberId = me().memberId;
  let hold = null; // made with the first title read, and kept with its key
  const section = h("section", { class: "panel", "aria-labelledby": "title-hold-heading" },
    h("h2", { id: "title-hold-heading" }, "Wait for this title"), text);
  const update = (title) => {
    if (!hold) {
      hold = titleHoldForm(title, memberId, {
        outcome: page.outcome, errors: page.errors, signal: page.signal, focus: () => page.heading,
        onPlaced: () => {
          page.placed = true;
          return refresh(page);
        },
        onRefused: (err) => {
          // AlreadyHeld: they wait already (a copy held for them or lent to them shows as theirs)
          if (err?.code === "AlreadyHeld") page.placed = true;
          return refresh(page, { keepErrors: true });
        },
      });
      section.append(hold.form);
    }
    if (hold.intent.busy) return;
    const { offered, why } = holdOffer(title, page.placed);
    text.textContent = why;
    hold.form.hidden = !offered;
  };
  return { section, update };
}

/** holdOffer is whether a member may place a hold on title now, and what the panel says. */
function holdOffer(title, placed) {
  const mine = title.copies.find((c) => c.mine);
  if (mine?.status === "held") {
    return { offered: false, why: `A copy waits for you on the hold shelf until ${formatDay(mine.heldUntil)}: ask at the desk for it.` };
  }
  if (mine?.status === "lent") return { offered: false, why: "You have a copy of it on loan." };
  if (placed) return { offered: false, why: "You are waiting for a copy. The first that comes back is kept for you on the hold shelf." };
  const { total, available } = title.counts;
  if (available > 0) {
    return { offered: false, why: `${available === 1 ? "A copy is" : `${available} copies are`} on the shelf: ask at the desk to borrow one.` };
  }
  if (total === 0) return { offered: true, why: "The library has no copy yet. Place a hold, and the first copy it adds is kept for you." };
  return { offered: true, why: "Every copy is out. Place a hold, and the first copy that comes back is kept for you on the hold shelf." };
}

/**
 * copyPanel is the librarian's Add a copy: a copy's barcode (as the scanner types it) and,
 * optionally, its id; the service makes one from the form's key when it is left empty. The
 * title is read again once it is added.
 */
function copyPanel(page) {
  const button = h("button", { type: "submit" }, "Add copy");
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const form = h("form", {},
    h("div", { class: "fields" },
      field({ id: "new-copy-barcode", name: "barcode", label: "Barcode", required: true, autocomplete: "off", spellcheck: "false", hint: "Scan the label, or type its digits." }),
      field({ id: "new-copy-id", name: "id", label: "Copy id (optional)", pattern: ID_PATTERN, autocomplete: "off", spellcheck: "false", hint: `Left empty, one is made. ${ID_HINT}` }),
      button),
    outcome, errors);
  commandForm(form, {
    name: `add-copy:${page.titleId}`, button, outcome, errors, signal: page.signal,
    read: () => {
      const barcode = form.elements.barcode.value.trim();
      const id = form.elements.id.value.trim();
      if (barcode === "") return { error: "Enter the copy's barcode." };
      return { copy: id ? { id, barcode } : { barcode }, pending: `Adding the copy with barcode ${barcode}…` };
    },
    send: ({ copy }, key) => call("POST", path("titles", page.titleId, "copies"), {
      body: copy, headers: { "Idempotency-Key": key }, signal: page.signal,
    }).catch((err) => { throw restated(err, copyRefusal(err, copy)); }),
    done: (result, { copy }) => {
      const id = result.data.events?.find((e) => e.type === "BookAdded")?.data?.id ?? copy.id;
      return `Added ${id ? `copy ${id}` : "a copy"} with barcode ${copy.barcode}.`;
    },
    after: () => {
      form.reset();
      return refresh(page);
    },
    failed: (err) => (err?.definite ? refresh(page, { keepErrors: true }) : null),
    unsure: "The copy may or may not have been added. Press Add copy again to find out: it carries the same key, so it is added once.",
    again: "Press Add copy to add it: it carries the same key as before, so it is added once.",
  });
  const section = h("section", { class: "panel", "aria-labelledby": "add-copy-heading" },
    h("h2", { id: "add-copy-heading" }, "Add a copy"), form);
  return { section, update: () => {} };
}

/** copyRefusal is the sentence for a copy the service refused, or "" for other errors. */
function copyRefusal(err, copy) {
  switch (err?.code) {
    case "BarcodeTaken": {
      const other = /book-(\S+)/.exec(err.problem?.detail ?? "")?.[1];
      return `The barcode ${copy.barcode} is on ${other ? `copy ${other}` : "another copy"} already: check the label, and scan it again.`;
    }
    case "BookAlreadyExists":
      return `There is a book with the id ${copy.id} already: choose another id, or leave it empty.`;
    case "NotFound":
      return "The library has no such title any more.";
    default:
      return "";
  }
}

/**
 * queuePanel is the title's queue, for a librarian: the members waiting, first in line first,
 * each with the copy their hold is for (any, or one), and the copies on the hold shelf with
 * whom they wait for and until when.
 */
function queuePanel() {
  const waiting = h("tbody");
  const ready = h("tbody");
  const errors = h("div", { class: "alert-slot" });
  const section = h("section", { class: "panel", "aria-labelledby": "queue-heading", hidden: true },
    h("h2", { id: "queue-heading" }, "Holds on this title"),
    errors,
    h("div", { class: "table-wrap" }, h("table", {},
      h("caption", {}, "Waiting for a copy"),
      h("thead", {}, h("tr", {}, ["Member", "Place", "Copy", "Placed on"].map((c) => h("th", { scope: "col" }, c)))),
      waiting)),
    h("div", { class: "table-wrap" }, h("table", {},
      h("caption", {}, "On the hold shelf"),
      h("thead", {}, h("tr", {}, ["Copy", "Member", "Waits until"].map((c) => h("th", { scope: "col" }, c)))),
      ready)));
  const update = (queue, retry) => {
    section.hidden = false;
    if (queue instanceof Error || !queue) {
      showError(errors, queue ?? { message: "The queue can't be read." }, { retry });
      return;
    }
    clearError(errors);
    const place = (n) => { const s = placeText(n); return s[0].toUpperCase() + s.slice(1); };
    waiting.replaceChildren(...(queue.waiting.length ? queue.waiting.map((x) => h("tr", {},
      h("th", { scope: "row" }, memberLink(x.memberId)),
      h("td", {}, place(x.place)),
      h("td", {}, x.bookId ? h("a", { href: `#/books/${encodeURIComponent(x.bookId)}` }, x.bookId) : "Any copy"),
      h("td", { title: formatTime(x.placedAt) }, formatDay(x.placedAt))))
      : [h("tr", {}, h("td", { colspan: 4, class: "empty" }, "No one is waiting."))]));
    ready.replaceChildren(...(queue.ready.length ? queue.ready.map((x) => h("tr", {},
      h("th", { scope: "row" }, h("a", { href: `#/books/${encodeURIComponent(x.bookId)}` }, x.bookId)),
      h("td", {}, memberLink(x.memberId)),
      h("td", { title: formatTime(x.until) }, formatDay(x.until))))
      : [h("tr", {}, h("td", { colspan: 3, class: "empty" }, "No copy waits on the hold shelf."))]));
  };
  return { section, update };
}
