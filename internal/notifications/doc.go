// Package notifications sends the library's loan emails.
//
// It holds the email a loan produces, the outbox that sends one email per BookLent event, and
// the mailers that deliver them: SMTPMailer talks to the SMTP server named by SMTP_URL, and the
// log mailer stands in for it when SMTP_URL is unset.
package notifications
