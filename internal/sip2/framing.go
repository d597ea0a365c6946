package sip2

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"
)

// DefaultMaxLength is the longest message, in bytes without its terminator, a Reader accepts
// when Framing.MaxLength is 0.
const DefaultMaxLength = 4096

// Framing is how messages travel on one connection.
type Framing struct {
	// LineEnd is what Writer appends to each message: "\r" (the specification's, and the
	// default when empty), "\n" or "\r\n". Reader accepts all three whatever it is.
	LineEnd string
	// Charset is the connection's character set: "utf-8" (the default when empty) or "cp850"
	// (IBM code page 850, which many kiosks use; also spelt "ibm850").
	Charset string
	// MaxLength bounds a message in bytes, without its terminator; 0 means DefaultMaxLength.
	MaxLength int
}

// Check says whether f is one the package can use.
func (f Framing) Check() error {
	switch f.LineEnd {
	case "", "\r", "\n", "\r\n":
	default:
		return fmt.Errorf("sip2: line end %q is none of CR, LF, CRLF", f.LineEnd)
	}
	if f.MaxLength < 0 {
		return fmt.Errorf("sip2: negative MaxLength %d", f.MaxLength)
	}
	_, err := f.charset()
	return err
}

func (f Framing) lineEnd() string {
	if f.LineEnd == "" {
		return "\r"
	}
	return f.LineEnd
}

func (f Framing) maxLength() int {
	if f.MaxLength <= 0 {
		return DefaultMaxLength
	}
	return f.MaxLength
}

// charset converts between a connection's bytes and UTF-8 text.
type charset struct{ cp850 bool }

var utf8Charset = charset{}

func (f Framing) charset() (charset, error) {
	switch strings.ToLower(f.Charset) {
	case "", "utf-8", "utf8":
		return charset{}, nil
	case "cp850", "ibm850", "850":
		return charset{cp850: true}, nil
	}
	return charset{}, fmt.Errorf("sip2: unknown character set %q (want utf-8 or cp850)", f.Charset)
}

// decode turns raw bytes into UTF-8 text: checked for UTF-8, or mapped from code page 850,
// where every byte is a character. The result never shares memory with raw.
func (c charset) decode(raw []byte) ([]byte, error) {
	if !c.cp850 {
		if !utf8.Valid(raw) {
			return nil, parseErr(KindCharset, "", "not UTF-8 text")
		}
		return append([]byte(nil), raw...), nil
	}
	out := make([]byte, 0, len(raw)+len(raw)/2)
	for _, b := range raw {
		out = utf8.AppendRune(out, charmap.CodePage850.DecodeByte(b))
	}
	return out, nil
}

// encode turns UTF-8 text into the connection's bytes; a character code page 850 lacks is an
// error, never a substitute.
func (c charset) encode(text []byte) ([]byte, error) {
	if !utf8.Valid(text) {
		return nil, fmt.Errorf("not UTF-8 text")
	}
	if !c.cp850 {
		return append([]byte(nil), text...), nil
	}
	out := make([]byte, 0, len(text))
	for _, r := range string(text) {
		b, ok := charmap.CodePage850.EncodeRune(r)
		if !ok {
			return nil, fmt.Errorf("%q has no byte in code page 850", r)
		}
		out = append(out, b)
	}
	return out, nil
}
