package sip2

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// readAll reads messages until an error, and returns them and that error.
func readAll(r *Reader) ([]string, error) {
	var out []string
	for {
		b, err := r.Read()
		if err != nil {
			return out, err
		}
		out = append(out, string(b))
	}
}

func TestReaderLineEnds(t *testing.T) {
	want := []string{"9300CNa|COb|", "9900302.00", "941"}
	for name, input := range map[string]string{
		"CR":            "9300CNa|COb|\r9900302.00\r941\r",
		"LF":            "9300CNa|COb|\n9900302.00\n941\n",
		"CRLF":          "9300CNa|COb|\r\n9900302.00\r\n941\r\n",
		"mixed, blanks": "9300CNa|COb|\r\n\r\n9900302.00\n\r941\r",
	} {
		for _, lineEnd := range []string{"\r", "\n", "\r\n"} {
			got, err := readAll(NewReader(strings.NewReader(input), Framing{LineEnd: lineEnd}))
			if !errors.Is(err, io.EOF) || strings.Join(got, ",") != strings.Join(want, ",") {
				t.Errorf("%s with LineEnd %q: %q, %v", name, lineEnd, got, err)
			}
		}
	}
}

// One byte at a time, or several messages in one read: the same messages.
func TestReaderSplitsAndJoins(t *testing.T) {
	input := "9300CNa|COb|\r9900302.00\r941\r"
	for name, r := range map[string]io.Reader{
		"one byte a read": iotest.OneByteReader(strings.NewReader(input)),
		"half a read":     iotest.HalfReader(strings.NewReader(input)),
		"all at once":     strings.NewReader(input),
		"data with EOF":   iotest.DataErrReader(strings.NewReader(input)),
	} {
		got, err := readAll(NewReader(r, Framing{}))
		if !errors.Is(err, io.EOF) || len(got) != 3 || got[2] != "941" {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
}

func TestReaderEOFInTheMiddle(t *testing.T) {
	got, err := readAll(NewReader(strings.NewReader("941\r9300CNa|CO"), Framing{}))
	if !errors.Is(err, io.ErrUnexpectedEOF) || len(got) != 1 {
		t.Fatalf("%q, %v", got, err)
	}
	got, err = readAll(NewReader(strings.NewReader(""), Framing{}))
	if !errors.Is(err, io.EOF) || len(got) != 0 {
		t.Fatalf("%q, %v", got, err)
	}
	broken := errors.New("connection reset")
	_, err = NewReader(iotest.ErrReader(broken), Framing{}).Read()
	if !errors.Is(err, broken) {
		t.Fatal(err)
	}
}

// A message over MaxLength is an error as soon as the limit is passed; the Reader skips the rest
// of it and reads the next.
func TestReaderTooLong(t *testing.T) {
	long := "9300CN" + strings.Repeat("x", 100) + "|"
	r := NewReader(strings.NewReader("941\r"+long+"\r9900302.00\r"), Framing{MaxLength: 50})
	if b, err := r.Read(); err != nil || string(b) != "941" {
		t.Fatalf("%q, %v", b, err)
	}
	_, err := r.Read()
	wantKind(t, err, KindTooLong)
	if b, err := r.Read(); err != nil || string(b) != "9900302.00" {
		t.Fatalf("after the long message: %q, %v", b, err)
	}
	// Exactly MaxLength is fine.
	exact := strings.Repeat("9", 50)
	if b, err := NewReader(strings.NewReader(exact+"\r"), Framing{MaxLength: 50}).Read(); err != nil || string(b) != exact {
		t.Fatalf("%q, %v", b, err)
	}
}

// endless is a connection that sends bytes without a line end, forever.
type endless struct{ sent int }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'x'
	}
	e.sent += len(p)
	return len(p), nil
}

// A line without end is refused after MaxLength bytes and a buffer's worth, not read forever
// into memory.
func TestReaderUnendingLine(t *testing.T) {
	src := &endless{}
	r := NewReader(src, Framing{})
	_, err := r.Read()
	wantKind(t, err, KindTooLong)
	if src.sent > DefaultMaxLength+2*4096 || cap(r.buf) > 2*DefaultMaxLength {
		t.Fatalf("read %d bytes, holds %d", src.sent, cap(r.buf))
	}
}

func TestWriterLineEnds(t *testing.T) {
	m := Message{Code: "94", Fixed: []string{"1"}, HasSeq: true, Seq: 3}
	for lineEnd, want := range map[string]string{"": "941AY3AZFDFA\r", "\r": "941AY3AZFDFA\r", "\n": "941AY3AZFDFA\n", "\r\n": "941AY3AZFDFA\r\n"} {
		var out bytes.Buffer
		if err := NewWriter(&out, Framing{LineEnd: lineEnd}).Write(m); err != nil || out.String() != want {
			t.Errorf("LineEnd %q: %q, %v", lineEnd, out.String(), err)
		}
	}
	err := NewWriter(&bytes.Buffer{}, Framing{}).Write(Message{Code: "94"})
	wantKind(t, err, KindMalformed)
}
