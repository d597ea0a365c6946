// Pages by the URL's fragment: #/books (the catalog, of titles), #/titles/dune, #/copies (every
// copy), #/books/dune (one copy), #/members/alice, #/overdue, #/holds, #/operations,
// #/circulation-rules, #/calendar?month=2026-12, #/checkouts/alice/{id} (where the payment
// provider sends a member back). The
// fragment never reaches the server, so no page can shadow an API path.

import { errorAlert, h } from "./ui.js";

let routes = [];
let current = null; // the AbortController of the page on screen

/**
 * start renders the page the fragment names, and again whenever it changes. table is a list of
 * [pattern, render]: pattern matches the fragment's path, and render(main, {params, query,
 * signal}) fills main. signal ends when another page replaces this one.
 */
export function start(table) {
  routes = table;
  window.addEventListener("hashchange", () => show({ focus: true }));
  show({ focus: false });
}

/** go shows the page at hash ("#/books?q=dune"), rendering it again if it is already there. */
export function go(hash) {
  if (location.hash === hash) {
    show({ focus: true });
  } else {
    location.hash = hash;
  }
}

/** fragment is the fragment's path and query: "#/books?q=dune" → {path: "/books", query}. */
function fragment() {
  const raw = location.hash.startsWith("#/") ? location.hash.slice(1) : "/books";
  const at = raw.indexOf("?");
  return {
    path: at < 0 ? raw : raw.slice(0, at),
    query: new URLSearchParams(at < 0 ? "" : raw.slice(at + 1)),
  };
}

async function show({ focus }) {
  if (location.hash !== "" && !location.hash.startsWith("#/")) return; // an anchor within the page
  current?.abort();
  current = new AbortController();
  const { signal } = current;
  const main = document.getElementById("main");
  main.replaceChildren();
  const { path, query } = fragment();
  markCurrentLink(path);
  const found = routes.map(([pattern, render]) => [pattern.exec(path), render]).find(([m]) => m);
  try {
    if (!found) {
      notFound(main, path);
    } else {
      const [match, render] = found;
      const params = match.slice(1).map((p) => decodeURIComponent(p));
      const rendering = render(main, { params, query, signal });
      if (focus) main.querySelector("h1")?.focus();
      await rendering;
    }
  } catch (err) {
    if (signal.aborted) return;
    main.append(errorAlert(err, { retry: () => show({ focus: false }), retryLabel: "Reload this page" }));
  }
}

function notFound(main, path) {
  document.title = "Not found · Library";
  main.append(
    h("h1", { tabindex: -1 }, "No such page"),
    h("p", {}, `There is no page at #${path}. `, h("a", { href: "#/books" }, "Go to the catalog"), "."));
}

/** markCurrentLink marks the main link of the page on screen (aria-current), after the links change too. */
export function markCurrentLink(path = fragment().path) {
  for (const a of document.querySelectorAll('nav[aria-label="Main"] a')) {
    const target = a.getAttribute("href").slice(1);
    if (path === target || path.startsWith(`${target}/`)) {
      a.setAttribute("aria-current", "page");
    } else {
      a.removeAttribute("aria-current");
    }
  }
}
