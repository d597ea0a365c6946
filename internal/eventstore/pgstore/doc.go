// Package pgstore is the log on PostgreSQL: Postgres, an eventstore.Store with its Snapshots,
// kept in the events and snapshots tables that the migrations in /migrations create. It keeps
// the contract of package eventstore (read that package's comment first) and passes the same
// contract suite as the memory store; this comment says how PostgreSQL keeps it.
//
// # Reading without a gap
//
// Positions come from a sequence when a row is inserted, so a transaction can commit position
// 7 after another has committed position 8. Each row therefore records the id of the
// transaction that wrote it, and ReadAll returns only rows written by transactions older than
// the oldest transaction still running (pg_snapshot_xmin of the current snapshot), ordered by
// (transaction, position). Everything below that horizon has finished, so nothing can appear
// behind a Checkpoint once a reader has passed it.
//
// The price of that guarantee is that readers wait for the oldest running write transaction in
// the PostgreSQL cluster, whatever it writes to. Appends are short single statements, so the
// wait is normally a few milliseconds; a long-running transaction elsewhere in the same cluster
// delays readers (not writers) until it ends. Stalled says when one has held the horizon back
// for eventstore.StallAfter, and which backend runs it.
//
// The unique (stream_id, version) index decides between two writers at one version. Appends to
// different streams do not wait for each other: there is no table lock, no global advisory
// lock, and no NOTIFY inside the append (a notifying transaction holds PostgreSQL's
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
// append that lost its versions fails alone, with a *eventstore.ConflictError, and the others
// are written. An append must never be half written, so one that lost some of its versions but
// not all makes the statement fail as a whole (events_partial_append), and the batch is written
// again append by append; so is a batch the database refused for any reason but being
// unavailable, so that a bad append fails alone. No append returns before its batch has
// committed, and the events of one batch share a transaction id, which changes nothing for
// readers: within a transaction, positions follow the order of the appends and of each append's
// versions.
//
// # Waking readers
//
// After an append commits, the store wakes the readers of its own process at once and sends
// one pg_notify on the channel "library_events" for the others; appends that happen while a
// notification is on its way, or within 5ms of the last, share the next one. Subscribe turns
// notifications into wake-ups on a Go channel, through one LISTEN connection of its own that
// the first subscriber opens and the last one closes. Notifications can be lost (a crash
// between commit and notify, a listener reconnecting, a server restart), so readers also poll.
// After the listener reconnects, every subscriber is woken, since appends may have been missed.
// A notification names the types appended, and only those that other processes read
// (TellOnly, the types of the processors every replica runs): an append of none of them, such
// as a payment, sends none, and costs no other process or backend a wake-up. An append alone
// on a quiet store carries its notification in its own statement: one round trip.
//
// # Snapshots
//
// LoadStream reads a stream's snapshot and the events after it in one statement, so one round
// trip and one consistent read: a CTE finds the snapshot, joined to the event at its version and
// position, and UNION ALL adds the events after it. SaveSnapshot checks the snapshot against the
// log and keeps it in one statement too. Truncating the snapshots table loses nothing.
//
// # Failures
//
// Errors from the PostgreSQL driver never leave this package (package pgerr translates them):
// a server that cannot be reached, refuses connections or drops them gives an *errs.Error with
// code errs.Unavailable; a cancelled context gives the context's error; anything else is
// errs.Internal, with the driver's text kept as the cause for the logs. No pgx type is
// reachable through a returned error.
package pgstore
