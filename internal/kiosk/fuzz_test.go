package kiosk_test

import (
	"bytes"
	"errors"
	"net"
	"testing"
	"time"

	"library/internal/kiosk"
)

// Whatever a kiosk sends, a session answers it, or closes the connection, within moments: it
// never hangs and never dies (go test -fuzz=FuzzSession ./internal/kiosk/). The seeds are
// real-shaped messages, before a login and after one, and their damaged forms.
func FuzzSession(f *testing.F) {
	for _, seed := range []string{
		"9900302.00AY1AZFCA5", "9900302.00", "9300CNkiosk-1|COwrong|", "97", "96",
		"11NN20261205    120000                  AOlibrary|AA21000001|AB31234000000017|AC|AD1234|AY2AZ0000",
		"09N20261205    12000020261205    120000APdesk|AOlibrary|AB31234000000017|AC|",
		"6300120261205    120000Y         AOlibrary|AA21000001|AD1234|BP1|BQ5|",
		"37" + "20261205    120000" + "0100EUR" + "BV2.50|AOlibrary|AA1|BKx|", "35", "\x00\xff|AY", "99\xc3\x28",
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	l := serveSessions(f, kiosk.Options{})
	f.Fuzz(func(t *testing.T, line []byte, loggedIn bool) {
		line = bytes.Map(func(r rune) rune { // one message: its end is the framing's, not the fuzzer's
			if r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, line)
		if len(bytes.TrimSpace(line)) == 0 {
			return // an empty line is no message: the session waits for one, as it should
		}
		conn, err := net.Dial("tcp", l.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close() }()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second))
		if loggedIn {
			if _, err := conn.Write([]byte("9300CNkiosk-1|CO" + l.password + "|\r")); err != nil {
				t.Fatal(err)
			}
			if _, err := readAnswer(conn); err != nil {
				t.Fatalf("no answer to the login: %v", err)
			}
		}
		if _, err := conn.Write(append(line, '\r')); err != nil {
			return // closed already: an answer of its own
		}
		answer, err := readAnswer(conn)
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("no answer and no close within 10 s to %q", line)
		}
		if err == nil && len(answer) < 2 {
			t.Fatalf("an answer too short to be a message, to %q: %q", line, answer)
		}
	})
}

// readAnswer reads up to a carriage return: the answer, or the error that ended the wait (EOF:
// the session closed the connection).
func readAnswer(conn net.Conn) ([]byte, error) {
	var answer []byte
	b := make([]byte, 1)
	for {
		if _, err := conn.Read(b); err != nil {
			return nil, err // io.EOF: the session closed the connection
		}
		if b[0] == '\r' {
			return answer, nil
		}
		answer = append(answer, b[0])
	}
}
