// Package notifications sends the library's loan emails, their reminders, and the emails that
// tell a member a book waits for them on the hold shelf.
//
// It holds the emails a loan produces, the outbox that sends one email per BookLent event and
// the loan's reminders on its timers, one "Ready for pickup" email per BookHeld event (sent as
// a loan email is, and waiting for an address as it does), and the record of the emails the relay accepted. The
// outbox delivers through a Mailer, which this package declares in its own types (Email,
// SendError): the SMTP client (package smtpclient, adapted by package smtpmail) talks to the relay
// named by SMTP_URL, and the log mailer stands in for it when SMTP_URL is unset (what it logs
// was sent nowhere, so it is not recorded as accepted, and a member's export does not list it).
// It learns a book's title, its current loan and a member's address through Facts, which package
// emailfacts answers from the books and accounts services, so it holds neither service. The
// record of accepted emails is kept in memory here (MemoryAcceptedEmails), or in PostgreSQL by
// package notificationspg: this package is plain Go, with no database driver.
//
// # What the outbox promises
//
// At least one email per loan, and in practice one. It runs under the processor package's
// lease, in one replica at a time, with up to SMTP_MAX_IN_FLIGHT emails in flight over a pool
// of SMTP connections, at most SMTP_MAX_PER_DOMAIN of them to one recipient domain (see below);
// no order is promised between the emails of different loans. The relay's
// 250 to DATA makes an email sent, whatever fails after it (a relay that drops the connection
// right after accepting), and the holder records it in AcceptedEmails at once; before sending,
// it asks that record, so a holder that takes over never sends an accepted email again. An
// email goes twice only when the relay accepted it in the instant before its holder died, and
// the holder had not recorded it yet: at most the emails in flight at the crash.
//
// Every email's Message-ID is made from the event and the installation only (see MessageIDs),
// so a repeat carries the same id and a receiver can drop it.
//
// # Reminders
//
// Each loan gets a due-soon reminder, REMIND_BEFORE before its due time, and overdue notices,
// OVERDUE_AFTER after it and then every OVERDUE_EVERY after the previous notice's time, up to
// OVERDUE_NOTICES (Reminders). They are the outbox's durable timers (see "Timers" in package
// processor), keyed by ids only, "due-soon:{bookId}/{loanId}" and "overdue:{bookId}/{loanId}"
// (an id holds no "/"), their data ids and times only:
//
//   - BookLent schedules both, written with the checkpoint that passes the event, also when
//     its loan email waits for an address (processor.Wait keeps them). A due-soon time already
//     past when the loan is made (a loan shorter than REMIND_BEFORE) gets no reminder: the loan
//     email has just given the due time. A loan email that fails otherwise writes its loan's
//     timers only when it is finally sent; one parked for a refusal has none until
//     retry-parked sends it.
//   - LoanRenewed schedules them again under the same keys, for the new due time, which
//     replaces them (the same rule for a due-soon time already past at the renewal); a notice
//     series starts again.
//   - DueDateMoved (a closed day moved the loan) schedules them again as a renewal does, but
//     for the overdue notices, which go on counting: those whose times from the old due time
//     had come when it was recorded are not sent again, and the next comes at its time from
//     the new due time, none once OVERDUE_NOTICES had come (a loan may be overdue already when
//     a past day is closed).
//   - BookReturned cancels both, and so do LoanLost and ClaimedReturned: a loan that ended
//     lost or claimed returned gets no more overdue notices.
//
// Fire sends a reminder as the loan email is sent: the book's title, the member's address on
// their account, the relay, the record of accepted emails keyed by Message-ID, failures sorted
// the same. Its Message-ID comes from the timer's key and its due time (MessageIDs.ForTimer),
// kept in the timer's data, so a fire repeated after a crash, or by the next holder, is
// recognised as sent. A fire looks at the book as it is now first, since the outbox may not
// have read the return, renewal or move that came just before: a loan no longer current gets
// nothing, and a reminder whose due time the loan no longer has (renewed or moved) is moved to
// the new one instead of sent. The overdue notice schedules the next one, its time computed
// from the due time alone, so that a notice scheduled twice has one time and one Message-ID.
//
// A timer is never parked (package processor), so a reminder that can't go is given up: a
// refusal for good, ReminderAttempts refusals for now (the processor's Retry.Attempts, as a
// loan email is parked), no address in time (below), or an erased member. It is logged
// ("reminder not sent", with its key and due time, naming nobody) and counted as parked; the
// next overdue notice is still scheduled, except for an erased member. A relay that is down
// pauses the timers, as it pauses sending, using up nothing. A reminder whose domain is full is
// handed back (Later, below), as a loan email is: the other reminders go on, and it fires again
// once a slot of its domain frees.
//
// # An email waits for its address
//
// A member may borrow before they ever sign in: no account yet, or none with an address. Their
// loan email waits (processor.Wait: deferred, counted as deferred in /status, using up no
// attempt) and looks again every AddressPoll (a minute); once the address is on the account,
// the next look sends it, once. Only when EMAIL_ADDRESS_WAIT has passed since the BookLent was
// recorded is it parked ("no email address"), for retry-parked to send once there is one. A
// reminder waits the same way, from its due time: its timer is scheduled again for the next
// look, keeping its due time, and so its Message-ID, in its data.
//
// The outbox polls rather than being woken by the account's AccountOpened or ContactChanged,
// which it could read: the processor keeps deferred events by position and timers by key, so a
// wake-up for one member's emails would need an index of them by member in every driver (a
// larger change to the engine and its tables), for a gain of under a minute. A poll costs one
// account lookup per waiting email a minute, bounded by EMAIL_ADDRESS_WAIT.
//
// # Failures
//
// A failed send is sorted as a mail operator sorts it (FailureClass, as smtpclient sorts it), by
// the step that failed and by whether the relay goes on talking after it:
//
//   - Refused for good (a 5xx, an address that can't be sent): the email is parked at once with
//     the relay's reply.
//   - Refused or stalled for this email only (Temporary): the relay took MAIL FROM on this
//     connection, then answered this email's RCPT, or its DATA, with a 4xx (421 and 454
//     included, as long as the relay keeps the connection: the RSET after the reply is
//     answered), or did not answer its RCPT within the SMTP timeout. The email is deferred,
//     off the line, tried again on a backoff schedule, and parked when its attempts run out;
//     the other emails go on meanwhile.
//   - The relay down (RelayDown): connecting, TLS, the greeting, EHLO or AUTH failed; any
//     failure at MAIL FROM; a 421 after which the relay hangs up, at whatever step; a connection
//     dropped without a reply; a timeout anywhere but at RCPT. All sending pauses until the
//     relay is back, and no email's attempts are used up.
//
// A member without an account or an email address gets nothing yet: the email waits for the
// address (below), and is parked with that reason only after EMAIL_ADDRESS_WAIT.
// retry-parked sends parked emails again once the reason is gone.
//
// What tells "this email only" from "the relay" is what one conversation shows, since that is
// all a send sees: the relay has just accepted MAIL FROM on this very connection (the same
// sender for every email, so it takes mail), and the failure came at RCPT, the one command
// that names the recipient, or after it. A relay that checks recipients with their domain, or
// limits the rate to one domain, stalls or refuses there. A 421 says the relay is closing the
// connection: when it does, it is believed and sending pauses; when the relay goes on
// answering, the 421 was about this recipient. A timeout after the message itself (DATA and
// its reply: the relay's queue or filters, the same for every email) still counts as the
// relay down; after the message, it is also unknown whether the relay took it.
//
// The trade-off: a relay that takes MAIL FROM but refuses or stalls every recipient for a while
// (its own recipient checks broken) looks like many recipients failing at once. Their emails
// are deferred and, if it lasts longer than the retry schedule (about a minute by default),
// parked, and retry-parked sends them. The opposite mistake, pausing all mail for a recipient
// that never gets through, holds up every loan with no end, which is worse. Each timed-out
// RCPT holds a slot for the SMTP timeout (10 s) per attempt.
//
// # Emails in flight per domain
//
// One slow recipient domain must not take every slot: at most SMTP_MAX_PER_DOMAIN emails (4
// by default; the domain is what follows the address's last @, in lower case) are in flight to
// one domain at once, within SMTP_MAX_IN_FLIGHT in all. An email whose domain is full is not
// sent and does not wait in its slot: the outbox hands it back to the processor
// (processor.Later) with a channel that is closed when a slot of its domain frees (the first
// in line is told at each release; everyone when nothing is in flight to the domain any more,
// or the outbox goes idle). The processor gives the slot to the next email, and starts the
// handed-back one again, before emails not yet started, once told; its attempts are not used
// up. Each hand-back costs the lookups before a send (the record of accepted emails, the member,
// the book), which is small next to an SMTP conversation.
//
// A handed-back email keeps its place in the processor's read-ahead (twice its batch size: 200
// events by default) and holds the checkpoint below it, as any email in flight does: when one
// slow domain has more emails waiting than the read-ahead holds, the emails after them wait
// until it moves on. The limit counts domains as written, not the mail servers behind them,
// and only in the replica that holds the lease, which is the only one sending.
package notifications
