// The masthead: the links a person may use (the Calendar for everyone, Overdue and Hold shelf for
// librarians, Circulation rules for librarians and operators, My account for members who are not
// librarians), the member finder for librarians, who is signed in with Sign in and Sign
// out, and the banner under it: that the library runs without sign-in, or why a sign-in did not
// work.

import { markCurrentLink } from "./router.js";
import { can, displayName, isOpen, problem, signedIn, signIn, signInAvailable, signOut } from "./session.js";
import { h } from "./ui.js";

/** OPEN_NOTE is the banner of every page while the service runs without sign-in. */
export const OPEN_NOTE = "This library runs without sign-in: anyone who can reach it can do anything.";

let clickProblem = ""; // why the last press of Sign in did not leave the page

/** drawMasthead draws the masthead and the banner for whoever is signed in now. */
export function drawMasthead() {
  const links = [["#/books", "Catalog"], ["#/calendar", "Calendar"]];
  if (can("desk")) links.push(["#/overdue", "Overdue"], ["#/holds", "Hold shelf"]);
  if (can("rules")) links.push(["#/circulation-rules", "Circulation rules"]);
  if (can("account")) links.push(["#/account", "My account"]);
  if (can("operations")) links.push(["#/operations", "Operations"]);
  document.getElementById("main-links").replaceChildren(...links.map(([href, text]) => h("li", {}, h("a", { href }, text))));
  document.getElementById("member-finder").hidden = !can("desk");
  document.getElementById("session").replaceChildren(...sessionControls());
  const why = clickProblem || problem();
  const banner = [];
  if (isOpen()) banner.push(h("p", { class: "banner", role: "note" }, OPEN_NOTE));
  if (why) banner.push(h("p", { class: "banner trouble", role: "alert" }, why));
  document.getElementById("banner").replaceChildren(...banner);
  markCurrentLink();
}

function sessionControls() {
  if (!signInAvailable()) return [];
  if (signedIn()) {
    return [
      h("span", { class: "who" }, `Signed in as ${displayName()}`),
      h("button", { type: "button", class: "secondary", onclick: () => signOut() }, "Sign out"),
    ];
  }
  return [h("button", { type: "button", onclick: () => startSignIn() }, "Sign in")];
}

/** startSignIn leaves for the provider, or says why it can't. */
export async function startSignIn() {
  try {
    clickProblem = "";
    await signIn();
  } catch (err) {
    clickProblem = err.message;
    drawMasthead();
  }
}

/** offLimits fills main with a page the person may not see: whom it is for, and how to sign in. */
export function offLimits(main, { title, text }) {
  document.title = `${title} · Library`;
  main.append(
    h("h1", { tabindex: -1 }, title),
    h("p", {}, text),
    signInAvailable() && !signedIn() ? h("p", {}, "Sign in with the button at the top of the page.") : "");
}
