// The fields of a row of circulation rules (GET and PUT /circulation-rules), as the rules page
// shows and edits them: each field's JSON name and column, how its value is written in a cell
// and read back from one, and how a table resolves a field that a row leaves empty. Resolution
// is the service's own (circulation.Table.Resolve): for a patron group and a material type,
// the first of the rows keyed group/type, group/*, */type and */* that sets the field decides,
// and the service's defaults (the row GET /circulation-rules gives as defaults) decide what no
// row sets.

import { formatCents, h } from "./ui.js";

/** ANY is the name that stands for every patron group, or every material type, in a key. */
export const ANY = "*";

/** NAME_PATTERN is the service's rule for a key's names, for inputs: *, or a-z 0-9 - _. */
export const NAME_PATTERN = "\\*|[a-z0-9_\\-]{1,32}";

const period = {
  kind: "text",
  text: (v) => periodText(String(v)),
  read: (s) => (/^(\d+d|(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+)$/.test(s)
    ? { value: s } : { error: "Write whole days, such as 21d, or a duration, such as 4h or 90m." }),
};

const count = {
  kind: "text",
  inputmode: "numeric",
  text: (v) => String(v),
  read: (s) => (/^\d{1,9}$/.test(s) ? { value: Number(s) } : { error: "Write a whole number, such as 3." }),
};

const money = {
  kind: "text",
  inputmode: "decimal",
  text: (v) => (Number(v) / 100).toFixed(2),
  show: (v) => formatCents(v),
  read: readCents,
};

const fineCap = {
  kind: "text",
  list: "fine-cap-choices",
  text: (v) => (v === "replacementPrice" ? "replacement price" : (Number(v?.amount) / 100).toFixed(2)),
  show: (v) => (v === "replacementPrice" ? "replacement price" : formatCents(v?.amount)),
  read: (s) => {
    if (/^replacement( price)?$/i.test(s)) return { value: "replacementPrice" };
    const cents = readCents(s);
    return cents.error ? { error: "Write an amount, such as 5.00, or “replacement price”." } : { value: { amount: cents.value } };
  },
};

/** choice is a field whose values are few: a select, with "Not set" first. */
function choice(options) {
  return {
    kind: "select",
    options,
    text: (v) => String(v),
    show: (v) => options.find(([value]) => value === String(v))?.[1] ?? String(v),
    read: (s) => {
      const found = options.find(([value]) => value === s);
      if (!found) return { error: "Choose one of the values offered." };
      return { value: s === "true" ? true : s === "false" ? false : s };
    },
  };
}

/**
 * FIELDS are a row's fields in the order of the table's columns: name (JSON), label (column),
 * and how a cell writes and reads the value (text, read; show, when a value reads otherwise
 * than it is typed).
 */
export const FIELDS = [
  { name: "loanPeriod", label: "Loan period", ...period },
  { name: "renewals", label: "Renewals", ...count },
  { name: "maxLoans", label: "Loans at once", ...count },
  { name: "finePerDay", label: "Fine per day", ...money },
  { name: "fineCap", label: "Fine cap", ...fineCap },
  { name: "holds", label: "Holds", ...choice([["title", "On the title"], ["copy", "On a copy"], ["none", "No holds"]]) },
  { name: "holdPickup", label: "Hold pickup", ...period },
  { name: "lends", label: "Lent", ...choice([["true", "Lent"], ["false", "Not lent"]]) },
  { name: "lostAfter", label: "Lost after (open days)", ...count },
];

/** KEY_LABELS are the columns of a row's key, by JSON name. */
export const KEY_LABELS = { group: "Patron group", materialType: "Material type" };

/** FIELD_HINT says how cells are written, above the table. */
export const FIELD_HINT = "Periods are whole days (21d) or a duration (4h, 90m); fines are amounts (0.25); " +
  "a fine cap is an amount or “replacement price”. A patron group or material type of * stands for all of them.";

/** labelOf is the column of a field or a key's name ("loanPeriod" → "Loan period"). */
export function labelOf(name) {
  return KEY_LABELS[name] ?? FIELDS.find((f) => f.name === name)?.label ?? name;
}

/** showValue is a field's value as people read it. */
export function showValue(field, value) {
  return (field.show ?? field.text)(value);
}

/** keyText names a row by its key: "staff / dvd". */
export function keyText(key) {
  return `${key.group} / ${key.materialType}`;
}

/**
 * resolve is what rows (each {group, materialType, values}, values by JSON name) and defaults
 * say of one field for the key {group, materialType}: {value, from}, from the key of the row
 * that decided it, or null when the defaults did. A key with * is resolved as the service
 * resolves it: its own row, then the less specific ones.
 */
export function resolve(rows, defaults, key, name) {
  for (const k of [[key.group, key.materialType], [key.group, ANY], [ANY, key.materialType], [ANY, ANY]]) {
    const row = rows.find((r) => r.group === k[0] && r.materialType === k[1]);
    if (row && row.values[name] !== undefined) return { value: row.values[name], from: { group: k[0], materialType: k[1] } };
  }
  return { value: defaults?.[name], from: null };
}

/** inherited is what an empty cell says: the value it resolves to, and where that comes from. */
export function inherited(field, { value, from }) {
  return [h("span", { class: "visually-hidden" }, "Empty, so "), `${showValue(field, value)} ${from ? `from ${keyText(from)}` : "by default"}`];
}

/** periodText is a period as the service writes it, without a duration's zero tail: 336h0m0s → 336h. */
function periodText(s) {
  return s.replace(/([hm])0s$/, "$1").replace(/h0m$/, "h");
}

/** readCents reads an amount of 0 or more, such as 0.25, into cents. */
function readCents(s) {
  const m = /^(\d{1,7})(?:[.,](\d{1,2}))?$/.exec(s);
  if (!m) return { error: "Write an amount, such as 0.25." };
  return { value: Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0")) };
}
