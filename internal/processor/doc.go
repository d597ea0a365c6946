// Package processor is background work that reads the log: view models, outboxes and sagas.
// However many replicas run, each processor runs in exactly one of them at a time, under a
// lease, and moves through the log from a checkpoint that every replica shares.
//
// This package says what a processor is (Processor, Handler, ViewModel, TimerHandler, and the
// errors that sort an event), what it runs on (Leases and Checkpoints, with their Timers: the
// contract every driver keeps, tested by the suite in internal/testkit/drivertest), how it is
// tuned (Options) and what is shown of it (Status). Package engine runs processors (Group),
// and its package timers fires their timers; package pgdriver keeps leases, checkpoints and
// timers in PostgreSQL, and package memdriver in the memory of one process (for a single
// process without a database, and the tests); package processorhttp serves /status and the admin endpoints. This comment
// holds the promises all of them keep.
//
// # How a processor runs
//
// A replica asks for each processor's lease and, while it holds it, reads the log from the
// processor's checkpoint in batches (Options.BatchSize), hands each batch to the processor, and
// moves the checkpoint past it. A view model that is behind (its last read found as many events as
// it asked for) reads larger batches (Options.CatchUpBatchSize) until it has caught up, and applies
// each in one transaction: after an import, or from the log's beginning, it catches up in fewer,
// larger writes; its model may write a batch's changes set by set (Rounds). Behind, it reads its
// next batch while it applies one, so that the database reads and writes for it at once; a model
// that prepares its batches (a Preparer: the catalog decodes its events) prepares the next one
// there too, beside the transaction of the one before it. A view far
// behind (a BulkWriter, at least BulkFrom events of its types after its checkpoint) is told to
// write in bulk, and told to end it once caught up: the catalog drops its search indexes meanwhile
// and makes them again, whole; /status says bulk until then. An outbox or a saga behind reads
// CatchUpBatchSize at a time too. It reads again as soon as an append wakes it (through
// eventstore.Store.Subscribe) and, in case a wake-up was lost, every Options.PollInterval. When it
// caught up after reading more than one event, it reads again no sooner than Options.ReadInterval
// (20ms) later, so that appends which keep coming are handled in batches, with one read and one
// checkpoint write each; an event on its own is read at once. Replicas that don't hold a lease are
// standbys: they do nothing for that processor except try to take the lease.
//
// A processor that names its event types (Processor.Types) reads those only
// (eventstore.Store.ReadTypes; in PostgreSQL a look at the next events in order, then an index scan
// per type where those are few), is woken only by their appends, and counts only them in its lag: a
// payment costs the catalog nothing. The group's types (Group.Types) are also what the store tells
// other processes of: an append of a type no processor reads wakes no other replica at all
// (pgstore.Postgres.TellOnly). A processor's checkpoint passes the events of other types without a
// write for each: a move past them alone is written with the next move past an event it handles, or
// after ten seconds, whichever comes first, and at a shutdown. (A view model's move past them alone
// is written at most every ten seconds.) That is safe because passing them is idempotent: a holder
// that dies before the write leaves the next one to pass them again, which costs one read and
// handles nothing.
//
// A view model whose code reads nothing of an event's metadata but its schema version says so
// (Processor.DataOnly), and reads events without the rest (eventstore.DataReader). A handler
// that has nothing to do with most of the events of its types, and can tell which from the event
// alone (a Selector: the adoption saga and the books added since titles), has the others passed
// over as handled: no worker, deadline or span is spent on them, and its checkpoint moves past
// them as past events it handled. One that has something to do with the events written at an
// older schema version alone (Processor.SchemaBelow: the adoption saga) has the log pass over
// the newer where it can (eventstore.OlderReader), so that they are not read at all.
//
// # Leases
//
// A lease has at most one holder per processor name. The holder watches Lease.Lost, and when it
// is closed the lease is lost at once: the batch in hand is cancelled and the replica becomes a
// standby. A holder cut off from where its lease is kept can't give it back, so a driver must
// let the lease go on its own, and only after the holder has stopped trusting it: package
// pgdriver says how its leases keep that order (a holder that vanishes without a word is
// replaced within about 5 s; one that dies with its process, or stops, at once).
//
// A driver may also let a new holder in before the old one has noticed that its lease is gone
// (in PostgreSQL, when the server closes the old holder's session rather than letting it go
// silent): for a short while both may be at work. Fenced checkpoints make that harmless for
// view models and for every checkpoint move; an outbox may send the old holder's batch in hand
// again, which its at-least-once promise (below) already allows.
//
// In memory there is one replica, which always holds its leases.
//
// # Checkpoints are fenced
//
// A checkpoint is a Position: the (transaction, position) of the last event handled, in a
// generation that a replay increases. It moves only by compare-and-set from the exact value its
// mover read, and only forward, so a stale holder (one whose lease was lost while a batch was
// in hand) can't move it back, and can't move it at all once the new holder has moved it. The
// stale holder's write fails with ErrFenced and writes nothing; the holder then reads the
// checkpoint again, and learns at its next check that its lease is gone. Before each event and
// each batch a holder also asks its lease whether it is still fresh (Lease.Fresh), so that a
// process that was paused for longer than its lease can be trusted (in PostgreSQL, longer than
// the server keeps its session) does not act on a lease that ran out meanwhile.
//
// A view model writes its rows and its checkpoint in one transaction that fails as a whole when
// the checkpoint is not the one it read. Two holders racing through the same batch can't both
// commit it, so a view model never applies an event twice.
//
// # Views are built beside the one that answers
//
// A view model is kept in builds (Build): each has tables of its own (in PostgreSQL, a
// schema view_<view>_<n>; the first build's are the tables the migrations made), a checkpoint
// and a lease of its own, under its own name (the view's for the first build, view@n after),
// and is filled from the start of the log by the code of one version of the view
// (View.Versions). Where the builds are and what state each is in is kept beside the
// checkpoints (Builds: the table view_builds in PostgreSQL), so every replica sees the same. In
// every replica a keeper tends each view: it starts a build of its code's version when the view
// has none, runs the builds of its version (each under its lease, as any processor runs), lets
// its build take over once it has caught up, and drops what no one reads. A replay of a view
// (POST /admin/processors/{view}/replay, from any replica) is a new build of the same version;
// a release that bumps the view's version starts one by itself.
//
// The builds keep these promises:
//
//   - One build of a view builds at a time. A replay while one builds is that build; a newer
//     version's build replaces an older one's that is still building (a rolling upgrade), and
//     an older release starts none while a newer one's builds.
//   - One build answers. A building build takes over (answering; the one that answered
//     becomes retired) in one transaction, and only once its checkpoint has reached the
//     answering build's: reads never go back in the log. Until then the old build answers,
//     kept up to date by the replicas of its version, and a read that waits for a position
//     (minPosition) is served by it.
//   - A replica reads the build that outranks the others among those that have caught up and
//     whose version its code reads (Versions.Reads): the answering one, or, on a replica of an
//     older release during a rolling upgrade, the newest build of its own version, which its
//     replicas keep running. No build it can read: its reads are Unavailable (503) until one
//     takes over.
//   - A retired build's tables are dropped, with its checkpoint and everything kept under its
//     name, only once it has been retired for Options.DropAfter and no replica has said, within
//     DropAfter, that it reads it. Each keeper says which build it reads at once when that
//     changes, then every quarter of DropAfter, and forgets it as it stops. A build's number is
//     never given again, so no later build inherits a dropped one's lease, checkpoint or schema.
//
// Failures are those of any processor, and change nothing of the above. A build is written
// like any view (rows and checkpoint in one transaction, fenced), so a builder that dies or
// loses its lease mid-way leaves the build where its last batch left it, and whichever replica
// takes the build's lease next carries on from that checkpoint. Every change of a view's builds
// (start, takeover, drop) is one transaction that holds the view's lock, and a write to a build
// locks its row for share, so that a takeover or a drop waits for the writes in hand and the
// writes after it find the build as it was left: a write to a dropped build fails with
// ErrBuildGone and writes nothing, and its runner stops. A read that chose a build dropped in
// the instant after it is Unavailable (try again). A keeper whose store fails backs off and
// tries again, as a runner does; a replica that goes silent stops counting as a reader after
// DropAfter, so it can't keep an old build forever.
//
// # Outboxes and sagas: at least once
//
// An outbox causes effects outside the database, which no transaction can fence, and a saga
// runs commands. Their Handler gets one event per call, and up to Processor.InFlight events at
// once (1 unless the processor asks for more), each on a goroutine of its own: events are then
// handled in no particular order. The runner reads the log into a window and moves the
// checkpoint to the end of the window's longest run of events that are finished with (handled,
// deferred or parked): the low-water mark. An event still in hand holds the checkpoint below
// it, however many events after it are done, so that a holder that dies leaves the next one
// every event it had not finished, and never skips one. The checkpoint moves at most once per
// ReadInterval while events keep coming, and at once when nothing is in hand.
//
// What a holder handled after the last checkpoint it saved is handled again by the next
// holder: an effect may happen twice, never zero times. Each effect therefore carries a stable
// id made from the event (an email's Message-ID), and an outbox keeps its own record of the
// effects done (see the notifications package), so that the repeats are only those done in
// the instant before a crash. A saga runs commands whose command ids come from the event, so
// its repeats are recognised by the log and do nothing.
//
// # Failures of an event
//
// What the Handler returns sorts the event, as a mail queue sorts mail:
//
//   - Park: parked at once, with the reason: copied, whole, into the shared store.
//   - Pause (or errs.Unavailable): what the handler depends on is down, not this event. A gate
//     closes: no event is started, the events in hand wait at it, and after a backoff (100ms,
//     doubling to 5s) one of them goes through as a probe. The probe getting through opens the
//     gate for all. These attempts use up nothing: an outage of any length parks nothing.
//   - Later: nothing failed, but the handler can't take this event now, for a limit of its own
//     (the outbox's emails in flight to one recipient domain). The event gives its slot back at
//     once, uses up no attempt, and waits, still in hand (the checkpoint stays below it), until
//     the channel the handler gave is closed; then it is started again before events not yet
//     started. Events after it go on meanwhile, so one busy key can't take every slot. A
//     deferred event handed back holds back the next batch of due deferred events until it is
//     done with, as any due event in hand does.
//   - Wait: nothing failed, but the event can't be done until something changes that the
//     processor is not told of (the outbox's email to a member who has given no address yet).
//     It is deferred, as below, for the time the handler gave (at least 100ms), and uses up no
//     attempt however often it waits; it counts among the deferred events in Status, but is
//     not a failure (no LastError, no DeferListener, a debug log line only). The timers its
//     handling scheduled stand, as a handled event's do: a wait is the handler's work done as
//     far as it can go. The handler bounds the wait itself, parking the event when it is over;
//     the engine knows nothing of what it waits for, and polls.
//   - any other error: the event failed for now. It is deferred: kept in the shared store with
//     its next attempt time (Options.Retry: by default six tries over about a minute), so that
//     the checkpoint passes it and events after it go on, and a takeover keeps it. Whoever
//     holds the lease tries it again when it is due, and parks it when its attempts run out.
//
// Parked events are kept until retry-parked, which turns them into deferred events due at once
// with all their attempts. Handlers that implement ParkListener or DeferListener hear of each.
//
// # Timers
//
// A saga or an outbox whose Handler is also a TimerHandler can make something happen at a time,
// once, whichever replica holds its lease then: while it handles an event it calls Schedule
// ("at T, for this key, do this", with a little JSON of ids) or Cancel through the context it
// was given. Keys are the processor's own; scheduling under a key that has a timer replaces it.
// Nothing is written at the call: the changes an event's handling made (only if it returned
// nil, or Wait) are kept with the event until the checkpoint moves past it, and are written by
// Checkpoints.Save in the same transaction as that move (or, for a deferred event tried again,
// with its Done once it is handled: a retry that waits again writes none), in log order. A holder whose save is fenced writes no timer, and the next
// holder, handling the event again, schedules them again. They live where the checkpoints do:
// in PostgreSQL, the table processor_timers; in memory, package memdriver's Checkpoints.
//
// Whoever holds the lease runs a timer loop beside its dispatcher, stopped with it. It asks the
// store for the timers that are due, the earliest first, and hands each to Fire: one at a time,
// in due order (or up to InFlight at once, for a processor that allows that), then sleeps until
// the next is due, or until a save wrote timers, and at most PollInterval. While the log grows
// (its dispatcher has read events in the last 250ms), the timers give way: one at a time, and
// after each fire the loop rests nine times as long as the fire took, so that they take at most
// a tenth of one lane. The commands that write those events are someone waiting for an answer;
// timers have waited for their time and can wait a little longer. A burst of timers whose fires
// append events the processor reads (a hold shelf's expiries) gives way to itself in the same
// way. What is due is decided by the store's clock, never the replica's (in PostgreSQL every
// comparison is with now()): replicas whose clocks disagree agree on what is due, and a timer
// fires neither early on a replica that runs fast nor late on one that runs slow. A timer that
// fires late (after an outage, or while the processor was down) fires all the same, once, with
// a log line, "timer fired late", that says by how much.
//
// Fire does its work through the paths a handler uses: it appends an event, with a command id
// derived from the timer's key and its At, or hands an email to the outbox with an id derived
// from them. Once Fire returns nil, the timer is forgotten, unless it was scheduled again or
// cancelled meanwhile (each schedule has a version of its own), and the changes Fire made
// (say, its own key again in 15 minutes) are written with that, in one transaction. The timers
// that fire while one such write is under way are forgotten together in the next, in the order
// they fired, and the next fire does not wait for the write: under load, one write forgets
// many timers. In PostgreSQL that write does not wait for the disk either. Firing is at least
// once: a holder that dies between Fire's work and the forgetting leaves the timer (the one in
// hand, and those that fired during the last write) to the next holder, which fires it again,
// and so does a database that crashes before the forgetting reached its disk; the repeat is
// recognised by its id, as an event's is. A takeover is nothing more: the new holder fires
// what is due, from where every replica sees it, and nothing that was forgotten.
//
// A Fire that can't do its work yet, for want of something it is not told of, does not return
// Wait (which is for events): it schedules its own key again for when it will look again,
// keeping in its data the time its work's ids derive from, and returns nil.
//
// A Fire that fails is sorted as a Handler's error is. Pause or errs.Unavailable: what it
// depends on is down; the loop stops firing, waits (100ms, doubling to 5s) and tries again,
// using up no attempt. Later: nothing failed, but the handler can't take this timer now, for a
// limit of its own (the outbox's emails in flight to one recipient domain). The timer is left
// as it is, due, using up no attempt, and the loop goes on with the other due timers, reading
// past it, until the channel the handler gave is closed (after 100ms for none, and after
// PollInterval at most); then it fires again, ahead of the timers due after it. Timers handed
// back are the only ones that fire out of due order. Any other error: the timer's attempts go up, its error is kept, and it
// is tried again after the Options.Retry schedule's wait for that attempt, by the store's
// clock; its At stays, so that the ids of its work stay too. A timer is never parked or
// dropped: once its attempts have run out it is tried again every Retry.Max for as long as it
// fails, with an error in the log each time, and Status shows how many timers are failing
// and how overdue the oldest is. A handler that knows a timer can never succeed returns nil
// from Fire (having done nothing), or cancels it.
//
// A replay (of a saga) handles every event again, and so schedules every timer again, those
// that fired long ago included: their work is recognised by its id and does nothing.
//
// # Failures
//
// When the store fails (the database restarts, a query times out), the holder keeps its lease
// if it can, lets the events in hand finish, reads its checkpoint again (the outcome of the
// failed write is unknown) and tries again with backoff, up to a few seconds apart. An event's
// outcome (deferred, parked, done) is written before the event counts as finished, and that
// write is tried again until it succeeds, so an event is never passed without its outcome kept.
// The error shows in Status.LastError until the processor next succeeds. If the lease's own
// connection fails too, the lease is lost and whoever gets it next goes on from the shared
// checkpoint. Every call a holder makes to the log, the checkpoints or a handler has a
// deadline, Options.StepTimeout (30 s by default): a query that the database does not answer
// (a connection gone silent, a statement queued behind a lock) fails like any other instead of
// holding the processor, even while the lease's own connection answers its checks.
//
// On shutdown (the engine's Group.Stop) each processor finishes the events in hand without
// starting others (an event waiting at a closed gate is left to the next holder), moves its
// checkpoint, and releases its lease, so a standby takes over without waiting for a timeout.
// When Stop's context ends first, the events in hand are cancelled and Stop waits for the
// handlers to return: a handler must honour its context.
package processor
