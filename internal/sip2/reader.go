package sip2

import (
	"bufio"
	"errors"
	"io"
)

// Reader reads messages from a connection, one at a time.
//
// A message ends at the first CR or LF, whatever Framing.LineEnd says, and empty lines are
// skipped: so a kiosk that ends its messages with CR, LF or CRLF reads the same, and the LF of a
// CRLF is dropped at the start of the next message. A message is at most Framing.MaxLength bytes
// without its terminator: past that Read returns a ParseError of KindTooLong at once, holding
// nothing more of it, and the next Read first skips the rest of that message, up to its
// terminator. The Reader never holds more than MaxLength bytes of a message, plus its buffer of
// 4096 bytes.
type Reader struct {
	br         *bufio.Reader
	cs         charset
	err        error // the Framing's own fault, returned by every Read
	max        int
	buf        []byte
	discarding bool // skipping the rest of a message over max
}

// NewReader reads messages from r as f frames them. If f is not one the package can use
// (Framing.Check), every Read returns that error.
func NewReader(r io.Reader, f Framing) *Reader {
	cs, err := f.charset()
	if err == nil {
		err = f.Check()
	}
	return &Reader{br: bufio.NewReaderSize(r, 4096), cs: cs, err: err, max: f.maxLength()}
}

// Read returns the next message's text decoded to UTF-8, without its terminator; the slice is
// the caller's. At the end of the input it returns io.EOF, or io.ErrUnexpectedEOF when the
// input ended in the middle of a message. Bytes that are not text in the character set are a
// ParseError of KindCharset; the Reader carries on at the next message.
func (r *Reader) Read() ([]byte, error) {
	raw, err := r.next()
	if err != nil {
		return nil, err
	}
	return r.cs.decode(raw)
}

// ReadMessage reads the next message and parses it, checking its checksum against the bytes as
// they were sent.
func (r *Reader) ReadMessage() (Message, error) {
	raw, err := r.next()
	if err != nil {
		return Message{}, err
	}
	text, err := r.cs.decode(raw)
	if err != nil {
		return Message{}, err
	}
	return parse(text, raw)
}

// next returns the bytes of the next message that is not empty; they are valid until the next call.
func (r *Reader) next() ([]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	for {
		raw, err := r.line()
		if err != nil || len(raw) > 0 {
			return raw, err
		}
	}
}

// line reads up to the next CR or LF.
func (r *Reader) line() ([]byte, error) {
	r.buf = r.buf[:0]
	for {
		c, err := r.br.ReadByte()
		if err != nil {
			if errors.Is(err, io.EOF) && len(r.buf) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		switch {
		case c == '\r' || c == '\n':
			if r.discarding {
				r.discarding = false
				continue
			}
			return r.buf, nil
		case r.discarding:
		case len(r.buf) >= r.max:
			r.discarding = true
			r.buf = r.buf[:0]
			return nil, parseErr(KindTooLong, "", "more than %d bytes without a line end", r.max)
		default:
			r.buf = append(r.buf, c)
		}
	}
}
