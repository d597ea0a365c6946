// Sign-in. The service's /config.json says whether people sign in, and through which OpenID
// Connect provider. They do with the authorization code flow and PKCE (RFC 7636, S256): the
// page sends the browser to the provider's authorization endpoint, and on the way back trades
// the code, with the verifier only this tab knows, for tokens at the token endpoint. The
// verifier, the state and the page to come back to wait in sessionStorage during the round
// trip; the tokens are kept in memory only (token.js). GET /accounts/me then says who the person
// is and which roles they have, and can() says what the pages show them. With sign-in off the
// page shows everything, and says on every page that anyone may do anything.

import { baseURL, call, defaultBase } from "./api.js";
import { accessToken, forgetTokens, idToken, keepTokens, onTokensChange } from "./token.js";

/** ROUND_TRIP_KEY holds {state, verifier, returnTo, redirectUri} while the person is at the provider. */
const ROUND_TRIP_KEY = "library.signin";

const SCOPE = "openid profile email";

const session = {
  mode: "unknown", // "open": no sign-in; "signin": people sign in; "unknown": /config.json unread
  auth: null, // /config.json's auth: {issuer, clientId, audience, logoutIdTokenHint}
  provider: null, // the provider's discovery document
  me: null, // GET /accounts/me, while signed in
  member: null, // the member id of the last person signed in on this page, for waiting intents
  problem: "", // why sign-in can't be done, or was not finished, in a sentence
  replicas: [], // /config.json's replicas: the other replicas the operations page may watch
  payments: false, // /config.json's payments: members pay fines online (else at the desk only)
};

onTokensChange(() => {
  if (accessToken() === "") session.me = null;
});

/**
 * startSession reads /config.json, and with sign-in on the provider's discovery document; when
 * the page is the provider's way back (?code=…&state=…) it finishes the sign-in, puts the address
 * back as it was before (without the code), and asks the service who signed in.
 */
export async function startSession() {
  await readConfig();
  if (session.mode !== "signin") return;
  await readProvider();
  await finishSignIn();
}

/** retryConfig reads /config.json again when it could not be read; true when that changed it. */
export async function retryConfig() {
  if (session.mode !== "unknown") return false;
  await readConfig();
  if (session.mode === "signin") await readProvider();
  return session.mode !== "unknown";
}

async function readConfig() {
  try {
    const { data } = await call("GET", "/config.json", { attempts: 2, timeoutMs: 5000 });
    session.auth = data?.auth ?? null;
    session.replicas = Array.isArray(data?.replicas) ? data.replicas.map(String) : [];
    session.payments = data?.payments === true;
    session.mode = session.auth ? "signin" : data?.open === true ? "open" : "unknown";
  } catch {
    session.mode = "unknown"; // the pages show everything; the service refuses what it must
  }
}

async function readProvider() {
  const issuer = String(session.auth.issuer).replace(/\/+$/, "");
  try {
    const response = await fetch(`${issuer}/.well-known/openid-configuration`, { cache: "no-store", signal: AbortSignal.timeout(10000) });
    const doc = await response.json();
    if (!response.ok || String(doc.issuer).replace(/\/+$/, "") !== issuer || !doc.authorization_endpoint || !doc.token_endpoint) {
      throw new Error("not this issuer's discovery document");
    }
    session.provider = doc;
    session.problem = "";
  } catch {
    session.problem = `Signing in is not possible right now: the sign-in service at ${issuer} can't be reached.`;
  }
}

/**
 * replicas are the library's replicas that the operations page may ask for their status and send
 * tokens to: the API this page talks to, and those /config.json names (OPERATIONS_REPLICAS), each
 * over https, or http on this machine. No other, whatever the page's storage says.
 */
export function replicas() {
  const listed = session.replicas.map(replicaBase).filter((base) => base !== null);
  return [...new Set([defaultBase, ...listed])];
}

/** replicaBase is a replica's base URL, or null when it is not https, nor http on this machine. */
function replicaBase(raw) {
  let url;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (url.username || url.password || url.search || url.hash) return null;
  const loopback = url.hostname === "localhost" || url.hostname === "[::1]" || /^127(\.\d{1,3}){3}$/.test(url.hostname);
  return url.protocol === "https:" || (url.protocol === "http:" && loopback) ? baseURL(url.href) : null;
}

/** paysOnline: members pay fines online, through the payment provider, as /config.json says. */
export function paysOnline() {
  return session.payments;
}

/** signInAvailable: sign-in is on, and this page may start one. */
export function signInAvailable() {
  return session.mode === "signin" && typeof session.auth?.clientId === "string" && session.auth.clientId !== "";
}

/** open: the service runs without sign-in, as /config.json says. */
export function isOpen() {
  return session.mode === "open";
}

export function signedIn() {
  return accessToken() !== "";
}

/** problem is why sign-in can't be done or was not finished, or "". */
export function problem() {
  return session.problem;
}

/** me is GET /accounts/me while signed in: {memberId, roles, account}, or null. */
export function me() {
  return signedIn() ? session.me : null;
}

/** lastMember is the member id of the last person signed in on this page, even after a 401. */
export function lastMember() {
  return session.member;
}

/**
 * can says whether the person may see a part of the app: "desk" (members' pages, fines, lending,
 * adding books, overdue loans, setting the circulation rules and the calendar: librarians),
 * "rules" (reading the circulation rules: librarians and operators), "operations" (operators),
 * "account" (My account: anyone signed in as a member, but a librarian, whose work is other
 * members' accounts). Without sign-in, or before /config.json is read, everything but "account"
 * is shown, as the service allows then.
 */
export function can(what) {
  if (what === "account") {
    return session.mode === "signin" && typeof me()?.memberId === "string" && !(me().roles ?? []).includes("librarian");
  }
  if (session.mode !== "signin") return true;
  const roles = me()?.roles ?? [];
  if (what === "desk") return roles.includes("librarian");
  if (what === "operations") return roles.includes("operator");
  if (what === "rules") return roles.includes("librarian") || roles.includes("operator");
  return false;
}

/**
 * signIn sends the browser to the provider; the page comes back to returnTo (a fragment).
 * replace leaves this page out of the tab's history, for a page that signs in as it opens: Back
 * from the provider then goes to where the person was before, not to a page that leaves again.
 */
export async function signIn(returnTo = location.hash, { replace = false } = {}) {
  if (!signInAvailable()) throw new Error("Signing in is not set up for this library's web app (no client id).");
  if (!session.provider) await readProvider();
  if (!session.provider) throw new Error(session.problem);
  if (!crypto.subtle) throw new Error("Signing in needs a secure page: open the library over https.");
  const verifier = randomText(32);
  const state = randomText(16);
  const challenge = base64url(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const redirectUri = location.origin + location.pathname;
  sessionStorage.setItem(ROUND_TRIP_KEY, JSON.stringify({ state, verifier, returnTo: String(returnTo || "#/books"), redirectUri }));
  const url = new URL(session.provider.authorization_endpoint);
  // No nonce: PKCE binds the code to this tab, and a provider may copy a nonce into the access
  // token, which the service would then refuse as an ID token.
  url.search = new URLSearchParams({
    response_type: "code", client_id: session.auth.clientId, redirect_uri: redirectUri, scope: SCOPE,
    state, code_challenge: challenge, code_challenge_method: "S256",
  }).toString();
  if (replace) location.replace(url.href);
  else location.assign(url.href);
}

/**
 * signOut forgets the tokens and ends the session at the provider, which sends the browser back
 * here. It names this app by its client id; the ID token goes too (id_token_hint) only when
 * /config.json says the provider requires it: the address ends up in the browser's history and
 * the provider's logs.
 */
export function signOut() {
  const hint = session.auth?.logoutIdTokenHint === true ? idToken() : "";
  // Forgotten now, not only with the page: Back could bring this page back from the cache.
  forgetTokens({ quiet: true });
  session.member = null;
  const endpoint = session.provider?.end_session_endpoint;
  if (!endpoint) {
    location.replace(`${location.origin}${location.pathname}#/books`);
    location.reload();
    return;
  }
  const url = new URL(endpoint);
  const params = { client_id: session.auth.clientId, post_logout_redirect_uri: location.origin + location.pathname };
  if (hint) params.id_token_hint = hint;
  url.search = new URLSearchParams(params).toString();
  location.assign(url.href);
}

/** finishSignIn trades the code of the provider's way back for tokens, once. */
async function finishSignIn() {
  const params = new URLSearchParams(location.search);
  if (!params.has("code") && !params.has("error")) return;
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(ROUND_TRIP_KEY) ?? "null");
  } catch {
    saved = null;
  }
  sessionStorage.removeItem(ROUND_TRIP_KEY); // a state and a verifier serve once
  // The code leaves the address first: a reload, a bookmark or Back never sends it again.
  history.replaceState(null, "", location.pathname + (saved?.returnTo ?? "#/books"));
  if (!saved || typeof saved.state !== "string" || saved.state !== params.get("state")) {
    session.problem = "The sign-in could not be finished: it was not started from this tab, or it was finished already. Sign in again.";
    return;
  }
  if (params.has("error")) {
    const why = params.get("error_description") || params.get("error");
    session.problem = `The sign-in was not completed (${why}). Sign in again.`;
    return;
  }
  try {
    await exchange(params.get("code"), saved);
    await readMe();
  } catch (err) {
    forgetTokens();
    session.problem = err.message;
  }
}

/** exchange posts the code and its verifier to the token endpoint, and keeps the tokens in memory. */
async function exchange(code, saved) {
  const body = new URLSearchParams({
    grant_type: "authorization_code", code, redirect_uri: saved.redirectUri,
    client_id: session.auth.clientId, code_verifier: saved.verifier,
  });
  let response;
  let data = {};
  try {
    response = await fetch(session.provider.token_endpoint, { method: "POST", body, cache: "no-store", signal: AbortSignal.timeout(15000) });
    data = await response.json().catch(() => ({}));
  } catch {
    throw new Error("The sign-in could not be finished: the sign-in service did not answer. Sign in again.");
  }
  if (!response.ok || typeof data.access_token !== "string" || data.access_token === "") {
    const why = data.error_description || data.error || `${response.status}`;
    throw new Error(`The sign-in could not be finished: the sign-in service said ${why}. Sign in again.`);
  }
  // The ID token is kept only to sign out with, where the provider requires it.
  keepTokens({ access: data.access_token, id: session.auth.logoutIdTokenHint === true ? (data.id_token ?? "") : "" });
}

/** readMe asks the service who signed in: their member id, roles and account. */
async function readMe() {
  const { data } = await call("GET", "/accounts/me", { attempts: 3 });
  session.me = data;
  session.member = typeof data?.memberId === "string" ? data.memberId : null;
}

/** displayName is how the masthead names the person signed in. */
export function displayName() {
  const who = me();
  return who?.account?.name || who?.memberId || "you";
}

function randomText(bytes) {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

function base64url(buffer) {
  const bytes = new Uint8Array(buffer);
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
