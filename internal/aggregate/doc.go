// Package aggregate is what commands against event-sourced aggregates are made of: a Type, its
// Events, a Command and its Result, and the Store a repository reads and appends a stream
// through. Package core runs commands (load the stream, fold it into state, decide, append at
// the version that was loaded); packages eventlog, sealing, snapshots and cache are the Store,
// each layer wrapping the one before, and package stack stacks them as the Options ask. This
// comment holds the promises they keep together.
//
// # Command ids
//
// A command's id is the client's Idempotency-Key, or the id a saga derives from the event it
// reacts to. The id, the command's name and a fingerprint of its payload go into the metadata
// of every event the command writes, so the log itself is the record of which commands have
// run; there is no separate key table to keep in step. A command without a key records its
// name and fingerprint but no id: nothing can ask for it again.
//
// Loading a stream rebuilds the ids of its last CommandIDsPerStream keyed commands (a window,
// package window); commands without a key take no place among them, so a hundred fines charged
// without a key never push a payment's key out of the window. When a command arrives with an id among them:
//
//   - same name and same payload fingerprint: the command is not decided again. Its result is
//     rebuilt from the events that carry the id, so the answer is the first answer, byte for
//     byte when encoded, and Result.Replayed is true;
//   - another name or another payload: the command is refused with errs.IdempotencyKeyReused.
//
// A command with a key that decides "nothing to do" is recorded all the same, as one
// NothingChanged event, so that its retry gets the same answer even if the state has changed in
// between (a repeated "set the email to X", arriving after another request set it to Y, must not
// set it back to X). A command that is refused records nothing and leaves its key free: its retry
// is decided again, which can't do anything twice because the first attempt did nothing.
//
// Fingerprints and replayed answers are made from the Go types of payloads and events, so those
// types are stored data too: add fields with omitempty, and never rename or remove one, or a
// retry that spans a deploy is refused as a reused key.
//
// # Concurrency
//
// In one process, commands on one stream queue, and never race each other. The commands that
// wait together while one is being appended form the next group, taken by one of them: decided
// one after another, each on the state the ones before it left, and appended together, in one
// append at the version that was loaded, so a busy stream pays one commit for many commands. A
// key used twice in one group is written once, and both callers get the first answer. An append
// that fails on the version sends the whole group back to be decided again, as one command would
// be; one that fails otherwise fails every command of the group but those answered from the
// stream's past, since the others decided on events that may not be in the log. A command waits
// in the queue as long as its context allows. Commands on different streams run in parallel.
//
// Between processes, appends use optimistic concurrency. When another writer got there first, Execute loads the
// stream again and decides again, with a short jittered backoff, up to MaxAttempts times; only
// then does it give up with errs.ConcurrencyConflict. Because the reload also rebuilds command
// ids, concurrent requests with one key, in one process or several, end with exactly one append:
// the first writer wins and every other request finds its events and answers with them.
//
// # Kept aggregates
//
// For types with a Clone function, recently used aggregates are kept in memory, folded to a
// version, with their command window, bounded by Options.CacheBytes (package cache). A kept
// aggregate can be behind the log, never wrong about what it holds: a command on it is decided
// without reading the log and appended at the kept version, and a stale one is caught by that
// append's version check and decided again. Package cache's comment says how.
//
// # Snapshots
//
// For types with a SnapshotCodec, a stream gets a snapshot every Options.SnapshotEvery events,
// so that a cold load reads the snapshot and the events after it (package snapshots). A state
// that holds personal values is sealed with its owner's key (package sealing).
//
// # Upcasters: events whose shape changed
//
// Stored events are never rewritten. When an event type's shape changes, its Go type becomes
// the new shape and the change is given to its codec as an Upcaster (EventCodec[E](upcasters
// ...)): a function from the stored JSON of one schema version to the next's, given also the
// stream that holds the event. An event type's current schema version is 1 and one more per
// upcaster; it is what new events of the type are written at, recorded in their metadata
// (eventstore.Metadata.Schema), which leaves version 1 out, so that every event from before
// versions were recorded is version 1 and an event of a type that never changed is stored as it
// always was. What this promises:
//
//   - Every read of a type's events goes through its codecs, so every read upcasts: a load from
//     the stream's start, from a snapshot or from a kept aggregate, a replay, Type.Decode (the
//     readers of the log: views, sagas, the outbox, through books.Decode and accounts.Decode) and
//     Present (histories, exports). An event stored at version N is read through the upcasters
//     from N on, in order, each once, and only then decoded. Nothing else reads an event's data
//     into a domain type.
//   - An event stored at a version newer than its codec's, written by a newer release during a
//     rolling upgrade or before a rollback, is never misread as an older shape: its read fails
//     with a NewerSchemaError inside an errs.Unavailable error. A command answers 503, to be sent
//     again (to a replica of the newer release, in the end); a processor pauses, a view stops
//     where it is, and either goes on once a replica of the newer release holds its lease. So
//     a release that has written a new shape can't be rolled back to one before it without
//     stalling those readers until it is rolled forward again.
//   - A type without upcasters costs nothing: decoding it allocates what it did before
//     versions (TestDecodingWithoutUpcastersAllocatesNothingMore), and writing it records no
//     version.
//   - An upcaster is a pure function of the stored data and the stream id, so an event reads
//     alike every time and in every process. It sees personal values sealed, as stored, and
//     may move one within the event but never read it. An upcaster is never removed: the log
//     keeps every version.
//
// Snapshots hold folded states, not events, and upcasters don't touch them: a snapshot is
// read back by its own SnapshotCodec.Version. When an upcaster makes Apply fold a different
// state from the same stored events (the state keeps something the new shape says, such as a
// title id that old events only imply), bump that Version with it, so that snapshots folded
// before the upcaster are ignored and the streams folded again through it; an upcaster that
// changes nothing the state keeps needs no bump.
//
// A command answered again from the log (its key seen before) is answered from its events as
// they read now: in their current shape, which after an upcaster is not byte for byte the
// first answer, but the same answer in the shape the service now speaks.
//
// What upcasters do not reach are queries over the stored JSON itself: the events that name a
// member by their data's memberId (eventstore's MemberEvents, in PostgreSQL a query on
// data->>'memberId'), and the search of processors' waiting events for an erased member. An
// upcaster that moves or renames memberId must keep them finding the older shapes.
//
// Domain idempotency comes first where the domain has an id of its own (lending a book again
// under the same loan id decides nothing); command ids cover what the domain cannot recognise,
// such as a payment sent twice.
package aggregate
