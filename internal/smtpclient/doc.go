// Package smtpclient delivers email through an SMTP relay (go-mail), over a pool of
// connections: SMTP_URL's parsing (ParseURL, Config), the connections, and the sorting of
// every failure the way a mail operator sorts it (SendError, FailureClass).
//
// What it promises: an email the relay accepted (its 250 to DATA) is reported sent whatever
// fails after it, so a caller never sends it twice; any other failure is a *SendError whose
// class says whether the email was refused for good (Permanent), for now (Temporary), or the
// relay is down (RelayDown), from what one conversation shows; a context that ends interrupts
// a conversation at once; and no error, log line or printed Config holds the user name, the
// password or the recipient's address. It knows nothing of loans or of the outbox that uses
// it (package notifications, through its Mailer interface, which package
// notifications/smtpmail adapts this client to).
package smtpclient
