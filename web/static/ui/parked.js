// Why a processor's events are parked, for the operations page. GET /status counts parked
// events but does not say why: anyone may read it, and a reason can name a member or quote a
// relay's reply. Its lastError is no help either: it is the replica's last failure, cleared as
// soon as the processor handles any event after it, so an event can stay parked under
// "lastError: null". The reasons come from GET /admin/processors/{name}/parked, which wants the
// operator's token (signed in) or the admin token typed into the page; without one the page
// says that a token shows why. A list is read again only when the count of parked events
// changes, or the token does.

import { path, request } from "./api.js";

/** ParkedReasons keeps, per processor, what its parked events' reasons are as last read. */
export class ParkedReasons {
  #seen = new Map(); // processor name → {count, auth, text}
  #reading = new Set();

  /**
   * text says why name's count events are parked, or that it is being read, or how to see it;
   * "" when none is. auth is the Authorization to read it with ("": the signed-in person's own
   * token, null: none to send).
   */
  text(name, count, auth) {
    if (count <= 0) {
      this.#seen.delete(name);
      return "";
    }
    const seen = this.#seen.get(name);
    if (seen && seen.count === count && seen.auth === auth) return seen.text;
    if (auth === null) return `${count} parked: type the admin token below to see why.`;
    return `${count} parked: reading why…`;
  }

  /**
   * read asks base for name's parked events when what is known of them is out of date, and calls
   * then(text) with the new text once it is known.
   */
  async read(name, count, { base, auth, signal, then }) {
    const seen = this.#seen.get(name);
    if (count <= 0 || auth === null || this.#reading.has(name) || (seen && seen.count === count && seen.auth === auth)) return;
    this.#reading.add(name);
    let text;
    try {
      const { data } = await request("GET", path("admin", "processors", name, "parked"), {
        base, headers: auth ? { Authorization: `Bearer ${auth}` } : {}, timeoutMs: 4000, signal,
      });
      text = describe(data?.parked ?? [], count);
    } catch (err) {
      if (signal.aborted) return;
      text = `${count} parked; why could not be read: ${err.message}`;
    } finally {
      this.#reading.delete(name);
    }
    this.#seen.set(name, { count, auth, text });
    then(this.text(name, count, auth));
  }
}

/** describe says what the newest parked event is and why it is parked, and how many others are. */
function describe(parked, count) {
  if (parked.length === 0) return `${count} parked.`;
  const newest = parked.reduce((a, b) => (b.position > a.position ? b : a));
  const others = parked.length - 1;
  return `Parked: ${newest.type} at position ${newest.position}, because ${String(newest.reason).replace(/\.+$/, "")}` +
    (others > 0 ? ` (and ${others} more)` : "") + ".";
}
