// Package eventstore is the log: an append-only sequence of events, grouped into streams, that
// every other part of the service reads from and writes to.
//
// # What it promises
//
// Streams are versioned. The first event of a stream has version 1 and every append continues
// without gaps. Append takes the version the caller last saw (its expected version) and either
// writes all of its events at the versions that follow, or none of them and returns a
// *ConflictError. Two writers that read the same version can never both append: in PostgreSQL
// the unique (stream_id, version) index decides, in memory a mutex does. A conflict is never a
// silent overwrite; the caller reloads and decides again.
//
// Every event also has a global Position, unique across streams. Positions are handed out when
// an event is inserted, not when its transaction commits, so in PostgreSQL a transaction can
// commit an event at position 7 after another transaction has already committed position 8. A
// reader that remembered "up to 8" would then skip 7 forever. ReadAll therefore does not order
// by position alone. Each row records the id of the transaction that wrote it, and ReadAll
// returns only rows written by transactions older than the oldest transaction still running
// (pg_snapshot_xmin of the current snapshot), ordered by (transaction, position). Everything
// below that horizon has finished, so nothing can appear behind a Checkpoint once a reader has
// passed it: reading from a Checkpoint never skips an event and never returns one twice.
//
// The price of that guarantee is that readers wait for the oldest running write transaction in
// the PostgreSQL cluster, whatever it writes to. Appends are short single statements, so the
// wait is normally a few milliseconds; a long-running transaction elsewhere in the same cluster
// delays readers (not writers) until it ends.
//
// Appends to different streams do not wait for each other: there is no table lock, no global
// advisory lock, and no NOTIFY inside the append (a notifying transaction holds PostgreSQL's
// notification lock through its commit, which would queue every append behind every other).
//
// # Group commit
//
// A commit costs a WAL flush, so appends that come at once share one. An append that finds a
// batch being written with none to spare waits for the next, which writes every append queued
// by then, at most one per stream, in one statement: one transaction, one flush. An append
// that comes while the store is idle starts a batch of its own at once, and never waits. In the
// statement, each append is written at the versions after its expected one only if its stream's
// head is there, and ON CONFLICT DO NOTHING skips a version that another writer took since: an
// append that lost its versions fails alone, with a *ConflictError, and the others are written.
// An append must never be half written, so one that lost some of its versions but not all makes
// the statement fail as a whole (events_partial_append), and the batch is written again append
// by append; so is a batch the database refused for any reason but being unavailable, so that
// a bad append fails alone. No append returns before its batch has committed, and the events of
// one batch share a transaction id, which changes nothing for readers: within a transaction,
// positions follow the order of the appends and of each append's versions.
//
// # Waking readers
//
// After an append commits, the store wakes the readers of its own process at once and sends
// one pg_notify on the channel "library_events" for the others; appends that happen while a
// notification is on its way, or within 5ms of the last, share the next one. Subscribe turns
// notifications into wake-ups on a Go channel. Notifications can be lost (a crash between commit and notify, a listener
// reconnecting, a server restart), so a wake-up is a hint to read now, never the only reason to
// read: readers also poll. After the listener reconnects, every subscriber is woken, since
// appends may have been missed.
//
// # Snapshots
//
// Both stores also keep Snapshots: one per stream, a stream folded up to a version (the
// aggregate's state and its window of recent command ids, in encodings of the aggregate's own,
// tagged with its schema version), so that loading a long stream reads the snapshot and only
// the events after it. LoadStream does both in one statement, so one round trip and one
// consistent read: a CTE finds the snapshot, joined to the event at its version and position,
// and UNION ALL adds the events after it.
//
// Snapshots are a cache of the log, never the truth. They are written after the command's
// commit, never inside it, and truncating the snapshots table loses nothing. SaveSnapshot
// refuses a snapshot whose event is not in the log at its version and position (ahead of the
// log, or of another history), and never replaces a snapshot by a lower one of the same schema
// version. A stored snapshot that no longer matches the log, its event missing or at another
// position (as after a restore of the log from an older backup), is ignored by LoadStream,
// which then reads the whole stream, and is replaced by the next snapshot saved: it is never
// misread. A snapshot of another schema version is ignored the same way.
//
// # Failures
//
// Errors from the PostgreSQL driver never leave this package. A server that cannot be reached,
// refuses connections or drops them gives an *errs.Error with code errs.Unavailable; a
// cancelled context gives the context's error; anything else is errs.Internal, with the driver's
// text kept as the cause for the logs. An append whose outcome is unknown (the connection broke
// before the commit was confirmed) may or may not be in the log: callers that retry must
// recognise their own events, which is what command ids in the metadata are for.
//
// The in-memory store keeps the same contract, checked by the same test suite, and is meant for
// a single process: nothing is kept when it stops.
package eventstore
