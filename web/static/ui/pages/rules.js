// Circulation rules: the library's table (GET /circulation-rules), a row per patron group and
// material type, a column per field, and under it the service's defaults, which decide what no
// row sets. A cell a row leaves empty says, greyed, what it resolves to and which row decides it.
// Librarians edit the table as a grid (rulesgrid.js); operators read it. "What applies" asks the
// service (GET /circulation-rules/resolve) what the saved rules give one patron group for one
// material type, field by field, with the row that decided each.

import { call } from "../api.js";
import { offLimits } from "../masthead.js";
import { FIELD_HINT, FIELDS, inherited, KEY_LABELS, keyText, resolve, showValue } from "../rulefields.js";
import { rulesGrid } from "../rulesgrid.js";
import { can } from "../session.js";
import { clearError, field, h, setOutcome, showError } from "../ui.js";

export async function render(main, { signal }) {
  if (!can("rules")) {
    offLimits(main, { title: "Circulation rules", text: "The circulation rules are for the library's librarians and operators." });
    return;
  }
  document.title = "Circulation rules · Library";
  const editable = can("desk");
  const page = {
    signal, editable, rules: null, etag: "", grid: null, resolveAgain: null,
    body: h("tbody"),
    foot: h("tfoot"),
    version: h("p", { class: "hint", id: "rules-version" }),
    state: h("p", { class: "outcome", role: "status" }),
    errors: h("div", { class: "alert-slot" }),
    slot: h("div"),
  };
  page.table = h("div", { class: "table-wrap" }, h("table", { class: "dense rules", "aria-describedby": "rules-version" },
    h("caption", { id: "rules-caption" }, "Circulation rules"),
    h("thead", {}, h("tr", {},
      Object.values(KEY_LABELS).map((label) => h("th", { scope: "col" }, label)),
      FIELDS.map((f) => h("th", { scope: "col" }, f.label)),
      editable ? h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, "Remove")) : null)),
    page.body, page.foot));
  main.append(
    h("h1", { tabindex: -1 }, "Circulation rules"),
    h("p", { class: "lede" }, editable
      ? "How long each kind of item is lent to each patron group, and on what terms. A row says only what differs: " +
        "a cell left empty takes its value from a less specific row, shown in grey."
      : "How long each kind of item is lent to each patron group, and on what terms. A cell left empty takes its value " +
        "from a less specific row, shown in grey. Librarians change them."),
    h("section", { class: "panel", "aria-labelledby": "rules-caption" },
      h("p", { class: "hint" }, FIELD_HINT, " The last line holds the service's defaults, which decide what no row sets."),
      page.version, page.state, page.errors, page.slot),
    resolvePanel(page));
  await load(page);
}

/** load reads the rules and draws them; the grid's edits are discarded. */
async function load(page) {
  const { signal } = page;
  setOutcome(page.state, "Reading the circulation rules…", { pending: true });
  let answer;
  try {
    answer = await call("GET", "/circulation-rules", { signal });
  } catch (err) {
    if (signal.aborted) return;
    setOutcome(page.state, "");
    showError(page.errors, err, { retry: () => { clearError(page.errors); load(page); } });
    return;
  }
  setOutcome(page.state, "");
  clearError(page.errors);
  const { rows = [], defaults = {}, version = 0 } = answer.data ?? {};
  page.rules = { rows, defaults, version };
  // The ETag is the version, quoted: the body's version stands in where the browser hides the header.
  page.etag = answer.etag || `"${version}"`;
  page.version.textContent = version === 0
    ? "No rules have been set yet: every loan follows the defaults."
    : `Version ${version} of the rules.`;
  page.foot.replaceChildren(defaultsRow(page));
  if (!page.editable) {
    page.body.replaceChildren(...readRows(page.rules));
    page.slot.replaceChildren(page.table);
  } else if (!page.grid) {
    page.grid = rulesGrid({
      signal, table: page.table, body: page.body,
      rules: () => page.rules, ifMatch: () => page.etag, reload: () => load(page),
    });
    page.slot.replaceChildren(page.grid.form);
  } else {
    page.grid.draw();
  }
  page.resolveAgain?.();
}

/** defaultsRow is the table's last line: the service's defaults, which set every field. */
function defaultsRow(page) {
  const { defaults } = page.rules;
  return h("tr", {},
    h("th", { scope: "row" }, "Defaults"),
    h("td"),
    FIELDS.map((f) => h("td", {}, defaults[f.name] === undefined ? "" : showValue(f, defaults[f.name]))),
    page.editable ? h("td") : null);
}

/** readRows are the rows as an operator reads them: each set value, and what each empty cell resolves to. */
function readRows(rules) {
  if (rules.rows.length === 0) {
    return [h("tr", {}, h("td", { colspan: 2 + FIELDS.length, class: "empty" }, "No rows: every loan follows the defaults."))];
  }
  const rows = rules.rows.map((row) => ({ group: row.group, materialType: row.materialType, values: row }));
  return rules.rows.map((row) => h("tr", {},
    h("th", { scope: "row" }, row.group),
    h("td", {}, row.materialType),
    FIELDS.map((f) => h("td", {}, row[f.name] !== undefined
      ? showValue(f, row[f.name])
      : h("p", { class: "inherited" }, inherited(f, resolve(rows, rules.defaults, row, f.name)))))));
}

/**
 * resolvePanel asks the service what the saved rules give one patron group for one material
 * type, and asks again each time the rules are read, so that it shows the rules as saved.
 */
function resolvePanel(page) {
  const { signal } = page;
  const errors = h("div", { class: "alert-slot" });
  const result = h("div");
  const named = { required: true, pattern: "[a-z0-9_\\-]{1,32}", autocomplete: "off", spellcheck: "false" };
  const form = h("form", {},
    h("div", { class: "fields" },
      field({ id: "resolve-group", name: "group", label: "Patron group", ...named }),
      field({ id: "resolve-material", name: "materialType", label: "Material type", ...named }),
      h("button", { type: "submit" }, "Show the terms")),
    errors, result);
  let asked = null;
  const ask = async (key) => {
    clearError(errors);
    try {
      const { data } = await call("GET", `/circulation-rules/resolve?${new URLSearchParams(key)}`, { signal });
      result.replaceChildren(termsTable(data));
    } catch (err) {
      if (signal.aborted) return;
      result.replaceChildren();
      showError(errors, err);
    }
  };
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    const key = { group: form.elements.group.value.trim(), materialType: form.elements.materialType.value.trim() };
    const empty = [form.elements.group, form.elements.materialType].find((el) => el.value.trim() === "");
    if (empty) {
      empty.focus();
      return;
    }
    asked = key;
    ask(key);
  });
  page.resolveAgain = () => asked && ask(asked);
  return h("section", { class: "panel", "aria-labelledby": "resolve-heading" },
    h("h2", { id: "resolve-heading" }, "What applies"),
    h("p", {}, "The terms the saved rules give one patron group for one material type, and the row that decides each."),
    form);
}

/** termsTable is GET /circulation-rules/resolve's answer: each field, its value, and the row that decided it. */
function termsTable(data) {
  const key = { group: data.group, materialType: data.materialType };
  const terms = data.terms ?? {};
  return h("div", { class: "table-wrap" }, h("table", { "aria-describedby": "terms-version" },
    h("caption", {}, `Terms for ${keyText(key)}`),
    h("thead", {}, h("tr", {}, ["Field", "Value", "Decided by"].map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", {}, FIELDS.map((f) => {
      const from = terms.from?.[f.name];
      return h("tr", {},
        h("th", { scope: "row" }, f.label),
        h("td", {}, showValue(f, terms[f.name])),
        h("td", {}, !from || from.row < 0 ? "The defaults" : `Row ${from.row + 1}: ${keyText(from)}`));
    }))),
  h("p", { class: "hint", id: "terms-version" }, `As the rules stand at version ${data.version}.`));
}
