package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/mail"
	"strconv"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// smtpSink is an SMTP server on loopback that accepts every message, without TLS or
// authentication, and records when it accepted each one, by its Message-ID header. The
// service's SMTP_URL points at it.
type smtpSink struct {
	srv  *smtp.Server
	addr string

	mu       sync.Mutex
	accepted map[string]time.Time // Message-ID, angle brackets included: when it was accepted
	count    int                  // messages accepted, repeats included
	changed  chan struct{}        // closed and replaced whenever a message is accepted
}

func startSMTPSink() (*smtpSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("SMTP sink: %w", err)
	}
	s := &smtpSink{addr: ln.Addr().String(), accepted: map[string]time.Time{}, changed: make(chan struct{})}
	s.srv = smtp.NewServer(sinkBackend{s})
	s.srv.Domain = "librarybench"
	s.srv.AllowInsecureAuth = true
	s.srv.ReadTimeout = time.Minute
	s.srv.WriteTimeout = time.Minute
	s.srv.MaxMessageBytes = 1 << 20
	// A killed process leaves its connection reset: not worth a line in the output.
	s.srv.ErrorLog = log.New(io.Discard, "", 0)
	go func() { _ = s.srv.Serve(ln) }() // returns once close closes the listener
	return s, nil
}

// URL is the SMTP_URL that reaches the sink.
func (s *smtpSink) URL() string { return "smtp://" + s.addr + "?tls=none" }

func (s *smtpSink) close() { _ = s.srv.Close() }

func (s *smtpSink) record(messageID string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	if _, ok := s.accepted[messageID]; !ok { // a repeat keeps the first acceptance
		s.accepted[messageID] = at
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// Count is how many messages the sink has accepted, repeats included.
func (s *smtpSink) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// wait returns when the sink accepted the message with that Message-ID, waiting up to timeout.
func (s *smtpSink) wait(ctx context.Context, messageID string, timeout time.Duration) (time.Time, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		at, ok := s.accepted[messageID]
		changed := s.changed
		s.mu.Unlock()
		if ok {
			return at, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return time.Time{}, fmt.Errorf("the SMTP sink did not accept %s within %s", messageID, timeout)
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

// loanMessageID is the Message-ID of the email for the BookLent event at position.
func loanMessageID(position int64) string {
	return "<notifications." + strconv.FormatInt(position, 10) + "@library>"
}

type sinkBackend struct{ s *smtpSink }

func (b sinkBackend) NewSession(*smtp.Conn) (smtp.Session, error) { return sinkSession(b), nil }

// sinkSession accepts any sender and recipients, and records each message's Message-ID when
// its DATA has been read in full, just before the server answers 250.
type sinkSession struct{ s *smtpSink }

func (sinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (sinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (sinkSession) Reset()                               {}
func (sinkSession) Logout() error                        { return nil }

func (ss sinkSession) Data(r io.Reader) error {
	br := bufio.NewReader(r)
	msg, err := mail.ReadMessage(br)
	id := ""
	if err == nil {
		id = msg.Header.Get("Message-ID")
		if _, err := io.Copy(io.Discard, msg.Body); err != nil {
			return err
		}
	} else if _, err := io.Copy(io.Discard, br); err != nil {
		return err
	}
	ss.s.record(id, time.Now())
	return nil
}
