package kioskcell

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"strings"
	"time"
)

// sipKiosk is one kiosk's SIP2 connection, as a self-check kiosk speaks it: one message, then its
// answer, with error detection on (a sequence number AY cycling 0 to 9 and a checksum AZ on every
// message, each answer's checked). The benchmark writes the protocol itself, from the
// specification, rather than through the service's codec: a module of its own, it does not
// import the service's packages, and what it sends is what a kiosk from another maker sends.
type sipKiosk struct {
	conn net.Conn
	r    *bufio.Reader
	seq  int
	buf  []byte // the message being written, kept from one to the next
}

// sipTimeout bounds one exchange: a listener that stops answering fails the operation, not the
// run.
const sipTimeout = 30 * time.Second

// dialKiosk connects to the SIP2 listener at addr and logs in as the terminal (93).
func dialKiosk(ctx context.Context, addr, terminal, password string) (*sipKiosk, error) {
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("dialling the SIP listener: %w", err)
	}
	k := &sipKiosk{conn: conn, r: bufio.NewReaderSize(conn, 4096)}
	answer, err := k.send("9300", "CN"+terminal, "CO"+password)
	if err != nil {
		_ = conn.Close()
		return nil, err
	}
	if !strings.HasPrefix(answer, "941") {
		_ = conn.Close()
		return nil, fmt.Errorf("the terminal's login was refused: %q", answer)
	}
	return k, nil
}

// close ends the connection.
func (k *sipKiosk) close() { _ = k.conn.Close() }

// sipDate is the specification's date, the kiosk's local wall clock with a blank zone.
func sipDate(t time.Time) string { return t.Format("20060102") + "    " + t.Format("150405") }

// sipBlankDate is a date field left empty (a checkout's nb due date).
const sipBlankDate = "                  "

// showMember sends a patron status (23) with the card and PIN, and wants the member valid (BL)
// with a valid PIN (CQ): the session then knows the card, and checks its PIN no more.
func (k *sipKiosk) showMember(inst, card, pin string) error {
	answer, err := k.send("23001"+sipDate(time.Now()), "AO"+inst, "AA"+card, "AC", "AD"+pin)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(answer, "24") || field(answer, fixed24, "BL") != "Y" || field(answer, fixed24, "CQ") != "Y" {
		return fmt.Errorf("the member's card and PIN were not taken: %q", answer)
	}
	return nil
}

// checkout sends a checkout (11) of the copy to the card shown, with its PIN, as a kiosk sends
// each, and wants it done (ok 1).
func (k *sipKiosk) checkout(inst, card, pin, barcode string) error {
	answer, err := k.send("11NN"+sipDate(time.Now())+sipBlankDate, "AO"+inst, "AA"+card, "AB"+barcode, "AC", "AD"+pin)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(answer, "121") {
		return fmt.Errorf("checkout of %s refused (%s): %s", barcode, answer[:min(len(answer), 3)], field(answer, fixed12, "AF"))
	}
	return nil
}

// send writes the message (its code and fixed fields, then its variable fields, each ended by
// "|"), with the next sequence number and its checksum, and returns the answer, whose checksum
// and sequence number it checks, without them.
func (k *sipKiosk) send(fixed string, fields ...string) (string, error) {
	seq := k.seq
	k.seq = (k.seq + 1) % 10
	b := append(k.buf[:0], fixed...)
	for _, f := range fields {
		b = append(append(b, f...), '|')
	}
	b = append(b, 'A', 'Y', byte('0'+seq), 'A', 'Z')
	b = append(append(b, checksum(b)...), '\r')
	k.buf = b
	_ = k.conn.SetDeadline(time.Now().Add(sipTimeout))
	if _, err := k.conn.Write(b); err != nil {
		return "", fmt.Errorf("sending %s: %w", fixed[:2], err)
	}
	line, err := k.r.ReadSlice('\r')
	if err != nil {
		return "", fmt.Errorf("the answer to %s: %w", fixed[:2], err)
	}
	line = bytes.TrimLeft(line[:len(line)-1], "\n") // a listener may end its lines with CR LF
	at := bytes.LastIndex(line, []byte("AZ"))
	if at < 0 || len(line) != at+6 || string(checksum(line[:at+2])) != string(line[at+2:]) {
		return "", fmt.Errorf("the answer to %s has no right checksum: %q", fixed[:2], line)
	}
	want := []byte{'A', 'Y', byte('0' + seq)}
	if at < 3 || !bytes.Equal(line[at-3:at], want) {
		return "", fmt.Errorf("the answer to %s does not carry its sequence number %d: %q", fixed[:2], seq, line)
	}
	return string(line[:at-3]), nil
}

// checksum is the AZ field's value for b, the message through "AZ": the sum of its bytes, kept to
// 16 bits and negated, in four capital hex digits.
func checksum(b []byte) []byte {
	var sum uint16
	for _, c := range b {
		sum += uint16(c)
	}
	return fmt.Appendf(nil, "%04X", -sum)
}

// field is the value of the answer's variable field id, "" when it has none; fixed is the
// length of the answer's code and fixed fields, after which its variable fields begin.
func field(answer string, fixed int, id string) string {
	if len(answer) < fixed {
		return ""
	}
	for f := range strings.SplitSeq(answer[fixed:], "|") {
		if v, ok := strings.CutPrefix(f, id); ok {
			return v
		}
	}
	return ""
}

// The lengths of the code and fixed fields of the answers read: a 24 (patron status, date
// and language) and a 12 (checkout: ok, renewal ok, magnetic media, desensitize, date).
const (
	fixed24 = 2 + 14 + 3 + 18
	fixed12 = 2 + 4 + 18
)
