// The app's entry point: sign-in first (session.js: /config.json, and the provider's way back),
// then the masthead for whoever is signed in, the pages by route, the masthead's member finder,
// and a last line of defence so that an unexpected failure shows a message instead of a blank
// page.

import { defaultBase } from "./api.js";
import { drawMasthead } from "./masthead.js";
import * as account from "./pages/account.js";
import * as book from "./pages/book.js";
import * as calendar from "./pages/calendar.js";
import * as catalog from "./pages/catalog.js";
import * as checkout from "./pages/checkout.js";
import * as copies from "./pages/copies.js";
import * as holdshelf from "./pages/holdshelf.js";
import * as member from "./pages/member.js";
import * as operations from "./pages/operations.js";
import * as overdue from "./pages/overdue.js";
import * as rules from "./pages/rules.js";
import * as title from "./pages/title.js";
import { go, start } from "./router.js";
import { retryConfig, startSession } from "./session.js";
import { onTokensChange } from "./token.js";
import { errorAlert } from "./ui.js";

function showUnexpected(reason) {
  const main = document.getElementById("main");
  if (reason?.name === "AbortError" || !main) return;
  const err = reason instanceof Error ? reason : new Error(String(reason));
  main.prepend(errorAlert({ message: `Something went wrong in this page: ${err.message}` },
    { retry: () => location.reload(), retryLabel: "Reload the page" }));
}

window.addEventListener("error", (event) => showUnexpected(event.error ?? event.message));
window.addEventListener("unhandledrejection", (event) => showUnexpected(event.reason));

document.getElementById("api-base").textContent = defaultBase;

document.getElementById("skip").addEventListener("click", (event) => {
  event.preventDefault(); // the fragment is the route: move focus without changing it
  document.getElementById("main").focus();
});

// The finder's field is not required: an empty one is not an error to mark in red, only
// nothing to look for yet. An id that breaks the rule (pattern) is marked as it is typed.
document.getElementById("member-finder").addEventListener("submit", (event) => {
  event.preventDefault();
  const input = event.target.elements.memberId;
  const memberId = input.value.trim();
  if (memberId === "") {
    input.focus();
    return;
  }
  go(`#/members/${encodeURIComponent(memberId)}`);
  event.target.reset(); // empty again, and with it no longer marked as the person's invalid input
});

await startSession();
drawMasthead();
onTokensChange(drawMasthead);
// /config.json unread (the service was down): it is read again at the next page.
window.addEventListener("hashchange", () => retryConfig().then((changed) => changed && drawMasthead()));

start([
  [/^\/books$/, catalog.render],
  [/^\/books\/([^/]+)$/, book.render],
  [/^\/copies$/, copies.render],
  [/^\/titles\/([^/]+)$/, title.render],
  [/^\/account$/, account.render],
  [/^\/members\/([^/]+)$/, member.render],
  [/^\/overdue$/, overdue.render],
  [/^\/holds$/, holdshelf.render],
  [/^\/checkouts\/([^/]+)\/([^/]+)$/, checkout.render],
  [/^\/operations$/, operations.render],
  [/^\/circulation-rules$/, rules.render],
  [/^\/calendar$/, calendar.render],
]);
