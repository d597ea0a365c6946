// The tokens of the person signed in, kept in this module's memory only: never in localStorage,
// sessionStorage, a cookie or the URL. They end with the page, and no other page of this origin,
// nor the next person at this browser, finds them stored. api.js sends the access token with
// every request; a 401 to a request that carried it forgets it.

let tokens = null; // {access, id}
const listeners = new Set();

/** accessToken is the access token to send as Authorization: Bearer, or "" when signed out. */
export function accessToken() {
  return tokens?.access ?? "";
}

/**
 * idToken is the ID token, for the provider's end_session (id_token_hint) where the provider
 * requires it, or "": it is kept only then. It is never sent to the API, which refuses it.
 */
export function idToken() {
  return tokens?.id ?? "";
}

/** keepTokens holds {access, id} until the page ends or they are forgotten. */
export function keepTokens(next) {
  tokens = { access: String(next.access), id: String(next.id ?? "") };
  notify();
}

/**
 * forgetTokens signs the page out. quiet tells no one: the page is about to be left, and should
 * not be drawn signed out before it is.
 */
export function forgetTokens({ quiet = false } = {}) {
  if (tokens === null) return;
  tokens = null;
  if (!quiet) notify();
}

/** refused forgets access when it is still the token held: the service would not take it. */
export function refused(access) {
  if (access !== "" && tokens?.access === access) forgetTokens();
}

/** onTokensChange calls fn after every sign-in and sign-out. */
export function onTokensChange(fn) {
  listeners.add(fn);
}

function notify() {
  for (const fn of listeners) fn();
}
