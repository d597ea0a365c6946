package smtpclient

// Email is one message.
type Email struct {
	// MessageID is the Message-ID header, e.g. "<notifications.42@library>". It is sent
	// exactly as given (angle brackets are added when missing), so a retried email keeps its
	// identity and receivers can drop duplicates. Empty means the mailer makes one up.
	MessageID string
	// From and To are addresses, optionally with a display name ("Library <noreply@x.org>").
	From, To string
	Subject  string
	// Body is plain text.
	Body string
}
