package smtptest

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-smtp"
)

// Refuse makes the server answer every DATA from now on with the given SMTP reply code and
// text, after reading the message. Refuse(0, "") accepts messages again. After a 421 the server
// closes the connection. msg is sent as one reply line (see RefuseRecipient).
func (s *Server) Refuse(code int, msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == 0 {
		s.refusal = nil
		return
	}
	s.refusal = &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCodeNotSet, Message: replyText(msg, "Message refused")}
}

// RefuseRecipient makes the server answer RCPT TO:<addr> from now on with the given reply
// code and text, for example 550 (no such mailbox), 452 (mailbox full), 450 or 451 (try again
// later) or 421, after which it closes the connection. addr is matched without regard to
// case. The reply carries the enhanced status code a relay would send: 5.1.1 for 550, 5.2.2
// for 552, 5.1.3 for 553, 5.0.0 for other 5xx codes, 4.3.2 for 421, 4.2.2 for 452 and 4.3.0
// for other 4xx codes. msg is sent as one reply line: line breaks become spaces and it is cut
// to fit RFC 5321's limit on a reply line. RefuseRecipient(addr, 0, "") accepts addr again; any
// other code outside 400-599 panics.
func (s *Server) RefuseRecipient(addr string, code int, msg string) {
	s.refuseRecipient("RefuseRecipient", addr, code, msg, false)
}

// RefuseRecipientKeepOpen is RefuseRecipient, except that the server keeps the connection
// after a 421 too, and takes the client's next command (RSET, another MAIL FROM): a relay that
// answers "421 try again later" for one recipient and goes on serving the connection, as
// some do for a recipient or domain they rate-limit. With any other code it is RefuseRecipient.
// RefuseRecipient(addr, 0, "") or RefuseRecipientKeepOpen(addr, 0, "") accepts addr again.
func (s *Server) RefuseRecipientKeepOpen(addr string, code int, msg string) {
	s.refuseRecipient("RefuseRecipientKeepOpen", addr, code, msg, true)
}

// rcptRefusal is the reply RCPT TO gets for one address.
type rcptRefusal struct {
	reply    *smtp.SMTPError
	keepOpen bool // even after a 421
}

func (s *Server) refuseRecipient(name, addr string, code int, msg string, keepOpen bool) {
	if code != 0 && (code < 400 || code > 599) {
		panic(fmt.Sprintf("smtptest: %s: code %d is not a refusal (4xx or 5xx)", name, code))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if code == 0 {
		delete(s.rcptRefusals, addrKey(addr))
		return
	}
	s.rcptRefusals[addrKey(addr)] = rcptRefusal{keepOpen: keepOpen, reply: &smtp.SMTPError{
		Code:         code,
		EnhancedCode: rcptEnhancedCode(code),
		Message:      replyText(msg, "Recipient refused"),
	}}
}

// DelayRecipient makes the server wait d before answering RCPT TO (with its 250, or the
// refusal set for the address) from now on. match is an address ("reader@example.org"), or a
// domain without an "@" ("example.org"), which means every address at that domain; either is
// matched without regard to case, and an address's own delay wins over its domain's. A delay
// longer than the client's timeout is a recipient that stalls: the client gives up, and the
// server answers a connection the client has closed. DelayRecipient(match, 0) answers at once
// again. A wait in progress ends early when the server is closed, with a 421 reply.
func (s *Server) DelayRecipient(match string, d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d <= 0 {
		delete(s.rcptDelays, addrKey(match))
		return
	}
	s.rcptDelays[addrKey(match)] = d
}

// HoldRecipient makes the server hold its answer to each RCPT TO that match names (an address
// or a whole domain, as DelayRecipient takes them) until release is called: a recipient slower
// than anything else the test does, with no clock in it. release is safe to call more than once,
// and Close releases too, with a 421 reply.
func (s *Server) HoldRecipient(match string) (release func()) {
	gate := make(chan struct{})
	s.mu.Lock()
	s.rcptHolds[addrKey(match)] = gate
	s.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			delete(s.rcptHolds, addrKey(match))
			s.mu.Unlock()
			close(gate)
		})
	}
}

// SetDelay makes the server wait d between reading each message after DATA and writing its
// reply to DATA (the 250, or the refusal set with Refuse), as a slow relay does. It applies to
// every message whose data ends from now on; SetDelay(0) answers at once again. A wait in
// progress ends early when the server is closed, with a 421 reply.
func (s *Server) SetDelay(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.delay = d
}

// CloseAfterAccept makes the server, while on, close the connection right after it has
// written its 250 reply to DATA, the message having been recorded first: a relay that takes
// one message per connection, or drops the connection after accepting. The client sees the
// 250, and its next command (RSET, NOOP, QUIT) fails.
func (s *Server) CloseAfterAccept(on bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeAfterAccept = on
}

// dataDelay is how long to wait before answering DATA.
func (s *Server) dataDelay() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.delay
}

// dataFaults returns the refusal for DATA, if any, and whether to close after accepting.
func (s *Server) dataFaults() (*smtp.SMTPError, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.refusal, s.closeAfterAccept
}

// recipient counts a RCPT TO for addr and returns what to do about it: the refusal set for
// it, if any, how long to wait before answering, and the gate to wait for first (nil: none).
func (s *Server) recipient(addr string) (rcptRefusal, time.Duration, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := addrKey(addr)
	s.attempts[key]++
	delay, ok := s.rcptDelays[key]
	if !ok {
		delay = s.rcptDelays[domainOf(key)]
	}
	hold, ok := s.rcptHolds[key]
	if !ok {
		hold = s.rcptHolds[domainOf(key)]
	}
	return s.rcptRefusals[key], delay, hold
}

// rcptEnhancedCode is the RFC 3463 status code that goes with a refusal of RCPT TO.
func rcptEnhancedCode(code int) smtp.EnhancedCode {
	switch {
	case code == 550:
		return smtp.EnhancedCode{5, 1, 1} // bad destination mailbox address
	case code == 552:
		return smtp.EnhancedCode{5, 2, 2} // mailbox full
	case code == 553:
		return smtp.EnhancedCode{5, 1, 3} // bad destination mailbox address syntax
	case code >= 500:
		return smtp.EnhancedCode{5, 0, 0}
	case code == 421:
		return smtp.EnhancedCode{4, 3, 2} // system not accepting network messages
	case code == 452:
		return smtp.EnhancedCode{4, 2, 2} // mailbox full
	default:
		return smtp.EnhancedCode{4, 3, 0} // other or undefined mail system status
	}
}

// maxReplyText keeps "ddd d.d.d " plus the text plus CRLF within RFC 5321's 512 octets.
const maxReplyText = 400

// replyText makes msg a single reply line. go-smtp writes each line of a reply with its own
// Write, and closing after a 421 relies on the reply being exactly one Write.
func replyText(msg, fallback string) string {
	msg = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ").Replace(msg)
	if len(msg) > maxReplyText {
		msg = strings.ToValidUTF8(msg[:maxReplyText], "") // drops a rune cut in two
	}
	if strings.TrimSpace(msg) == "" {
		return fallback
	}
	return msg
}
