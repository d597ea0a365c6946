// Package aggregate runs commands against event-sourced aggregates: load the stream, fold it
// into state, decide, append at the version that was loaded.
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
// For types with a Clone function, the repository keeps recently used aggregates in memory,
// folded to a version, with their command window: a cache bounded by an estimate of the bytes
// it holds (Options.CacheBytes; Type.Weigh weighs a state), least recently used out first,
// rebuilt from the log when missing. Every event in it came from the
// log or from a successful append, and a kept state is cloned before anything is folded onto
// it, so a kept aggregate can be behind the log, never wrong about what it holds.
//
// A command on a kept aggregate is decided without reading the log, and appended at the kept
// version. When another process has appended since, that append fails on the version, and the
// events after it are read and the command decided again: so a command id recorded elsewhere is
// found before anything is written twice. An append is the only proof that a kept aggregate was
// current; a refusal or a "nothing to do" is decided again after reading the log, so neither
// is ever the answer of a stale state. Load always reads what came after the kept version.
//
// The log is append-only: a kept aggregate assumes that the events it folded are still there.
// A log restored to an earlier version is noticed (an append fails and nothing follows the kept
// version) and read whole; a log replaced by a different history of the same length or longer
// is not, so restart the service after restoring its database.
//
// # Snapshots
//
// For types with a SnapshotCodec, a stream gets a snapshot every Options.SnapshotEvery events:
// its state, in the type's own encoding, and its window of command ids, kept by the log beside
// its events (eventstore.Snapshots). A stream that is not kept is loaded from its snapshot and
// the events after it, in one round trip, so that a cold load costs the same on any history. A
// snapshot is written after the commit that passed the mark, by the command that led the group,
// once its callers have their answers; and after a load that read a tail that long (a stream
// from before snapshots, or whose snapshot was dropped). A snapshot that can't be written is
// only logged: it is a cache of the log, and the next will do. The log gives back only a
// snapshot that matches it (the event at its version is there, at its position), and only one
// of the type's current codec version: a state that changes shape bumps the version, and its old
// snapshots are ignored and written again, never misread. One that can't be decoded is ignored
// too, and the stream read whole.
//
// The window keeps, per command, its key, the fingerprint of its payload, its name, who ran it
// and the versions of the events it wrote, but not the events: a replay reads them back from the
// log, where they are the first answer, byte for byte.
//
// Domain idempotency comes first where the domain has an id of its own (lending a book again
// under the same loan id decides nothing); command ids cover what the domain cannot recognise,
// such as a payment sent twice.
package aggregate
