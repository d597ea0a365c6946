// One thing a person means to do once, such as a payment or a loan, and the Idempotency-Key that
// every attempt of it carries, so that the service records it once however often it is sent;
// and, while the person signs in again, the intent that waits for them.

/**
 * newKey is a random UUID. crypto.randomUUID exists only in secure contexts (https, localhost),
 * so elsewhere the same kind of key is made from crypto.getRandomValues.
 */
export function newKey() {
  if (typeof crypto.randomUUID === "function") return crypto.randomUUID();
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * An Intent holds the key of one intent. run(send) makes the key on the first submit and calls
 * send(key); while that is in flight, run returns the same promise, so a double click or a
 * second Enter sends nothing under a new key. The key is dropped once the outcome is definite
 * (a success, or a refusal that recorded nothing) or when reset() says the form changed: the
 * next run is then a new intent with a new key. After an outcome that is not definite (no
 * answer in the end, or 5xx), the key stays, so that submitting the same form again retries the
 * same intent and can't do it twice. A 401 (sign in again) keeps the key too: an earlier attempt
 * of the intent, whose answer was lost, may have been recorded before the sign-in ended.
 */
export class Intent {
  #key = "";
  #pending = null;

  /** busy: an attempt of this intent is in flight. */
  get busy() {
    return this.#pending !== null;
  }

  /** key is the current intent's key, "" before the first submit of one. */
  get key() {
    return this.#key;
  }

  run(send) {
    if (this.#pending) return this.#pending;
    if (this.#key === "") this.#key = newKey();
    const key = this.#key;
    this.#pending = (async () => {
      try {
        const result = await send(key);
        this.#key = "";
        return result;
      } catch (err) {
        if (err?.definite === true && err?.signInNeeded !== true) this.#key = "";
        throw err;
      } finally {
        this.#pending = null;
      }
    })();
    return this.#pending;
  }

  /** reset starts a new intent at the next run; it changes nothing while one is in flight. */
  reset() {
    if (!this.#pending) this.#key = "";
  }

  /** adopt goes on with an intent begun earlier (see takePending): its key is used again. */
  adopt(key) {
    if (!this.#pending && typeof key === "string" && key !== "") this.#key = key;
  }
}

// An intent that waits while its person signs in again: which form, what it held, its key, and
// who was signed in. It sits in sessionStorage (this tab only, never sent anywhere): an
// Idempotency-Key is no secret, and the tab comes back to it from the provider.
const PENDING_KEY = "library.pending";

/** PENDING_FOR is how long a saved intent waits for its person: a sign-in takes minutes. */
const PENDING_FOR = 60 * 60 * 1000;

/** savePending keeps {form, values, key, by} for after the sign-in; one at a time. */
export function savePending({ form, values, key, by }) {
  try {
    sessionStorage.setItem(PENDING_KEY, JSON.stringify({ form, values, key, by, savedAt: Date.now() }));
  } catch {
    // without storage the intent can't wait: its key is still held while the page lives
  }
}

/**
 * takePending returns the intent saved for the form named form, made by the member by, and
 * forgets it; null when there is none. An intent saved by someone else, or too long ago, is
 * forgotten and not returned.
 */
export function takePending(form, by) {
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(PENDING_KEY) ?? "null");
  } catch {
    saved = null;
  }
  if (!saved || saved.form !== form) return null;
  sessionStorage.removeItem(PENDING_KEY);
  if (saved.by !== by || !(Date.now() - saved.savedAt < PENDING_FOR) || typeof saved.key !== "string") return null;
  return { values: saved.values ?? {}, key: saved.key };
}
