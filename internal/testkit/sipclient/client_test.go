package sipclient

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"library/internal/sip2"
)

// server is an in-test listener: for each message it reads, it writes what answer returns, as
// raw bytes plus CR; a nil answer writes nothing.
func server(t *testing.T, answer func(req []byte) []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { _ = ln.Close(); <-done })
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer func() { _ = conn.Close() }()
		r := sip2.NewReader(conn, sip2.Framing{})
		for {
			req, err := r.Read()
			if err != nil {
				return
			}
			if out := answer(req); out != nil {
				if _, err := conn.Write(append(out, '\r')); err != nil {
					return
				}
			}
		}
	}()
	return ln.Addr().String()
}

// echo answers each request with the canned message, under the request's sequence number.
func echo(canned sip2.Message) func([]byte) []byte {
	return func(req []byte) []byte {
		m, err := sip2.Parse(req)
		if err != nil {
			return []byte("96AZFEF6")
		}
		canned.HasSeq, canned.Seq = true, m.Seq
		b, _ := canned.Encode()
		return b
	}
}

func dial(t *testing.T, addr string) *Client {
	t.Helper()
	c, err := Dial(context.Background(), addr, sip2.Framing{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Send numbers requests 0 to 9 and round again, and reads the answers that echo them.
func TestSendCyclesSequenceNumbers(t *testing.T) {
	seen := make(chan int, 12)
	ok := echo(sip2.Message{Code: "94", Fixed: []string{"1"}})
	c := dial(t, server(t, func(req []byte) []byte {
		m, _ := sip2.Parse(req)
		seen <- m.Seq
		return ok(req)
	}))
	for range 12 {
		resp, err := c.Send(context.Background(), Login("kiosk", "secret"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Code != "94" || resp.FixedField("ok") != "1" {
			t.Fatalf("%+v", resp)
		}
	}
	var got []int
	for range 12 {
		got = append(got, <-seen)
	}
	if got[0] != 0 || got[9] != 9 || got[10] != 0 || got[11] != 1 {
		t.Fatalf("sequence numbers %v", got)
	}
}

func TestSendRefusesABadAnswer(t *testing.T) {
	cases := map[string]func([]byte) []byte{
		"wrong sequence number": func([]byte) []byte { return []byte("941AY7AZFDF6") },
		"no sequence number":    func([]byte) []byte { return []byte("941") },
		"bad checksum":          func([]byte) []byte { return []byte("941AY0AZFDFF") },
	}
	for name, answer := range cases {
		c := dial(t, server(t, answer))
		if _, err := c.Send(context.Background(), Status()); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	c := dial(t, server(t, func([]byte) []byte { return []byte("941AY0AZFDFF") }))
	_, err := c.Send(context.Background(), Status())
	if sip2.KindOf(err) != sip2.KindChecksum {
		t.Errorf("bad checksum: %v", err)
	}
}

// A 96 comes back as it is: the listener could not read what it was sent.
func TestSendReturnsAResend(t *testing.T) {
	c := dial(t, server(t, func([]byte) []byte { return []byte("96AZFEF6") }))
	resp, err := c.Send(context.Background(), Status())
	if err != nil || resp.Code != "96" {
		t.Fatalf("%+v, %v", resp, err)
	}
}

// A listener that never answers: Send gives up at the context's deadline, or when it is cancelled.
func TestSendHonoursTheContext(t *testing.T) {
	c := dial(t, server(t, func([]byte) []byte { return nil }))
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := c.Send(ctx, Status()); !IsTimeout(err) {
		t.Fatalf("deadline: %v", err)
	}
	c = dial(t, server(t, func([]byte) []byte { return nil }))
	ctx, cancel = context.WithCancel(context.Background())
	go cancel()
	if _, err := c.Send(ctx, Status()); !IsTimeout(err) {
		t.Fatalf("cancel: %v", err)
	}
}

// After an exchange the connection carries no deadline: a later Send without one waits.
func TestSendLiftsTheDeadline(t *testing.T) {
	c := dial(t, server(t, echo(sip2.Message{Code: "98", Fixed: []string{"Y", "Y", "Y", "Y", "N", "N", "010", "003",
		sip2.BlankDate, "2.00"}}.Add("AO", "lib").Add("BX", strings.Repeat("Y", 16)))))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	if _, err := c.Send(ctx, Status()); err != nil {
		t.Fatal(err)
	}
	cancel()
	resp, err := c.Send(context.Background(), Status())
	if err != nil || len(resp.Value("BX")) != 16 {
		t.Fatalf("%+v, %v", resp, err)
	}
}

func TestSendRaw(t *testing.T) {
	c := dial(t, server(t, echo(sip2.Message{Code: "94", Fixed: []string{"1"}})))
	got, err := c.SendRaw(context.Background(), []byte("9300CNuser|COpass|AY1AZ0000"))
	if err != nil || string(got) != "96AZFEF6" {
		t.Fatalf("%q, %v", got, err)
	}
	got, err = c.SendRaw(context.Background(), []byte("9300CNuser|COpass|AY1AZF83D"))
	if err != nil || !strings.HasPrefix(string(got), "941AY1AZ") {
		t.Fatalf("%q, %v", got, err)
	}
}

// SendOnly puts the message on the wire and returns without an answer; the next exchange reads
// its own answer, as the listener gave none to the first.
func TestSendOnly(t *testing.T) {
	got := make(chan string, 2)
	ok := echo(sip2.Message{Code: "94", Fixed: []string{"1"}})
	c := dial(t, server(t, func(req []byte) []byte {
		got <- string(req)
		if strings.HasPrefix(string(req), "99") {
			return nil
		}
		return ok(req)
	}))
	status := Status()
	status.HasSeq = true
	line, err := status.Encode()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.SendOnly(context.Background(), line); err != nil {
		t.Fatal(err)
	}
	if req := <-got; req != string(line) {
		t.Fatalf("the listener read %q", req)
	}
	answer, err := c.SendRaw(context.Background(), []byte("9300CNuser|COpass|AY1AZF83D"))
	if err != nil || !strings.HasPrefix(string(answer), "941AY1AZ") {
		t.Fatalf("%q, %v", answer, err)
	}
}

func TestDialFails(t *testing.T) {
	if _, err := Dial(context.Background(), "127.0.0.1:1", sip2.Framing{Charset: "latin1"}); err == nil {
		t.Error("a bad framing dialled")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	if _, err := Dial(context.Background(), addr, sip2.Framing{}); err == nil {
		t.Error("dialled a closed port")
	}
}
