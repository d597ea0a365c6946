package sip2

import (
	"errors"
	"fmt"
)

// Kind says why a message was refused. A server answers every kind with a Request SC Resend
// (96) and acts on nothing in the message.
type Kind int

const (
	// KindMalformed means the message is not of the protocol's shape: too short for its fixed
	// part, a field id that is not a capital letter and a letter or digit, an error-detection
	// field out of place, ...
	KindMalformed Kind = iota + 1
	// KindChecksum means the AZ field is not four hex digits, or is not the sum of what was sent.
	KindChecksum
	// KindUnknownCode means the command identifier is none the table knows.
	KindUnknownCode
	// KindTooLong means the Reader met more than Framing.MaxLength bytes without a terminator.
	KindTooLong
	// KindCharset means the bytes are not text in the Framing's character set: invalid UTF-8,
	// or, on writing, a character the code page has no byte for.
	KindCharset
)

func (k Kind) String() string {
	switch k {
	case KindMalformed:
		return "malformed"
	case KindChecksum:
		return "checksum"
	case KindUnknownCode:
		return "unknown code"
	case KindTooLong:
		return "too long"
	case KindCharset:
		return "charset"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseError is what Parse, Framing.Parse and Reader return for a message they refuse.
type ParseError struct {
	Kind   Kind
	Code   string // the message's command identifier, when it had one
	Detail string
}

func (e *ParseError) Error() string {
	if e.Code != "" {
		return fmt.Sprintf("sip2: %s message %q: %s", e.Kind, e.Code, e.Detail)
	}
	return fmt.Sprintf("sip2: %s message: %s", e.Kind, e.Detail)
}

// EncodeError is what Encode and Writer return for a Message that does not fit the table or the
// character set; nothing was written.
type EncodeError struct {
	Kind   Kind // KindMalformed, KindUnknownCode or KindCharset
	Code   string
	Detail string
}

func (e *EncodeError) Error() string {
	return fmt.Sprintf("sip2: cannot encode %q (%s): %s", e.Code, e.Kind, e.Detail)
}

// KindOf is the Kind of a ParseError or EncodeError in err's chain, or 0 when there is none.
func KindOf(err error) Kind {
	var pe *ParseError
	if errors.As(err, &pe) {
		return pe.Kind
	}
	var ee *EncodeError
	if errors.As(err, &ee) {
		return ee.Kind
	}
	return 0
}

func parseErr(kind Kind, code, format string, args ...any) *ParseError {
	return &ParseError{Kind: kind, Code: code, Detail: fmt.Sprintf(format, args...)}
}

func encodeErr(kind Kind, code, format string, args ...any) *EncodeError {
	return &EncodeError{Kind: kind, Code: code, Detail: fmt.Sprintf(format, args...)}
}
