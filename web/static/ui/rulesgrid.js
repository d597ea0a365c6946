// The circulation rules as a grid a librarian edits: a row per key (patron group and material
// type), a column per field, rows added and removed, and the whole table saved at once with PUT
// /circulation-rules. The save is one intent per press (command.js), under the version the page
// read (If-Match, from GET's ETag): when someone else saved since, the service answers 412, and
// the page says so and reads the rules again. A cell left empty shows, greyed, what it resolves
// to, worked out as the service does from the rows as they stand in the grid (rulefields.js), so
// that an edit shows at once what it changes elsewhere. What the page can't read, and what the
// service refuses, is said next to the cell it is about.

import { call } from "./api.js";
import { commandForm } from "./command.js";
import { ANY, FIELDS, inherited, keyText, labelOf, NAME_PATTERN, resolve } from "./rulefields.js";
import { clearError, errorAlert, h, outcomeRegion } from "./ui.js";

const KEYS = ["group", "materialType"];
const NAME = new RegExp(`^(?:${NAME_PATTERN})$`);

/**
 * rulesGrid makes the grid's form around page.table, with the rows of page.rules() in it. page:
 * {signal, table, body (the table's tbody), rules() (the table as last read: {rows, defaults}),
 * ifMatch() (its ETag), reload()}. It returns {form, draw()}: draw puts the rows of rules() in the
 * grid again, discarding edits.
 */
export function rulesGrid(page) {
  const grid = { ...page, rows: [], uid: 0 };
  const outcome = outcomeRegion();
  const errors = h("div", { class: "alert-slot" });
  const button = h("button", { type: "submit" }, "Save rules");
  grid.form = h("form", { "aria-labelledby": "rules-caption" },
    page.table,
    h("datalist", { id: "fine-cap-choices" }, h("option", { value: "replacement price" })),
    h("div", { class: "grid-actions" },
      h("button", { type: "button", class: "secondary", onclick: () => addRow(grid) }, "Add a row"),
      button,
      h("button", { type: "button", class: "secondary", onclick: () => { draw(grid); clearError(errors); changed(grid); } }, "Discard changes")),
    outcome, errors);
  grid.form.addEventListener("input", () => refresh(grid));
  draw(grid); // before commandForm, which puts back, by name, the cells of a save that waited for a sign-in
  commandForm(grid.form, {
    name: "circulation-rules", button, outcome, errors, signal: page.signal,
    read: () => readTable(grid),
    send: ({ rows }, key) => call("PUT", "/circulation-rules", {
      body: { rows }, headers: { "Idempotency-Key": key, "If-Match": page.ifMatch() }, signal: page.signal,
    }),
    done: (result) => (result.status === 201 ? "Saved the circulation rules." : "Nothing to save: the rules were already as the table shows."),
    after: () => page.reload(),
    explain: (err) => explain(grid, err),
    failed: (err) => (err?.status === 412 ? page.reload() : undefined),
    unsure: "The service may or may not have saved them: press Save rules again to make sure (it is saved once).",
    again: "Press Save rules to save them: it carries the same key as before, so they are saved once.",
  });
  refresh(grid);
  return { form: grid.form, draw: () => draw(grid) };
}

/** draw fills the grid with the rows as last read. */
function draw(grid) {
  grid.rows = grid.rules().rows.map((row) => newRow(grid, row));
  grid.body.replaceChildren(...grid.rows.map((r) => r.tr));
  refresh(grid);
}

/** changed tells the form that the table changed other than by typing: a new intent, a new key. */
function changed(grid) {
  grid.form.dispatchEvent(new Event("input"));
}

function addRow(grid) {
  const r = newRow(grid, { group: "", materialType: "" });
  grid.rows.push(r);
  grid.body.append(r.tr);
  changed(grid);
  r.controls.group.focus();
}

function removeRow(grid, r) {
  const at = grid.rows.indexOf(r);
  grid.rows.splice(at, 1);
  r.tr.remove();
  changed(grid);
  const next = grid.rows[at] ?? grid.rows[at - 1];
  (next ? next.remove : grid.form.querySelector(".grid-actions button")).focus();
}

/** newRow makes a row's cells: its key, a control per field with its note and its error, and Remove. */
function newRow(grid, row) {
  const id = `rule-${++grid.uid}`;
  const r = { controls: {}, notes: {}, errors: {} };
  const cell = (name, control) => {
    r.controls[name] = control;
    r.notes[name] = h("p", { class: "inherited", id: `${id}-${name}-note` });
    r.errors[name] = h("p", { class: "cell-error", id: `${id}-${name}-error` });
    control.setAttribute("aria-describedby", `${id}-${name}-note ${id}-${name}-error`);
    return h("td", {}, control, r.notes[name], r.errors[name]);
  };
  const keyCells = KEYS.map((name) => cell(name, h("input", {
    class: "key", value: row[name] ?? "", required: true, pattern: NAME_PATTERN, autocomplete: "off", spellcheck: "false",
  })));
  const fieldCells = FIELDS.map((f) => {
    const value = row[f.name] === undefined ? "" : f.text(row[f.name]);
    if (f.kind === "select") {
      const select = h("select", {}, h("option", { value: "" }, "Not set"), ...f.options.map(([v, text]) => h("option", { value: v }, text)));
      select.value = value;
      return cell(f.name, select);
    }
    return cell(f.name, h("input", {
      class: f.name, value, inputmode: f.inputmode, list: f.list, autocomplete: "off", spellcheck: "false",
    }));
  });
  r.remove = h("button", { type: "button", class: "secondary", onclick: () => removeRow(grid, r) }, "Remove");
  r.tr = h("tr", {}, ...keyCells, ...fieldCells, h("td", {}, r.remove));
  return r;
}

/** keyOf is a row's key as typed. */
function keyOf(r) {
  return { group: r.controls.group.value.trim(), materialType: r.controls.materialType.value.trim() };
}

/** rowName names a row in labels and messages: its key once it has one, else its place. */
function rowName(r, i) {
  const key = keyOf(r);
  return NAME.test(key.group) && NAME.test(key.materialType) ? keyText(key) : `row ${i + 1}`;
}

/**
 * refresh names every control after its row (names are the rows' places, for a sign-in's round
 * trip, which puts values back by name), and notes under each empty cell what it resolves to.
 */
function refresh(grid) {
  const rows = grid.rows.map((r) => ({ ...keyOf(r), values: readValues(r).values }));
  grid.rows.forEach((r, i) => {
    const name = rowName(r, i);
    for (const k of KEYS) {
      r.controls[k].name = `${i}.${k}`;
      r.controls[k].setAttribute("aria-label", `${labelOf(k)}, row ${i + 1}`);
    }
    r.remove.setAttribute("aria-label", `Remove ${name}`);
    for (const f of FIELDS) {
      const control = r.controls[f.name];
      control.name = `${i}.${f.name}`;
      control.setAttribute("aria-label", `${f.label}, ${name}`);
      r.notes[f.name].replaceChildren(...(control.value.trim() === "" ? inherited(f, resolve(rows, grid.rules().defaults, rows[i], f.name)) : []));
    }
  });
}

/** readValues reads a row's fields: {values} by JSON name, the cells left empty left out, and {errors} by name. */
function readValues(r) {
  const values = {};
  const errors = {};
  for (const f of FIELDS) {
    const text = r.controls[f.name].value.trim();
    if (text === "") continue;
    const read = f.read(text);
    if (read.error) errors[f.name] = read.error;
    else values[f.name] = read.value;
  }
  return { values, errors };
}

/** readTable reads the grid into PUT's rows, or marks the cells it can't read and says so. */
function readTable(grid) {
  clearMarks(grid);
  const rows = [];
  let first = null;
  let count = 0;
  grid.rows.forEach((r) => {
    const key = keyOf(r);
    const { values, errors } = readValues(r);
    for (const k of KEYS) {
      if (!NAME.test(key[k])) errors[k] = `Write ${ANY} for all, or a name of a-z, 0-9, - and _ (at most 32).`;
    }
    for (const [name, message] of Object.entries(errors)) {
      mark(r, name, message);
      first ??= r.controls[name];
      count++;
    }
    rows.push({ ...key, ...values });
  });
  if (count > 0) {
    first.focus();
    return { error: `The rules were not saved: ${count === 1 ? "a cell needs" : `${count} cells need`} correcting, marked in the table.` };
  }
  return { rows, pending: "Saving the circulation rules…" };
}

function mark(r, name, message) {
  r.controls[name].setAttribute("aria-invalid", "true");
  r.errors[name].textContent = message;
}

function clearMarks(grid) {
  for (const r of grid.rows) {
    for (const name of Object.keys(r.controls)) {
      r.controls[name].removeAttribute("aria-invalid");
      r.errors[name].textContent = "";
    }
  }
}

/**
 * explain says what the service refused. 412: someone else saved since the page read the rules
 * (failed() then reads them again). 400 naming a row (rows[2], or its row extension) and a
 * field: said next to that cell, which takes focus, and above the table.
 */
function explain(grid, err) {
  if (err?.status === 412) {
    return errorAlert({
      message: "Someone else changed the circulation rules since this page read them, so your changes were not saved. " +
        "The table now shows the rules as they are: make your changes again, then save.",
      code: err.code,
    });
  }
  const detail = String(err?.problem?.detail ?? "");
  const index = Number.isInteger(err?.problem?.row) ? err.problem.row : Number(/^rows\[(\d+)\]/.exec(detail)?.[1] ?? NaN);
  const r = grid.rows[index];
  if (err?.status !== 400 || !r) return null;
  const field = String(err.problem.field ?? "");
  const name = field in r.controls ? field : "group";
  const message = cellMessage(detail, field);
  mark(r, name, message);
  r.controls[name].focus();
  return errorAlert({ message: `The rules were not saved. ${rowName(r, index)}, ${labelOf(name)}: ${message}`, code: err.code });
}

/** cellMessage is a refusal's detail as said next to its cell: without the row, and the field by its column. */
function cellMessage(detail, field) {
  let s = detail.replace(/^rows\[\d+\](?: \([^)]*\))?: /, "");
  const twin = /has the group and materialType of rows\[(\d+)\]/.exec(s);
  if (twin) return `Row ${Number(twin[1]) + 1} has this patron group and material type too: one row per key.`;
  if (field && s.startsWith(`${field} `)) s = `${labelOf(field)} ${s.slice(field.length + 1)}`;
  s = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(s) ? s : `${s}.`;
}
