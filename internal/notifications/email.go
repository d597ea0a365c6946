package notifications

import "errors"

// Email is one message the outbox asks its Mailer to send.
type Email struct {
	// MessageID is the Message-ID header, angle brackets included (MessageIDs): the mailer
	// sends it exactly as given, so a retried email keeps its identity and a receiver can drop
	// repeats.
	MessageID string
	// From and To are addresses, optionally with a display name ("Library <noreply@x.org>").
	From, To string
	Subject  string
	// Body is plain text.
	Body string
}

// FailureClass sorts a failed send the way a mail operator does: the outbox parks, defers or
// pauses by it (see "Failures" in the package comment), and the metrics count by it.
type FailureClass string

// The classes of failure. An email the relay accepted is never a failure, whatever fails after
// it.
const (
	// Permanent: the relay refused this email for good, or its address can't be sent at all.
	Permanent FailureClass = "permanent"
	// Temporary: the relay refused or stalled this email's recipient for now, and takes mail
	// otherwise: the email is tried again later, while the others go on.
	Temporary FailureClass = "temporary"
	// RelayDown: the relay can't be reached or takes no mail for now: sending pauses.
	RelayDown FailureClass = "relayDown"
)

// SendError is a send that failed, as the Mailer sorted it. None of its texts names the
// recipient or the relay's credentials.
type SendError struct {
	Class FailureClass
	// Code is the relay's reply code; 0 when the relay did not reply.
	Code int
	// Reason is a short, bounded name for the metrics ("5xx", "4xx", "timeout", ...).
	Reason string
	// Text describes the failure, the relay's reply included: a parked email's reason.
	Text string
	// Public is the failure in words for /status, which anyone may read: no host, no text of
	// the relay's reply, no recipient.
	Public string
	// Err is the mailer's own error, if it has one.
	Err error
}

func (e *SendError) Error() string { return e.Text }

// PublicText implements processor.PublicTexter.
func (e *SendError) PublicText() string { return e.Public }

func (e *SendError) Unwrap() error { return e.Err }

// sendError returns err's *SendError, if it has one.
func sendError(err error) (*SendError, bool) {
	var se *SendError
	ok := errors.As(err, &se)
	return se, ok
}
