package sip2

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
	"unicode/utf8"
)

// roundTrip checks that a message Parse accepted encodes, and reads back as itself.
func roundTrip(t *testing.T, f Framing, m Message) {
	b, err := f.Encode(m)
	if err != nil {
		t.Fatalf("parsed %+v, but Encode: %v", m, err)
	}
	cs, _ := f.charset()
	text, err := cs.decode(b)
	if err != nil {
		t.Fatal(err)
	}
	back, err := f.Parse(text)
	if err != nil {
		t.Fatalf("Encode wrote %q, which Parse refuses: %v", b, err)
	}
	if !sameMessage(m, back) {
		t.Fatalf("%+v encodes as %q, which reads back as %+v", m, b, back)
	}
}

// Anything that parses, in UTF-8 or code page 850, encodes and parses back the same; nothing panics.
func FuzzParse(f *testing.F) {
	for _, ex := range readPublished(f) {
		f.Add([]byte(ex.line))
	}
	f.Add([]byte("9300CNuser|COpass"))
	f.Add([]byte("64              00020260314    093000000100020000000000000000AOlib|AAp1|AEAnn|AUb1|AUb2|"))
	f.Fuzz(func(t *testing.T, line []byte) {
		if m, err := Parse(line); err == nil {
			roundTrip(t, Framing{}, m)
		} else if KindOf(err) == 0 {
			t.Fatalf("an error without a kind: %v", err)
		}
		if m, err := cp850.Parse(line); err == nil {
			roundTrip(t, cp850, m)
		}
	})
}

// model is what Reader must make of input: the messages between CR and LF, the empty ones
// skipped, each over limit an error; and at the end EOF, or an unexpected EOF after a message
// that was cut (a cut message over the limit was already an error).
func model(input []byte, limit int) []string {
	var out []string
	start := 0
	for i, c := range input {
		if c == '\r' || c == '\n' {
			if i > start {
				out = append(out, verdict(input[start:i], limit))
			}
			start = i + 1
		}
	}
	switch last := input[start:]; {
	case len(last) > limit:
		return append(out, "too long", "EOF")
	case len(last) > 0:
		return append(out, "unexpected EOF")
	}
	return append(out, "EOF")
}

func verdict(s []byte, limit int) string {
	switch {
	case len(s) > limit:
		return "too long"
	case !utf8.Valid(s):
		return "charset"
	}
	return "msg " + string(s)
}

// The Reader reads what the model says, whatever the input; it never returns more than
// MaxLength bytes or a line end in a message.
func FuzzReader(f *testing.F) {
	f.Add([]byte("9300CNa|COb|\r\n9900302.00\r941"), uint8(20))
	f.Add([]byte("941AY3AZFDFA\n\n\r"+"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\r941\r"), uint8(12))
	f.Add([]byte("9300CN\xff|\r"), uint8(0))
	f.Fuzz(func(t *testing.T, input []byte, maxLength uint8) {
		limit := int(maxLength)
		if limit == 0 {
			limit = DefaultMaxLength
		}
		want := model(input, limit)
		r := NewReader(iotest.OneByteReader(bytes.NewReader(input)), Framing{MaxLength: int(maxLength)})
		var got []string
		for len(got) <= len(input)+2 {
			b, err := r.Read()
			switch {
			case err == nil:
				if len(b) > limit || bytes.ContainsAny(b, "\r\n") {
					t.Fatalf("message %q", b)
				}
				got = append(got, "msg "+string(b))
				continue
			case errors.Is(err, io.EOF):
				got = append(got, "EOF")
			case errors.Is(err, io.ErrUnexpectedEOF):
				got = append(got, "unexpected EOF")
			case KindOf(err) == KindTooLong:
				got = append(got, "too long")
				continue
			case KindOf(err) == KindCharset:
				got = append(got, "charset")
				continue
			default:
				t.Fatalf("error %v", err)
			}
			break
		}
		if len(got) != len(want) {
			t.Fatalf("read %q, want %q", got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("read %q, want %q", got, want)
			}
		}
	})
}
