// Operations: for the replicas the operator watches, which one holds each background processor's
// lease, how far behind each processor is, what it parked (and why: parked.js) or deferred, and
// its last error, read from every replica's GET /status every few seconds. Replay and
// retry-parked go to the holder, and the list of parked events to a replica that answered:
// with the signed-in operator's token, or, without sign-in, with the admin token typed into a
// password field, read from that field when it is needed and never stored (not in storage,
// cookies or the URL). Both tokens go only to the library's own replicas: the API this page
// talks to and those /config.json names (session.js: replicas()). The list kept in storage for
// the next visit is only a choice among them: an address it holds that is not one of them is
// dropped, never asked.

import { ApiError, baseURL, path, request } from "../api.js";
import { offLimits } from "../masthead.js";
import { ParkedReasons } from "../parked.js";
import { can, replicas, signedIn } from "../session.js";
import { clearError, field, formatTime, h, outcomeRegion, setOutcome, showError } from "../ui.js";

/** POLL_MS is how often the page asks every replica for its status. */
const POLL_MS = 2000;

/** REPLICAS_KEY keeps the list of replica addresses (not the token) for the next visit. */
const REPLICAS_KEY = "library.replicas";

const COLUMNS = ["Processor", "Kind", "Lease held by", "Checkpoint", "Lag", "Parked", "Deferred", "In flight", "Last error", "Actions"];

export async function render(main, { signal }) {
  if (!can("operations")) {
    offLimits(main, { title: "Operations", text: "Operations is for the library's operators." });
    return;
  }
  document.title = "Operations · Library";
  const allowed = replicas();
  const ops = {
    signal,
    allowed,
    replicas: savedReplicas(allowed),
    rows: new Map(), // processor name → its row's cells
    holders: new Map(), // processor name → the replica id that held its lease at the last poll
    parked: new ParkedReasons(), // why each processor's parked events are parked
    processors: h("tbody"),
    replicaRows: h("tbody"),
    news: named(outcomeRegion(), "Lease changes"),
    pollErrors: h("div", { class: "alert-slot" }),
    actionOutcome: named(outcomeRegion(), "Admin action"),
    actionErrors: h("div", { class: "alert-slot" }),
    updated: h("p", { class: "hint" }),
    token: null,
  };
  main.append(
    h("h1", { tabindex: -1 }, "Operations"),
    h("p", { class: "lede" }, "Which replica runs each piece of background work, how far behind it is, and what it could not do."),
    h("section", { class: "panel", "aria-labelledby": "processors-caption" },
      h("div", { class: "table-wrap" }, h("table", { class: "dense" },
        h("caption", { id: "processors-caption" }, "Background work"),
        h("thead", {}, h("tr", {}, COLUMNS.map((c) => h("th", { scope: "col" }, c)))),
        ops.processors)),
      ops.news, ops.pollErrors, ops.actionOutcome, ops.actionErrors, ops.updated),
    h("section", { class: "panel", "aria-labelledby": "replicas-caption" },
      h("div", { class: "table-wrap" }, h("table", {},
        h("caption", { id: "replicas-caption" }, "Replicas"),
        h("thead", {}, h("tr", {}, ["Address", "Replica", "State", "Leases held"].map((c) => h("th", { scope: "col" }, c)))),
        ops.replicaRows))),
    h("div", { class: "columns" }, replicasForm(ops), signedIn() ? null : tokenForm(ops)));
  await poll(ops);
  keepPolling(ops);
}

function named(el, label) {
  el.setAttribute("aria-label", label);
  return el;
}

/** savedReplicas is the list kept for the next visit, less what is not allowed; else every allowed replica. */
function savedReplicas(allowed) {
  try {
    const list = JSON.parse(localStorage.getItem(REPLICAS_KEY) ?? "[]");
    const kept = Array.isArray(list) ? list.map((s) => allowedBase(allowed, s)).filter((s) => s !== null) : [];
    if (kept.length > 0) return [...new Set(kept)];
  } catch {
    // an unreadable list is replaced by the default
  }
  return allowed;
}

/** allowedBase is value as a base URL when it is one of the allowed replicas, else null. */
function allowedBase(allowed, value) {
  try {
    const base = baseURL(value);
    return allowed.includes(base) ? base : null;
  } catch {
    return null;
  }
}

function replicasForm(ops) {
  const errors = h("div", { class: "alert-slot" });
  const form = h("form", {
    onsubmit: (event) => {
      event.preventDefault();
      clearError(errors);
      const lines = form.elements.replicas.value.split("\n").map((s) => s.trim()).filter(Boolean);
      const unknown = lines.filter((s) => allowedBase(ops.allowed, s) === null);
      if (unknown.length > 0) {
        showError(errors, {
          message: `${unknown.join(", ")} is not one of this library's replicas. The page asks only ${ops.allowed.join(", ")}: ` +
            "the service's OPERATIONS_REPLICAS names the others.",
        });
        return;
      }
      ops.replicas = lines.length ? [...new Set(lines.map((s) => allowedBase(ops.allowed, s)))] : ops.allowed;
      localStorage.setItem(REPLICAS_KEY, JSON.stringify(ops.replicas));
      form.elements.replicas.value = ops.replicas.join("\n");
      poll(ops);
    },
  },
  field({
    id: "replicas", name: "replicas", label: "Replica addresses", tag: "textarea", rows: 3, spellcheck: "false",
    hint: "One address per line, among this library's replicas. The page asks each one for its status.",
  }),
  h("p", {}, h("button", { type: "submit" }, "Watch these replicas")),
  errors);
  form.elements.replicas.value = ops.replicas.join("\n");
  return h("section", { class: "panel", "aria-labelledby": "replicas-heading" }, h("h2", { id: "replicas-heading" }, "Replicas to watch"), form);
}

function tokenForm(ops) {
  const form = h("form", { onsubmit: (event) => event.preventDefault() },
    field({
      id: "admin-token", name: "token", label: "Admin token", type: "password", autocomplete: "off", wide: true,
      hint: "For Replay and Retry parked. It stays in this field: the page never stores it.",
    }));
  ops.token = form.elements.token;
  return h("section", { class: "panel", "aria-labelledby": "admin-heading" }, h("h2", { id: "admin-heading" }, "Admin"), form);
}

/** keepPolling asks again POLL_MS after each answer, until the page is left. */
async function keepPolling(ops) {
  while (!ops.signal.aborted) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!ops.signal.aborted) await poll(ops);
  }
}

/** poll asks every replica for its status and redraws both tables. */
async function poll(ops) {
  const statuses = await Promise.all(ops.replicas.filter((base) => ops.allowed.includes(base)).map(async (base) => {
    try {
      const { data } = await request("GET", "/status", { base, timeoutMs: 4000, signal: ops.signal });
      if (typeof data?.replica !== "string" || !Array.isArray(data?.processors)) {
        throw new ApiError("unexpected", `${base}/status is not a library replica's status.`, { base });
      }
      return { base, data };
    } catch (error) {
      return { base, error };
    }
  }));
  if (ops.signal.aborted) return;
  drawReplicas(ops, statuses);
  const answered = statuses.filter((s) => s.data);
  if (answered.length === 0) {
    ops.processors.replaceChildren();
    ops.rows.clear();
    showError(ops.pollErrors, { message: "No replica answered: the background work can't be shown. The page keeps asking." });
  } else {
    clearError(ops.pollErrors);
    drawProcessors(ops, answered);
  }
  ops.updated.textContent = `Updated ${formatTime(new Date().toISOString())}; asked again every ${POLL_MS / 1000} seconds.`;
}

function drawReplicas(ops, statuses) {
  ops.replicaRows.replaceChildren(...statuses.map(({ base, data, error }) => h("tr", {},
    h("th", { scope: "row" }, base),
    h("td", {}, data ? data.replica : "unknown"),
    h("td", {}, data ? h("span", { class: "tag available" }, "up")
      : [h("span", { class: "tag down" }, error.kind === "cors" ? "blocked" : "unreachable"), " ", error.message ?? String(error)]),
    h("td", {}, data ? data.processors.filter((p) => p.holdsLease).map((p) => p.name).join(", ") || "none" : "")),
  ));
}

/** drawProcessors updates one row per processor in place, so that focus on its buttons stays. */
function drawProcessors(ops, answered) {
  const moves = [];
  for (const name of processorNames(answered)) {
    const seen = answered.map((s) => ({ ...s, p: s.data.processors.find((p) => p.name === name) })).filter((s) => s.p);
    const holders = seen.filter((s) => s.p.holdsLease);
    const figures = (holders[0] ?? seen[0]).p;
    const row = ops.rows.get(name) ?? addRow(ops, name, figures.kind);
    const holderText = holders.length === 0 ? "nobody right now"
      : holders.length === 1 ? holders[0].data.replica
        : `several: ${holders.map((s) => s.data.replica).join(", ")}`;
    const errors = seen.filter((s) => s.p.lastError).map((s) => `${s.data.replica}: ${s.p.lastError}`);
    set(row.kind, kindText(holders[0]?.p ?? figures));
    set(row.holder, holderText);
    set(row.checkpoint, `${figures.checkpoint} of ${figures.head}`);
    set(row.lag, String(figures.lag));
    set(row.parked, String(figures.parked));
    set(row.deferred, holders.length ? String(holders[0].p.deferred ?? 0) : "–");
    set(row.inFlight, holders.length ? String(holders[0].p.inFlight ?? 0) : "–");
    row.holderBase = holders.length === 1 ? holders[0].base : null;
    row.holderName = holders.length === 1 ? holders[0].data.replica : null;
    showLastError(ops, row, name, { errors, parked: figures.parked, base: row.holderBase ?? seen[0].base });
    const before = ops.holders.get(name);
    if (holders.length === 1 && before && before !== holderText) moves.push(`${name} is now run by ${holderText} (it was ${before}).`);
    if (holders.length === 1) ops.holders.set(name, holderText);
  }
  if (moves.length) setOutcome(ops.news, moves.join(" "));
}

/**
 * showLastError says the replicas' last errors and why events are parked. A parked event outlives
 * the lastError that parked it, so its reason is read (parked.js) and said here too.
 */
function showLastError(ops, row, name, { errors, parked, base }) {
  const auth = signedIn() ? "" : ops.token?.value || null;
  const draw = (why) => set(row.lastError, lastErrorText(errors, why));
  draw(ops.parked.text(name, parked, auth));
  ops.parked.read(name, parked, { base, auth, signal: ops.signal, then: draw });
}

/** lastErrorText is the replicas' last errors and why events are parked, or "none". */
function lastErrorText(errors, parked) {
  const last = errors.join("; ");
  if (!parked) return last || "none";
  return last ? `${last}. ${parked}` : parked;
}

function processorNames(answered) {
  const names = [];
  for (const s of answered) for (const p of s.data.processors) if (!names.includes(p.name)) names.push(p.name);
  return names;
}

function set(cell, text) {
  if (cell.textContent !== text) cell.textContent = text;
}

function kindText(p) {
  const kind = { viewModel: "view model", outbox: "outbox", saga: "saga" }[p.kind] ?? p.kind;
  if (!p.relay) return kind;
  const since = p.relay.since ? ` since ${formatTime(p.relay.since)}` : "";
  return `${kind}; relay ${p.relay.state}${since}`;
}

function addRow(ops, name, kind) {
  const td = (cls) => h("td", cls ? { class: cls } : {});
  const row = {
    kind: td(), holder: td(), checkpoint: td("number"), lag: td("number"), parked: td("number"),
    deferred: td("number"), inFlight: td("number"), lastError: td("last-error"), holderBase: null, holderName: null,
  };
  const actions = h("td", {}, h("div", { class: "actions" },
    kind === "outbox" ? null : h("button", {
      type: "button", class: "secondary", "aria-label": `Replay ${name}`,
      onclick: (event) => admin(ops, name, "replay", event.currentTarget),
    }, "Replay"),
    h("button", {
      type: "button", class: "secondary", "aria-label": `Retry parked ${name}`,
      onclick: (event) => admin(ops, name, "retry-parked", event.currentTarget),
    }, "Retry parked")));
  ops.processors.append(h("tr", {},
    h("th", { scope: "row" }, name),
    row.kind, row.holder, row.checkpoint, row.lag, row.parked, row.deferred, row.inFlight, row.lastError, actions));
  ops.rows.set(name, row);
  return row;
}

/** admin sends replay or retry-parked to the replica that holds the processor's lease. */
async function admin(ops, name, action, button) {
  clearError(ops.actionErrors);
  const token = ops.token?.value ?? ""; // signed in, the operator's own token goes instead
  const row = ops.rows.get(name);
  if (token === "" && !signedIn()) {
    showError(ops.actionErrors, { message: "Type the admin token first: replay and retry-parked need it." });
    ops.token.focus();
    return;
  }
  if (!row?.holderBase || !ops.allowed.includes(row.holderBase)) {
    showError(ops.actionErrors, { message: `No single replica holds the lease of ${name} right now. Wait until one does, then try again.` });
    return;
  }
  const what = action === "replay" ? `Replaying ${name}` : `Sending the parked events of ${name} again`;
  button.disabled = true;
  setOutcome(ops.actionOutcome, `${what} on ${row.holderName}…`, { pending: true });
  try {
    const { data } = await request("POST", path("admin", "processors", name, action), {
      base: row.holderBase, headers: token ? { Authorization: `Bearer ${token}` } : {}, signal: ops.signal,
    });
    setOutcome(ops.actionOutcome, action === "replay"
      ? `Replay of ${name} started on ${row.holderName}.`
      : `${data.requeued} parked ${data.requeued === 1 ? "event" : "events"} of ${name} sent back to be handled, on ${row.holderName}.`);
    poll(ops);
  } catch (err) {
    if (ops.signal.aborted) return;
    setOutcome(ops.actionOutcome, "");
    showError(ops.actionErrors, err);
  } finally {
    button.disabled = false;
  }
}
