// Package pgdriver keeps processors' leases and checkpoints in PostgreSQL, where every replica
// sees them: Leases are session advisory locks; Checkpoints keeps positions, deferred events,
// parked events and timers in the tables of migrations (processor_checkpoints,
// processor_deferred, processor_parked, processor_timers). Both keep the contract of package processor, whose package comment has the
// promises; the suite in internal/testkit/drivertest runs here as it runs on the memory
// drivers. ViewTx is what every view model kept in PostgreSQL writes through: its rows and its
// checkpoint in one transaction, fenced by the checkpoint. This comment has what is
// PostgreSQL's own.
//
// # Leases
//
// A lease is a session advisory lock, one key per processor name (LockKey), on a connection
// that does nothing else. A standby keeps its own connection and waits for the lock in
// PostgreSQL's lock queue (pg_advisory_lock), LeaseTiming.RetryInterval at a time (its
// lock_timeout), so the server grants it the lock the moment the holder unlocks or its session
// ends. The holder runs a trivial query on its lock connection every CheckInterval; when one
// fails or takes longer than CheckTimeout, the lease is lost at once.
//
// A holder that is cut off from the database can't unlock, so the server must notice on its
// own. The lock session sets idle_session_timeout and tcp_user_timeout to SessionTimeout, and
// short TCP keepalives: a session that has been silent for SessionTimeout is ended by the
// server, which releases the lock. The holder has given up by then, because SessionTimeout is
// kept above CheckInterval+CheckTimeout: the holder stops trusting its lease at most
// CheckInterval+CheckTimeout after the last check the server answered, and the server lets the
// lock go at least SessionTimeout after that same check. With the defaults (1 s, 1 s, 5 s), a
// holder that vanishes without a word is replaced within about 5 s; one that dies with its
// process is replaced at once (its connection closes with it, and the server grants the lock to
// the standby queued for it); one that stops (SIGTERM) unlocks after the batch in hand, with
// the same effect. Lease.Fresh turns false SessionTimeout less CheckTimeout after the last good
// check, so a holder whose checker could not run (a paused process) stops trusting its lease
// before the server may end the session.
//
// That ordering holds when the holder's connection goes silent, which is how a network
// partition or a hung holder looks. When the connection is closed instead (the server ends the
// session with pg_terminate_backend, a connection reset), the server frees the lock at once and
// a standby can take it before the old holder's next check: for up to CheckInterval +
// CheckTimeout both may be at work, which fenced checkpoints make harmless (see package
// processor).
//
// # Checkpoints
//
// A checkpoint moves by one UPDATE (an INSERT for the first move) whose WHERE clause is the
// exact position its mover read: a row that another holder moved meanwhile is not matched, and
// the move fails with processor.ErrFenced, writing nothing. A view model moves its checkpoint
// with SaveTx, in the transaction that writes its rows, so that both commit or neither does.
// Parking forgets the deferral in the same statement, and Requeue turns every parked event of a
// processor into a deferred one in one statement. Deferred and parked events are kept whole
// (every column of the event), with the reason cut to processor.MaxReasonLength.
//
// A view model's transactions commit without waiting for the WAL to reach the disk
// (synchronous_commit off, for those transactions alone): a build is made from the log, which
// is durable, and its rows and checkpoint commit or vanish together, so a commit that a crash
// of the server loses (at most a few hundred milliseconds of them) is one the build's holder
// reads and applies again. The log's appends, the checkpoints of outboxes and sagas, and
// everything else wait for the disk as usual.
//
// A view whose rows are added once by key and seldom again (a book, a title) writes a batch
// through ViewTx.ApplyAdding: first as if every row it adds were new (a plain INSERT, or a
// COPY), which costs PostgreSQL about half of an upsert; when a key is taken, that
// transaction is rolled back, having written nothing, and the batch is written again with
// upserts. A catch-up after an import adds millions of rows and finds none taken; a book added
// again costs its batch one transaction more.
//
// # Timers
//
// Timers are rows of processor_timers, one per (processor, key). A Save or Done that carries
// timer changes runs in one transaction with them, sent in one round trip; a fenced move rolls
// them back with it. Every schedule takes a new version from the sequence
// processor_timer_versions, and a fired timer is deleted only where its version is still the
// one that was fired. due_at is the timer's time as scheduled; fire_at is when it is to fire
// (due_at, or the next attempt after a failed fire), and what is due, how late it is, and when
// a retry comes are all reckoned against now(), the database's clock.
//
// # Failures
//
// Every error from the driver is turned into the service's own by package pgerr: a database
// that can't be reached, or a query that ran out of its context's time, is errs.Unavailable,
// which the engine waits out with backoff; anything else is errs.Internal. A lease that can't
// reach the database is asked for again every RetryInterval, with a warning in the log now and
// then.
package pgdriver
