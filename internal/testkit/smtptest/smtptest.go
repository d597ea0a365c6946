// Package smtptest runs an in-process SMTP server for tests and records every message it accepts.
//
// What it promises:
//   - Start listens on 127.0.0.1 on a free port and stops when the test ends (t.Cleanup).
//   - Every accepted message is kept, in acceptance order, with its envelope, its parsed
//     headers, its decoded subject and text body, its raw bytes and the number of the SMTP
//     connection that delivered it (1 for the first connection the server accepted, and so on).
//   - With Options.Username set, AUTH PLAIN is offered and required before MAIL FROM. With
//     Options.TLS set to "starttls" the server offers STARTTLS; with "tls" it speaks implicit TLS.
//     Either way it uses a self-signed certificate made at Start that ClientTLSConfig trusts.
//   - It misbehaves on demand, like a real relay, from the next command on: Refuse answers every
//     DATA with a given reply; RefuseRecipient answers RCPT TO for one address (matched without
//     regard to case) with a given reply and a fitting RFC 3463 enhanced status code, and
//     RefuseRecipientKeepOpen does the same but keeps the connection even after a 421;
//     DelayRecipient waits before answering RCPT TO for one address or for every address of a
//     domain (a relay verifying the recipient, or one slow domain; longer than the client's
//     timeout, a recipient that stalls); SetDelay waits before each reply to DATA;
//     CloseAfterAccept closes the connection right after each 250 to DATA, the message having
//     been recorded.
//   - Whenever it replies 421 it closes that connection right after the reply has been written,
//     as RFC 5321 says a server sending 421 does, so the client's next command fails; only
//     RefuseRecipientKeepOpen's 421 leaves it open, as some relays do for one recipient.
//   - It counts: Connections (accepted so far), MaxConnections (most open at once),
//     MaxConversations (most mail transactions open at once; a transaction is open from MAIL
//     FROM until its reply to DATA has been written, RSET, or the end of its connection),
//     MaxConversationsTo (the same, for the transactions with a recipient at one domain, from
//     its RCPT TO on, unless that was refused) and Attempts (RCPT TO commands per address,
//     accepted or refused). ResetMax restarts the maxima. The counts are exact whatever the
//     concurrency.
//   - All methods are safe for concurrent use, and no goroutine of the server outlives Close.
package smtptest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"log"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Options configures a Server. The zero value is a plain-text server without authentication.
type Options struct {
	// Username and Password, when Username is set, make AUTH PLAIN mandatory and are the only
	// credentials accepted.
	Username, Password string
	// TLS is "" (or "none") for plain text, "starttls" to offer STARTTLS, "tls" for implicit TLS.
	TLS string
}

// Server is a running SMTP server. Create it with Start.
type Server struct {
	t      testing.TB
	opts   Options
	tlsDir string // "none", "starttls" or "tls", as URL reports it
	srv    *smtp.Server
	ln     net.Listener
	roots  *x509.CertPool

	stop      chan struct{} // closed by Close; ends delays and waits
	served    chan struct{} // closed when the accept loop has returned
	closeOnce sync.Once

	mu       sync.Mutex
	closed   bool
	messages []Message
	changed  chan struct{} // closed and replaced whenever a message is recorded
	conns    map[*countedConn]struct{}
	nconns   int
	maxConns int            // most entries conns has had at once
	openTx   int            // mail transactions open now
	maxTx    int            // most mail transactions open at once
	attempts map[string]int // RCPT TO commands seen, by addrKey
	openTo   map[string]int // open transactions with a recipient at a domain, by domain
	maxTo    map[string]int // most of those at once, by domain

	// Misbehaviour, set by the methods in faults.go.
	refusal          *smtp.SMTPError
	rcptRefusals     map[string]rcptRefusal   // by addrKey
	rcptDelays       map[string]time.Duration // by addrKey, or by domain for a whole domain
	rcptHolds        map[string]chan struct{} // by addrKey or domain: closed to release
	delay            time.Duration
	closeAfterAccept bool
}

// Start runs a server for the duration of the test. With no Options it is a plain-text server
// that accepts any sender and recipient.
func Start(t testing.TB, opts ...Options) *Server {
	t.Helper()
	var o Options
	if len(opts) > 1 {
		t.Fatalf("smtptest.Start: at most one Options, got %d", len(opts))
	}
	if len(opts) == 1 {
		o = opts[0]
	}
	mode := o.TLS
	switch mode {
	case "", "none":
		mode = "none"
	case "starttls", "tls":
	default:
		t.Fatalf("smtptest.Start: TLS must be \"\", \"none\", \"starttls\" or \"tls\", got %q", o.TLS)
	}

	cert, roots, err := selfSignedCert()
	if err != nil {
		t.Fatalf("smtptest.Start: %v", err)
	}
	tcp, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("smtptest.Start: listen: %v", err)
	}

	s := &Server{
		t:       t,
		opts:    o,
		tlsDir:  mode,
		roots:   roots,
		stop:    make(chan struct{}),
		served:  make(chan struct{}),
		changed: make(chan struct{}),
		conns:   make(map[*countedConn]struct{}),

		attempts:     make(map[string]int),
		openTo:       make(map[string]int),
		maxTo:        make(map[string]int),
		rcptRefusals: make(map[string]rcptRefusal),
		rcptDelays:   make(map[string]time.Duration),
		rcptHolds:    make(map[string]chan struct{}),
	}
	// Connections are counted below any TLS layer so that every TCP connection gets a number,
	// including one whose handshake fails.
	var ln net.Listener = &countingListener{Listener: tcp, s: s}
	serverTLS := &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	if mode == "tls" {
		ln = tls.NewListener(ln, serverTLS)
	}
	s.ln = ln

	srv := smtp.NewServer(&backend{s: s})
	srv.Domain = "smtptest.localhost"
	// Generous limits: a test that hangs should fail on its own deadline, not on the server's.
	srv.ReadTimeout = time.Minute
	srv.WriteTimeout = time.Minute
	srv.MaxMessageBytes = 10 << 20
	srv.MaxRecipients = 100
	// The library's own error log would print every closed connection to stderr.
	srv.ErrorLog = log.New(io.Discard, "", 0)
	if mode == "starttls" {
		srv.TLSConfig = serverTLS
	}
	// Credentials may only travel in the clear when the test asked for no TLS at all.
	srv.AllowInsecureAuth = mode == "none"
	s.srv = srv

	go func() {
		defer close(s.served)
		_ = srv.Serve(ln) // returns once Close closes the listener
	}()
	t.Cleanup(s.Close)
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is smtp://[user:pass@]127.0.0.1:port?tls=none|starttls|tls, the form SMTP_URL takes.
func (s *Server) URL() string {
	u := url.URL{Scheme: "smtp", Host: s.Addr(), RawQuery: "tls=" + s.tlsDir}
	if s.opts.Username != "" {
		u.User = url.UserPassword(s.opts.Username, s.opts.Password)
	}
	return u.String()
}

// ClientTLSConfig returns a new client configuration that trusts the server's certificate.
func (s *Server) ClientTLSConfig() *tls.Config {
	host, _, _ := net.SplitHostPort(s.Addr())
	return &tls.Config{RootCAs: s.roots, ServerName: host, MinVersion: tls.VersionTLS12}
}

// Messages returns a copy of the accepted messages, in acceptance order.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return cloneMessages(s.messages)
}

// Connections is the number of SMTP connections the server has accepted so far.
func (s *Server) Connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nconns
}

// WaitForMessages waits until at least n messages have been accepted and returns them all. It
// fails the test (t.Fatalf, so call it from the test's goroutine) when timeout passes first or
// the server is closed.
func (s *Server) WaitForMessages(t testing.TB, n int, timeout time.Duration) []Message {
	t.Helper()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for {
		s.mu.Lock()
		got := len(s.messages)
		if got >= n {
			msgs := cloneMessages(s.messages)
			s.mu.Unlock()
			return msgs
		}
		changed := s.changed
		s.mu.Unlock()

		select {
		case <-changed:
		case <-deadline.C:
			t.Fatalf("smtptest: %d message(s) after %s, want at least %d", s.count(), timeout, n)
			return s.Messages()
		case <-s.stop:
			t.Fatalf("smtptest: server closed with %d message(s), want at least %d", s.count(), n)
			return s.Messages()
		}
	}
}

func (s *Server) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.messages)
}

// Close stops the server: it closes the listener and every open connection and returns once
// all of the server's goroutines have ended. Calling it again does nothing.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.stop)
		_ = s.ln.Close()
		// Serve only adds connection goroutines from its accept loop, so once it has returned
		// no new ones can start and waiting for the running ones below is race free.
		<-s.served

		s.mu.Lock()
		s.closed = true
		open := make([]*countedConn, 0, len(s.conns))
		for c := range s.conns {
			open = append(open, c)
		}
		s.mu.Unlock()
		// go-smtp's own Close would close the connections too, but it does not wait for their
		// goroutines; Shutdown waits, so the connections are closed here and Shutdown is used.
		for _, c := range open {
			_ = c.Close()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := s.srv.Shutdown(ctx); err != nil && !errors.Is(err, net.ErrClosed) {
			s.t.Errorf("smtptest: shutting down: %v", err)
		}
	})
}

// record stores an accepted message and wakes up WaitForMessages.
func (s *Server) record(m Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.messages = append(s.messages, m)
	close(s.changed)
	s.changed = make(chan struct{})
}
