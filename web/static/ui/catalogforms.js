// The librarian's forms of the catalog: Add a title (POST /titles), the record alone, whose
// copies are added by barcode on its page (pages/title.js), and Add a book (POST /books), a
// copy added on its own, which the service files under the title with its ISBN, or under a
// title it makes from its title and author. Each is one intent per press (command.js): sent
// again, it carries the same key, so it is added once.

import { call } from "./api.js";
import { commandForm } from "./command.js";
import { field, h, ID_HINT, ID_PATTERN, outcomeRegion } from "./ui.js";

/** addBookForm adds a book, a copy on its own; onAdded() is told once it is added. */
export function addBookForm(onAdded, signal) {
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
  return h("section", { class: "panel", "aria-labelledby": "add-book" },
    h("h2", { id: "add-book" }, "Add a book"),
    h("p", {}, "A copy on its own, filed under the title its title and author make (added when there is none). " +
      "A title's copies are usually added on its page, by barcode."),
    form);
}

/**
 * addTitleForm adds a title (POST /titles): its record, with no copy yet. Once it is added the
 * outcome links to its page, where its copies are added by barcode, and onAdded() is told.
 */
export function addTitleForm(onAdded, signal) {
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
      onAdded();
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
