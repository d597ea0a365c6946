package environment

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/mail"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/emersion/go-smtp"
)

// SMTPSink is an SMTP server on loopback that accepts every message, without TLS or
// authentication, and records when it accepted each loan's email, by the loan's position (read
// from the Message-ID with positionOf). The service's SMTP_URL points at it.
//
// Two knobs play a real relay, both safe to turn while it serves: setDelay waits before each
// 250 to DATA, as a provider some way off answers; setDown answers every MAIL FROM with 421,
// as a relay that is out of service does. It also counts the most mail transactions open at
// once, which shows how many emails the service really keeps in flight.
type SMTPSink struct {
	srv  *smtp.Server
	addr string
	done chan struct{} // closed by close: ends delays early

	delay atomic.Int64 // nanoseconds before each 250 to DATA
	down  atomic.Bool  // answer MAIL FROM with 421

	mu       sync.Mutex
	accepted map[int64]time.Time // loan position: when its email was first accepted
	count    int                 // messages accepted, repeats and unknown ids included
	openTx   int                 // mail transactions open now, from MAIL to the end of DATA
	maxTx    int                 // most open at once since the last resetPeak
	changed  chan struct{}       // closed and replaced whenever a message is accepted
}

// StartSMTPSink starts an SMTP server on a free loopback port that accepts every message and
// records when.
func StartSMTPSink() (*SMTPSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("SMTP sink: %w", err)
	}
	s := &SMTPSink{
		addr:     ln.Addr().String(),
		done:     make(chan struct{}),
		accepted: map[int64]time.Time{},
		changed:  make(chan struct{}),
	}
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
// URL is the sink's address as the service's SMTP_URL.
func (s *SMTPSink) URL() string { return "smtp://" + s.addr + "?tls=none" }

// Close stops the sink.
func (s *SMTPSink) Close() {
	close(s.done)
	_ = s.srv.Close()
}

// SetDelay makes the sink wait d before each 250 to DATA, from the next message on.
func (s *SMTPSink) SetDelay(d time.Duration) { s.delay.Store(int64(d)) }

// SetDown makes the sink answer every MAIL FROM with 421 (down) or accept it again.
func (s *SMTPSink) SetDown(down bool) { s.down.Store(down) }

func (s *SMTPSink) record(messageID string, at time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	position, ok := positionOf(messageID)
	if _, seen := s.accepted[position]; ok && !seen { // a repeat keeps the first acceptance
		s.accepted[position] = at
	}
	close(s.changed)
	s.changed = make(chan struct{})
}

// Count is how many messages the sink has accepted, repeats included.
func (s *SMTPSink) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

func (s *SMTPSink) txOpened() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openTx++
	s.maxTx = max(s.maxTx, s.openTx)
}

func (s *SMTPSink) txClosed() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.openTx--
}

// Peak is the most mail transactions open at once since the last resetPeak.
func (s *SMTPSink) Peak() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxTx
}

// ResetPeak restarts peak from the transactions open now.
func (s *SMTPSink) ResetPeak() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.maxTx = s.openTx
}

// Wait returns when the sink accepted the email of the loan at position, waiting up to
// timeout (none at all when it is not positive: then it only looks).
func (s *SMTPSink) Wait(ctx context.Context, position int64, timeout time.Duration) (time.Time, error) {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		at, ok := s.accepted[position]
		changed := s.changed
		s.mu.Unlock()
		if ok {
			return at, nil
		}
		select {
		case <-changed:
		case <-timer.C:
			return time.Time{}, fmt.Errorf("the SMTP sink did not accept the email of the loan at position %d within %s", position, timeout)
		case <-ctx.Done():
			return time.Time{}, ctx.Err()
		}
	}
}

type sinkBackend struct{ s *SMTPSink }

func (b sinkBackend) NewSession(*smtp.Conn) (smtp.Session, error) {
	return &sinkSession{s: b.s}, nil
}

// sinkSession accepts any sender and recipients (unless the sink is down), and records each
// message's Message-ID when its DATA has been read in full and the delay is over, just before
// the server answers 250.
type sinkSession struct {
	s    *SMTPSink
	inTx bool // between an accepted MAIL FROM and the end of its transaction
}

func (ss *sinkSession) Mail(string, *smtp.MailOptions) error {
	if ss.s.down.Load() {
		return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Service not available, closing transmission channel"}
	}
	if !ss.inTx {
		ss.inTx = true
		ss.s.txOpened()
	}
	return nil
}

func (*sinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }

// Reset is called by go-smtp for RSET and after it has written the reply to DATA.
func (ss *sinkSession) Reset() { ss.endTx() }

func (ss *sinkSession) Logout() error {
	ss.endTx()
	return nil
}

func (ss *sinkSession) endTx() {
	if ss.inTx {
		ss.inTx = false
		ss.s.txClosed()
	}
}

func (ss *sinkSession) Data(r io.Reader) error {
	defer ss.endTx() // the transaction ends with DATA, whatever go-smtp calls next
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
	if d := time.Duration(ss.s.delay.Load()); d > 0 {
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-ss.s.done:
			timer.Stop()
			return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Server shutting down"}
		}
	}
	ss.s.record(id, time.Now())
	return nil
}

// positionOf reads the loan's position from a loan email's Message-ID, which the service makes
// as <notifications.{position}.{recorded}.{installation}@{domain}> (internal/notifications,
// message_id.go). The benchmark is a module of its own, so it reads the format itself.
func positionOf(messageID string) (int64, bool) {
	rest, ok := strings.CutPrefix(messageID, "<notifications.")
	if !ok {
		return 0, false
	}
	digits, _, ok := strings.Cut(rest, ".")
	if !ok {
		return 0, false
	}
	p, err := strconv.ParseInt(digits, 10, 64)
	return p, err == nil && p > 0
}
