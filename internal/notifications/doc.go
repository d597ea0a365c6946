// Package notifications sends the library's loan emails.
//
// It holds the email a loan produces, the outbox that sends one email per BookLent event, and
// the mailers that deliver them: SMTPMailer talks to the SMTP server named by SMTP_URL, and the
// log mailer stands in for it when SMTP_URL is unset.
//
// The outbox promises at least one email per loan, and in practice one: it runs under the
// processor package's lease, in one replica at a time, and a replica that dies mid-batch leaves
// at most that batch to be sent again by the next holder. Every email's Message-ID is made from
// the outbox's name and the event's position only, so a repeat carries the same id and a mail
// system can drop it. A member without an email address gets nothing yet: the loan is parked
// with that reason, and retry-parked sends it once the member has one.
package notifications
