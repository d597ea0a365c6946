package smtpclient

import (
	"errors"
	"fmt"
	"net"
	"net/textproto"
	"os"
	"strings"
)

// FailureClass sorts a failed send the way a mail operator does.
type FailureClass string

// The classes of failure. An email the relay accepted (its 250 to DATA came) is never a
// failure, whatever fails after it.
const (
	// Permanent: the relay refused this email for good (a 5xx to MAIL, RCPT or DATA), or its
	// address can't be sent at all. Trying again would get the same answer.
	Permanent FailureClass = "permanent"
	// Temporary: the relay took the conversation as far as this email's recipient and then
	// refused it for now, or stalled on it: a 4xx to RCPT or DATA (a full mailbox, greylisting,
	// and a 421 or 454 after which the relay keeps the connection), or no answer to RCPT in
	// time. It is tried again later, while other emails go on.
	Temporary FailureClass = "temporary"
	// RelayDown: the relay can't be reached or takes no mail at all for now: connecting, TLS or
	// authentication failed, any failure at MAIL FROM, a 421 after which the relay hangs up, a
	// connection dropped without a reply, or a timeout anywhere but at RCPT. It is no email's
	// fault: sending pauses until the relay is back.
	RelayDown FailureClass = "relayDown"
)

// The steps of sending an email, as SendError.Step names them.
const (
	StepConnect = "connect" // TCP, TLS, greeting, EHLO, STARTTLS and AUTH
	StepMail    = "MAIL"
	StepRcpt    = "RCPT"
	StepData    = "DATA" // the DATA command, or the reply to the message that follows it
	StepMessage = "message"
)

// SendError is a send that failed: its class, the step that failed, and the relay's reply.
// Its text names the message and the step and quotes the reply, never the recipient or the
// credentials.
type SendError struct {
	Class FailureClass
	Step  string
	// Code is the relay's reply code; 0 when the relay did not reply (a connection failure).
	Code int
	// Reason is a short, bounded name for metrics: "5xx", "4xx", "421", "address", "connect",
	// "tls", "auth", "timeout" or "dropped".
	Reason string
	// Text describes what happened, the relay's reply included.
	Text string
}

func (e *SendError) Error() string { return e.Text }

// PublicText is the failure in words for /status, which anyone may read: the class, the step
// and the reply code, never the relay's host, its reply's text or the recipient.
func (e *SendError) PublicText() string {
	if e.Code != 0 {
		return fmt.Sprintf("the relay answered %s with %d (%s)", e.Step, e.Code, e.Class)
	}
	return fmt.Sprintf("%s: %s failed (%s)", e.Class, e.Step, e.Reason)
}

// IsSendError returns err's *SendError, if it has one.
func IsSendError(err error) (*SendError, bool) {
	var se *SendError
	ok := errors.As(err, &se)
	return se, ok
}

// sortReply sorts a failure at one step of a conversation, by the reply alone. What the relay
// does next can change it: a 421 after which it hangs up, or a timeout at RCPT (see
// smtpConn.refused).
func sortReply(step string, err error) *SendError {
	var reply *textproto.Error
	if !errors.As(err, &reply) {
		return connectionFailure(step, err)
	}
	se := &SendError{Step: step, Code: reply.Code, Text: fmt.Sprintf("the relay answered %s with %d %s", step, reply.Code, reply.Msg)}
	reason := "4xx"
	if reply.Code == 421 || reply.Code == 454 {
		// 421: the relay is closing the connection, or says so; 454: it can't take this now
		// (a rate limit, TLS or authentication unavailable). Kept apart for the metrics.
		reason = fmt.Sprint(reply.Code)
	}
	switch {
	case reply.Code >= 500:
		se.Class, se.Reason = Permanent, "5xx"
	case step == StepMail:
		// MAIL FROM names the sender, the same for every email: a 4xx to it is about the
		// relay and the sender, not this email.
		se.Class, se.Reason = RelayDown, reason
	default:
		// RCPT and DATA come after the relay took MAIL FROM on this connection: a 4xx to them
		// follows this email's recipient, unless the relay then hangs up (refused).
		se.Class, se.Reason = Temporary, reason
	}
	return se
}

// connectionFailure sorts a failure without a reply: the connection broke or timed out.
func connectionFailure(step string, err error) *SendError {
	reason := "dropped"
	if isTimeout(err) {
		reason = "timeout"
	}
	return &SendError{Class: RelayDown, Step: step, Reason: reason, Text: fmt.Sprintf("%s failed: %v", step, err)}
}

// dialFailure sorts a failure to open a connection: whatever it was, the relay is down.
func dialFailure(err error) *SendError {
	var dialErr *dialError
	var reply *textproto.Error
	reason := "connect"
	switch {
	case errors.As(err, &dialErr):
		reason = dialErr.stage
	case isTimeout(err):
		reason = "timeout"
	case errors.As(err, &reply) && (reply.Code == 454 || (reply.Code >= 530 && reply.Code <= 538)),
		strings.Contains(err.Error(), "AUTH"):
		reason = "auth"
	case strings.Contains(err.Error(), "STARTTLS"), strings.Contains(err.Error(), "tls:"):
		reason = "tls"
	}
	return &SendError{Class: RelayDown, Step: StepConnect, Reason: reason, Text: fmt.Sprintf("connect: %v", err)}
}

// dialError is a failure of the dialer itself: "connect" (TCP) or "tls" (the handshake).
type dialError struct {
	stage string
	err   error
}

func (e *dialError) Error() string { return e.err.Error() }
func (e *dialError) Unwrap() error { return e.err }

func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}
