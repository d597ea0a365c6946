// Package eventstore is the log's contract: an append-only sequence of events, grouped into
// streams, that every other part of the service reads from and writes to. It holds the Store
// interface with its types and errors, the Snapshots beside it, and Memory, a Store in the memory
// of one process. The log on PostgreSQL is package pgstore, which keeps the same contract, the
// way a database/sql driver stands apart from database/sql. Nothing here imports a database
// driver or an HTTP package, so the domain and the command path that depend on the log never
// pull one in.
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
// AppendAll writes to several streams at once, each part at its expected version, all or none:
// a rule that spans two aggregates (a loan and the member's account) is kept by writing both in
// one append, so that anything decided on either stream at the same moment conflicts with it.
// Its parts are written in WriteOrder, which makes their positions the same in every store.
//
// Every event also has a global Position, unique across streams. Positions are handed out when
// an event is inserted, not when its transaction commits, so in a store that writes appends in
// parallel a transaction can commit an event at position 7 after another transaction has
// already committed position 8. A reader that remembered "up to 8" would then skip 7 forever.
// ReadAll therefore does not order by position alone: the log's order is (transaction,
// position), a Checkpoint, and a store returns an event only once nothing can commit before it
// any more. Nothing can appear behind a Checkpoint once a reader has passed it: reading from a
// Checkpoint never skips an event and never returns one twice. (How PostgreSQL keeps this, and
// what it costs readers, is in package pgstore; Stall describes a reader held back.)
//
// Appends to different streams do not wait for each other.
//
// # Waking readers
//
// Subscribe turns appends into wake-ups on a Go channel; several appends may give one wake-up,
// and a slow reader is never blocked on (Wakeups). A wake-up is a hint to read now, never the
// only reason to read: a store may lose some (PostgreSQL's notifications are lost to a crash
// between commit and notify, a listener reconnecting, a server restart), so readers also poll.
//
// # Readers of some types
//
// A reader may name the event types it reads. ReadTypes returns those only, in the log's
// order, and says how far it looked (Page.Through): past the events of other types, as far as
// the log goes below the horizon when it found fewer than it could return. Reading on from
// Through misses nothing of those types, by the same rule that reading on from a Checkpoint
// misses nothing. Subscribe with types wakes the reader for appends of those types only: a
// store may wake it more often (a PostgreSQL notification too long to name its types wakes
// every reader), never less. CountAfter with types counts those only, for a lag that is the
// reader's own. A DataReader (both stores are) reads the same events with their data, their
// place and their schema version alone, none of the command's metadata: all a view model folds
// rows from, and a third less for PostgreSQL to take apart for every event it reads. An
// OlderReader (both stores are) reads, of some types, the events written at a schema version
// below a bound alone, and passes over the newer as over other types': Through, as
// ReadTypes'. PostgreSQL looks at each event's schema version in its scan of the type's range,
// and reads whole, and sends, only those it returns.
//
// # Snapshots
//
// Both stores also keep Snapshots: one per stream, a stream folded up to a version (the
// aggregate's state and its window of recent command ids, in encodings of the aggregate's own,
// tagged with its schema version), so that loading a long stream reads the snapshot and only
// the events after it. LoadStream reads both in one consistent read.
//
// Snapshots are a cache of the log, never the truth. They are written after the command's
// commit, never inside it, and losing every snapshot loses nothing. SaveSnapshot refuses a
// snapshot whose event is not in the log at its version and position (ahead of the log, or of
// another history), and never replaces a snapshot by a lower one of the same schema version. A
// stored snapshot that no longer matches the log, its event missing or at another position (as
// after a restore of the log from an older backup), is ignored by LoadStream, which then reads
// the whole stream, and is replaced by the next snapshot saved: it is never misread. A snapshot
// of another schema version is ignored the same way.
//
// # Failures
//
// A store's errors are the service's own, never a driver's: a store that cannot be reached, or
// refuses or drops connections, gives an *errs.Error with code errs.Unavailable; a cancelled
// context gives the context's error; anything else is errs.Internal, with the cause kept for the
// logs. An append whose outcome is unknown (the connection broke before the commit was
// confirmed) may or may not be in the log: callers that retry must recognise their own events,
// which is what command ids in the metadata are for.
//
// The in-memory store keeps the same contract, checked by the same test suite (package
// testkit/storetest), and is meant for a single process: nothing is kept when it stops.
package eventstore
