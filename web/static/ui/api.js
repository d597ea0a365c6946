// Requests to the library's API: fetch with a timeout, the signed-in person's access token as
// Authorization: Bearer, problem+json read into an ApiError that says what went wrong in a
// sentence, retries with backoff for what is safe to send again, and the log position this page
// has written up to, so that its reads see its own writes.

import { apiBase } from "./config.js";
import { accessToken, refused } from "./token.js";
import { formatCents } from "./ui.js";

/** baseURL is value as an absolute URL without a trailing slash; empty is this page's origin. */
export function baseURL(value) {
  const s = String(value ?? "").trim();
  if (s === "") return location.origin;
  return new URL(s, location.href).href.replace(/\/+$/, "");
}

/** The API the app talks to: config.js's apiBase, or the origin that served the page. */
export const defaultBase = baseURL(apiBase);

/**
 * An ApiError is a request that did not succeed. kind is "problem" (the service answered with
 * an RFC 9457 problem), "unexpected" (it answered something else that is not a success),
 * "unreachable" (no answer: the service is down or the network is), "cors" (the service
 * answered, but the browser hid the answer because the API does not allow this page's origin)
 * or "timeout". Its message is a sentence for people.
 */
export class ApiError extends Error {
  constructor(kind, message, { status = 0, code = "", problem = null, base = "", retryAfter = null } = {}) {
    super(message);
    this.name = "ApiError";
    this.kind = kind;
    this.status = status;
    this.code = code;
    this.problem = problem;
    this.base = base;
    this.retryAfter = retryAfter; // seconds, from Retry-After
  }

  /** retryable: sending the same request again may succeed (no answer, or 503). */
  get retryable() {
    return this.kind === "unreachable" || this.kind === "timeout" || this.status === 503;
  }

  /**
   * definite: the service answered, and its answer says the request was refused (4xx), so it
   * recorded nothing. After any other failure a command may or may not have been recorded.
   */
  get definite() {
    return this.status >= 400 && this.status < 500;
  }

  /**
   * signInNeeded: the service wants the person to sign in (again): 401, no token or one it
   * refused (expired, or not its provider's). Nothing was recorded, but the intent is not over:
   * it is sent again, under the same key, once they have signed in.
   */
  get signInNeeded() {
    return this.status === 401;
  }

  /** requestId is the id to quote when reporting a failure of the service itself (5xx). */
  get requestId() {
    return this.status >= 500 && this.problem ? String(this.problem.instance ?? "") : "";
  }
}

/** DEFAULT_TIMEOUT_MS bounds one attempt; the service's own request timeout is 10 s. */
export const DEFAULT_TIMEOUT_MS = 15000;

/**
 * request sends one request and returns {status, data, replayed, requestId, etag}, or throws an
 * ApiError. body, when given, is sent as JSON. The access token of the person signed in goes
 * with it, unless headers bring an Authorization of their own; a 401 to it forgets the token.
 * signal ends the request when the page no longer needs it: that is thrown as the signal's
 * reason, not as an ApiError.
 */
export async function request(method, path, { base = defaultBase, body, headers = {}, timeoutMs = DEFAULT_TIMEOUT_MS, signal } = {}) {
  const init = { method, headers: { Accept: "application/json", ...headers }, cache: "no-store" };
  const token = "Authorization" in headers ? "" : accessToken();
  if (token !== "") init.headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers["Content-Type"] = "application/json";
  }
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  init.signal = signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal;
  try {
    let response;
    try {
      response = await fetch(base + path, init);
    } catch (err) {
      throw await failure(err, { base, signal, timeout, timeoutMs });
    }
    let text;
    try {
      text = await response.text();
    } catch (err) {
      throw await failure(err, { base, signal, timeout, timeoutMs });
    }
    try {
      return answer(response, text, base);
    } catch (err) {
      if (err.status === 401) refused(token);
      throw err;
    }
  } finally {
    clearTimeout(timer);
  }
}

/** failure turns a fetch that threw into what happened: the page gave up, a timeout, or no answer. */
async function failure(err, { base, signal, timeout, timeoutMs }) {
  if (signal?.aborted) return signal.reason ?? err;
  if (timeout.signal.aborted) {
    return new ApiError("timeout", `The library service at ${base} did not answer within ${Math.round(timeoutMs / 1000)} seconds.`, { base });
  }
  return networkError(base);
}

/** answer reads a response: success data, or an ApiError from a problem or anything else. */
function answer(response, text, base) {
  const status = response.status;
  const type = response.headers.get("Content-Type") ?? "";
  const retryAfter = parseRetryAfter(response.headers.get("Retry-After"));
  let data = null;
  let parsed = text === "";
  if (text !== "" && /[/+]json\b/.test(type)) {
    try {
      data = JSON.parse(text);
      parsed = true;
    } catch {
      parsed = false;
    }
  }
  if (response.ok && parsed) {
    return {
      status,
      data,
      replayed: response.headers.get("Idempotent-Replayed") === "true",
      requestId: response.headers.get("X-Request-Id") ?? "",
      // "" where the browser hides it: from another origin, unless the API exposes ETag
      etag: response.headers.get("ETag") ?? "",
    };
  }
  if (!response.ok && parsed && data && typeof data === "object" && type.startsWith("application/problem+json")) {
    throw new ApiError("problem", problemSentence(data, status), {
      status, code: String(data.code ?? ""), problem: data, base, retryAfter,
    });
  }
  const what = response.ok ? "an answer this page can't read" : `${status} ${response.statusText || "(no reason given)"}`;
  throw new ApiError("unexpected", `The service at ${base} answered with ${what}.`, { status, base, retryAfter });
}

/**
 * problemSentence makes one sentence of a problem: its title, then its detail, or the detail
 * alone when it says the title already ("Nothing to pay" and "there is nothing to pay: …").
 * Amounts the service states in cents are shown as the pages show amounts: "0 cents" → "0.00".
 */
export function problemSentence(problem, status) {
  const title = String(problem.title ?? "").trim() || `Error ${status}`;
  const detail = String(problem.detail ?? "").trim().replace(/(-?\d+) cents\b/g, (_, cents) => formatCents(Number(cents)));
  let sentence = `${title}: ${detail}`;
  if (detail === "") sentence = title;
  else if (detail.toLowerCase().includes(title.toLowerCase())) sentence = detail[0].toUpperCase() + detail.slice(1);
  return /[.!?]$/.test(sentence) ? sentence : `${sentence}.`;
}

/** parseRetryAfter reads Retry-After as seconds (a number of seconds or an HTTP date), or null. */
function parseRetryAfter(value) {
  if (value == null || value.trim() === "") return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}

/**
 * networkError says why a fetch got no answer. fetch throws the same TypeError whether the
 * service is down or the browser hid a cross-origin answer (CORS), so for another origin two
 * probes tell them apart: a CORS request to /healthz that succeeds means the API does answer
 * this origin (the failure was the network's); an opaque no-cors request that succeeds means the
 * service is up but does not allow this origin.
 */
async function networkError(base) {
  const origin = location.origin;
  if (new URL(base).origin !== origin && (await blockedByCORS(base))) {
    return new ApiError("cors",
      `The API at ${base} does not allow requests from this page's origin (${origin}). ` +
      `Set CORS_ORIGINS on the service to include ${origin}.`, { base });
  }
  return new ApiError("unreachable",
    `The library service at ${base} can't be reached: it may be down or restarting, or this computer may be offline.`, { base });
}

async function blockedByCORS(base) {
  const probe = (mode) => fetch(`${base}/healthz`, { mode, cache: "no-store", signal: AbortSignal.timeout(3000) })
    .then(() => true, () => false);
  if (await probe("cors")) return false;
  return probe("no-cors");
}

/**
 * call is request with retries: an attempt that got no answer, timed out or got 503 (the
 * service's "try again shortly", with Retry-After) is sent again after a backoff, up to
 * attempts in all. Only requests that are safe to repeat may be called with attempts > 1:
 * reads, and commands whose Idempotency-Key is the same on every attempt. onRetry({attempt,
 * error, wait}) is told before each wait. keepTrying(error), when given, names the failures
 * that are sent again past attempts, for as long as signal lasts: a view being rebuilt answers
 * 503 until it is ready, however long that takes.
 */
export async function call(method, path, { attempts = 4, onRetry, keepTrying, signal, ...options } = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request(method, path, { signal, ...options });
    } catch (err) {
      if (!(err instanceof ApiError) || !err.retryable) throw err;
      if (attempt >= attempts && !keepTrying?.(err)) throw err;
      const wait = backoff(attempt, err.retryAfter);
      onRetry?.({ attempt, error: err, wait });
      await sleep(wait, signal);
    }
  }
}

/** backoff is the wait before attempt+1: Retry-After when given, else doubling from 250 ms, with jitter. */
export function backoff(attempt, retryAfter) {
  if (retryAfter != null) return Math.min(retryAfter, 10) * 1000 * (1 + Math.random() * 0.2);
  const ceiling = Math.min(250 * 2 ** (attempt - 1), 4000);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => {
      clearTimeout(timer);
      reject(signal.reason);
    }, { once: true });
  });
}

/** path joins URL segments, each encoded: path("books", id, "loans"). */
export function path(...segments) {
  return "/" + segments.map((s) => encodeURIComponent(String(s))).join("/");
}

// The log position of the last command this page made. The catalog is a view model that
// follows the log, on whichever replica runs it: reads pass this as minPosition so that they
// wait (on any replica) until the catalog has seen the page's own writes.
let written = 0;

/** wrote notes a command's result, so that later reads of the catalog include it. */
export function wrote(result) {
  const position = Number(result?.position ?? 0);
  if (Number.isSafeInteger(position) && position > written) written = position;
}

/** writtenUpTo is the position that reads of the catalog must have reached. */
export function writtenUpTo() {
  return written;
}
