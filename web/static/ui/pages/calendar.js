// The library's calendar: a month at a time (#/calendar?month=2026-12), from GET /calendar, in
// the library's time zone, with the days it is closed marked: a date closed on its own, and the
// weekdays it closes every week. Anyone reads it. A librarian closes a day and opens it again
// from the month (PUT and DELETE /calendar/closed/{date}), moving between days with the arrow
// keys, and sets the weekdays closed every week (PUT /calendar/weekly). Each command carries an
// Idempotency-Key, the same on every retry of it. Without a month in the address, the page
// shows the month of the library's today, which the service says.

import { call, path } from "../api.js";
import { commandForm } from "../command.js";
import { newKey } from "../intent.js";
import { can } from "../session.js";
import { clearError, h, listText, outcomeRegion, refocus, setOutcome, showError } from "../ui.js";

/** WEEKDAYS are the API's names of the days of the week, from Sunday, as the month's columns are. */
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

const fullDate = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeZone: "UTC" });
const monthName = new Intl.DateTimeFormat(undefined, { month: "long", year: "numeric", timeZone: "UTC" });
const longDay = new Intl.DateTimeFormat(undefined, { weekday: "long", timeZone: "UTC" });
const shortDay = new Intl.DateTimeFormat(undefined, { weekday: "short", timeZone: "UTC" });

/** utc is the civil date "2026-12-24" as a Date at midnight UTC, for arithmetic and formatting. */
function utc(date) {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d));
}

/** isoDate writes a Date at midnight UTC as the API writes dates. */
function isoDate(d) {
  return d.toISOString().slice(0, 10);
}

/** weekdayName is the name of weekday w (0: Sunday) as people read it. */
function weekdayName(w, format = longDay) {
  return format.format(new Date(Date.UTC(2023, 0, 1 + w))); // 2023-01-01 was a Sunday
}

export async function render(main, { query, signal }) {
  document.title = "Calendar · Library";
  const editable = can("desk");
  const view = {
    signal, editable, month: null, data: null, cells: new Map(), busy: new Set(),
    caption: h("caption", { id: "month-caption" }, "Calendar"),
    body: h("tbody"),
    months: h("nav", { class: "pager months", "aria-label": "Months" }),
    zone: h("p", { class: "hint", id: "month-zone" }),
    state: h("p", { class: "outcome", role: "status" }),
    outcome: outcomeRegion(),
    errors: h("div", { class: "alert-slot" }),
    weekly: h("section", { class: "panel", "aria-labelledby": "weekly-heading" }),
  };
  view.outcome.setAttribute("aria-label", "Closings");
  view.table = h("table", { class: "month", "aria-describedby": "month-zone" },
    view.caption,
    h("thead", {}, h("tr", {}, WEEKDAYS.map((_, w) => h("th", { scope: "col" },
      h("span", { "aria-hidden": "true" }, weekdayName(w, shortDay)),
      h("span", { class: "visually-hidden" }, weekdayName(w)))))),
    view.body);
  view.table.addEventListener("keydown", (event) => moveFocus(view, event));
  main.append(
    h("h1", { tabindex: -1 }, "Library calendar"),
    h("p", { class: "lede" }, "The days the library opens. Loans fall due on open days only."),
    h("section", { class: "panel", "aria-labelledby": "month-caption" },
      view.months, view.zone, view.state, view.errors,
      h("div", { class: "table-wrap" }, view.table),
      view.outcome),
    view.weekly);
  if (editable) view.weeklyForm = weeklyForm(view);
  await show(view, /^\d{4}-(0[1-9]|1[0-2])$/.test(query.get("month") ?? "") ? query.get("month") : null);
}

/** show reads the month ("2026-12"; null: the library's today's) and draws it. */
async function show(view, month) {
  const { signal } = view;
  setOutcome(view.state, "Reading the calendar…", { pending: true });
  try {
    if (month === null) month = (await call("GET", "/calendar", { signal })).data.today.slice(0, 7);
    const first = utc(`${month}-01`);
    const last = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 0));
    const { data } = await call("GET", `/calendar?${new URLSearchParams({ from: isoDate(first), to: isoDate(last) })}`, { signal });
    setOutcome(view.state, "");
    clearError(view.errors);
    if (view.month !== month) drawMonth(view, month, first, last);
    paint(view, data);
  } catch (err) {
    if (signal.aborted) return;
    setOutcome(view.state, "");
    showError(view.errors, err, { retry: () => { clearError(view.errors); show(view, month); } });
  }
}

/** drawMonth lays out the month's weeks, a cell per day, and the links to the months beside it. */
function drawMonth(view, month, first, last) {
  view.month = month;
  view.cells.clear();
  const name = monthName.format(first);
  view.caption.textContent = name;
  document.title = `Calendar, ${name} · Library`;
  const before = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() - 1, 1));
  const after = new Date(Date.UTC(first.getUTCFullYear(), first.getUTCMonth() + 1, 1));
  const link = (d, rel) => h("a", { href: `#/calendar?month=${isoDate(d).slice(0, 7)}`, rel },
    rel === "prev" ? h("span", { "aria-hidden": "true" }, "← ") : null, monthName.format(d),
    rel === "next" ? h("span", { "aria-hidden": "true" }, " →") : null);
  view.months.replaceChildren(link(before, "prev"), link(after, "next"));
  const weeks = [];
  let week = [];
  for (let pad = 0; pad < first.getUTCDay(); pad++) week.push(h("td", { class: "pad" }));
  for (let d = first; d <= last; d = new Date(d.getTime() + 86400000)) {
    const date = isoDate(d);
    const cell = {
      date, weekday: d.getUTCDay(),
      status: h("span", { class: "status" }),
      button: view.editable ? h("button", { type: "button", class: "secondary", tabindex: -1, onclick: () => toggle(view, cell) }) : null,
    };
    cell.td = h("td", {}, h("time", { datetime: date, class: "day" }, String(d.getUTCDate())), cell.status, cell.button);
    view.cells.set(date, cell);
    week.push(cell.td);
    if (week.length === 7) {
      weeks.push(week);
      week = [];
    }
  }
  if (week.length > 0) {
    while (week.length < 7) week.push(h("td", { class: "pad" }));
    weeks.push(week);
  }
  view.body.replaceChildren(...weeks.map((cells) => h("tr", {}, cells)));
}

/** paint marks each day of the month open or closed, and today, and says what closes every week. */
function paint(view, data) {
  view.data = data;
  view.zone.textContent = `Days in the library's time zone, ${data.zone}.` +
    (view.editable ? " Move between days with the arrow keys; Close or Reopen a day with Enter." : "");
  const closed = new Set(data.closed ?? []);
  const weekly = new Set(data.weekly ?? []);
  for (const cell of view.cells.values()) {
    const onDate = closed.has(cell.date);
    const everyWeek = weekly.has(WEEKDAYS[cell.weekday]);
    cell.closedOnDate = onDate;
    cell.td.classList.toggle("closed", onDate || everyWeek);
    const today = cell.date === data.today;
    if (today) cell.td.setAttribute("aria-current", "date");
    else cell.td.removeAttribute("aria-current");
    const status = onDate && everyWeek ? "Closed, and every week"
      : onDate ? "Closed" : everyWeek ? "Closed every week" : "Open";
    cell.status.replaceChildren(today ? h("span", { class: "tag today" }, "Today") : "", h("span", { class: onDate || everyWeek ? "" : "visually-hidden" }, status));
    if (cell.button) {
      const verb = onDate ? "Reopen" : "Close";
      cell.button.textContent = verb;
      cell.button.setAttribute("aria-label", `${verb} ${fullDate.format(utc(cell.date))}`);
    }
  }
  if (view.editable) {
    const focusable = [...view.cells.values()].find((c) => c.button.tabIndex === 0) ?? view.cells.get(data.today) ?? view.cells.values().next().value;
    focusable.button.tabIndex = 0;
    view.weeklyForm.set(weekly);
  } else {
    const names = WEEKDAYS.map((name, w) => (weekly.has(name) ? `${weekdayName(w)}s` : null)).filter(Boolean);
    view.weekly.replaceChildren(h("h2", { id: "weekly-heading" }, "Closed every week"),
      h("p", {}, names.length ? `The library is closed on ${listText(names)}.` : "The library opens on every day of the week."));
  }
}

/** moveFocus moves between the month's days with the arrow keys, Home and End (the week's ends). */
function moveFocus(view, event) {
  const from = [...view.cells.values()].find((c) => c.button === event.target);
  if (!from) return;
  const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -7, ArrowDown: 7, Home: -from.weekday, End: 6 - from.weekday }[event.key];
  if (step === undefined) return;
  event.preventDefault();
  const to = view.cells.get(isoDate(new Date(utc(from.date).getTime() + step * 86400000)));
  if (!to) return; // the month's first or last day: the links above go to the months beside it
  from.button.tabIndex = -1;
  to.button.tabIndex = 0;
  to.button.focus();
}

/** toggle closes a day, or opens it again, under one Idempotency-Key for every attempt of it. */
async function toggle(view, cell) {
  if (view.busy.has(cell.date)) return; // the attempt in flight goes on; nothing new is sent
  view.busy.add(cell.date);
  cell.button.setAttribute("aria-disabled", "true");
  const reopen = cell.closedOnDate;
  const day = fullDate.format(utc(cell.date));
  clearError(view.errors);
  setOutcome(view.outcome, `${reopen ? "Opening" : "Closing"} the library on ${day}…`, { pending: true });
  try {
    const { status } = await call(reopen ? "DELETE" : "PUT", path("calendar", "closed", cell.date), {
      headers: { "Idempotency-Key": newKey() }, signal: view.signal,
    });
    const again = status === 200 ? " (it was already)" : "";
    const everyWeek = view.data.weekly.includes(WEEKDAYS[cell.weekday]);
    setOutcome(view.outcome, !reopen ? `The library is closed on ${day}${again}.`
      : everyWeek ? `${day} is no longer closed as a date${again}, but stays closed: the library closes every ${weekdayName(cell.weekday)}.`
        : `The library opens on ${day} again${again}.`);
    await show(view, view.month);
  } catch (err) {
    if (view.signal.aborted) return;
    setOutcome(view.outcome, "");
    showError(view.errors, err);
  } finally {
    view.busy.delete(cell.date);
    cell.button.removeAttribute("aria-disabled");
    refocus(cell.button);
  }
}

/** weeklyForm is the librarian's form of the weekdays closed every week; set(weekly) shows them checked. */
function weeklyForm(view) {
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Save weekly closings");
  const boxes = WEEKDAYS.map((name) => h("input", { type: "checkbox", id: `weekly-${name}`, name: "closed", value: name }));
  let edited = false; // boxes changed and not saved yet, which a redraw of the month leaves as they are
  const form = h("form", {},
    h("fieldset", {},
      h("legend", { class: "visually-hidden" }, "Closed every week"),
      h("div", { class: "fields weekdays" }, boxes.map((box, w) => h("div", { class: "field check" }, box, h("label", { for: box.id }, weekdayName(w))))),
    ),
    h("p", {}, button),
    outcome, errors);
  commandForm(form, {
    name: "calendar-weekly", button, outcome, errors, signal: view.signal,
    read: () => {
      const closed = boxes.filter((b) => b.checked).map((b) => b.value);
      return { closed, pending: "Saving the weekdays the library closes…" };
    },
    send: ({ closed }, key) => call("PUT", "/calendar/weekly", { body: { closed }, headers: { "Idempotency-Key": key }, signal: view.signal }),
    done: (result, { closed }) => {
      const names = closed.map((name) => `${weekdayName(WEEKDAYS.indexOf(name))}s`);
      const now = names.length ? `The library now closes on ${listText(names)}` : "The library now opens on every day of the week";
      return result.status === 200 ? `${now}, as it did already.` : `${now}.`;
    },
    after: () => {
      edited = false;
      return show(view, view.month);
    },
    again: "Press Save weekly closings to save them: it carries the same key as before, so they are saved once.",
  });
  form.addEventListener("input", () => { edited = true; });
  view.weekly.replaceChildren(h("h2", { id: "weekly-heading" }, "Closed every week"),
    h("p", {}, "The library closes on these days every week, as well as on the dates closed in the month."),
    form);
  return {
    set: (weekly) => {
      if (!edited) for (const box of boxes) box.checked = weekly.has(box.value);
    },
  };
}
