// Package notifications sends the library's loan emails.
//
// It holds the email a loan produces, the outbox that sends one email per BookLent event, and
// the record of the emails the relay accepted. The outbox delivers through a Mailer: the SMTP
// client (package smtpclient) talks to the relay named by SMTP_URL, and the log mailer stands
// in for it when SMTP_URL is unset (what it logs was sent nowhere, so it is not recorded as
// accepted, and a member's export does not list it). It learns a book's title and a member's address through
// Books and Members, which internal/app fills from the books and accounts services, so it
// holds neither service.
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
// # Failures
//
// A failed send is sorted as a mail operator sorts it (smtpclient.FailureClass), by the step
// that failed and by whether the relay goes on talking after it:
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
// A member without an account or an email address gets nothing yet: the loan is parked with
// that reason. retry-parked sends parked emails again once the reason is gone.
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
