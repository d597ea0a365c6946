// Package notifications sends the library's loan emails.
//
// It holds the email a loan produces, the outbox that sends one email per BookLent event, the
// record of the emails the relay accepted, and the mailers that deliver them: SMTPMailer talks
// to the relay named by SMTP_URL, and the log mailer stands in for it when SMTP_URL is unset.
//
// # What the outbox promises
//
// At least one email per loan, and in practice one. It runs under the processor package's
// lease, in one replica at a time, with up to SMTP_MAX_IN_FLIGHT emails in flight over a pool
// of SMTP connections; no order is promised between the emails of different loans. The relay's
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
// A failed send is sorted as a mail operator sorts it (FailureClass): refused for good (a 5xx,
// an address that can't be sent) parks the email at once with the relay's reply; refused for
// now (a 4xx to RCPT or DATA) defers it, off the line, to be tried again on a backoff schedule
// and parked when its attempts run out; the relay down (it can't be reached, refuses the login
// or TLS, answers 421 or a 4xx to MAIL, or times out) pauses all sending until it is back, and
// uses up no email's attempts. A member without an account or an email address gets nothing
// yet: the loan is parked with that reason. retry-parked sends parked emails again once the
// reason is gone.
package notifications
