package devpay

import (
	"crypto/rand"
	"errors"

	"library/internal/devpay/wire"
)

// The statuses of a session and of its payment, as Stripe names them.
const (
	StatusOpen     = wire.StatusOpen
	StatusComplete = wire.StatusComplete
	StatusExpired  = wire.StatusExpired
	Unpaid         = wire.Unpaid
	Paid           = wire.Paid
)

// Session is a checkout session as devpay keeps it.
type Session = wire.Session

// LineItem is one line of a session: what it is for, and its price.
type LineItem = wire.LineItem

// Refund is money given back from a session's payment.
type Refund = wire.Refund

// Errors of the test controls.
var (
	ErrNoSession = errors.New("devpay: no such checkout session")
	ErrNotOpen   = errors.New("devpay: the checkout session is not open")
)

// newID is a prefix and 24 random letters and digits, as Stripe's ids look.
func newID(prefix string) string {
	const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand never fails
	for i := range b {
		b[i] = alphabet[int(b[i])%len(alphabet)]
	}
	return prefix + string(b)
}

// lookup is the session with this id, expired first if its time has passed. s.mu is held.
func (s *Server) lookup(id string) (*Session, error) {
	sess, ok := s.sessions[id]
	if !ok {
		return nil, ErrNoSession
	}
	s.expireIfDue(sess)
	return sess, nil
}

// expireIfDue expires an open session whose expires_at has passed. s.mu is held.
func (s *Server) expireIfDue(sess *Session) {
	if sess.Status == StatusOpen && !s.now().Before(sess.ExpiresAt) {
		_ = s.expire(sess, wire.EventRequest{}) // it is open
	}
}

// pay completes an open session with a new payment, and reports whether it did: a paid
// session is left as it is. s.mu is held.
func (s *Server) pay(sess *Session) (bool, error) {
	switch sess.Status {
	case StatusComplete:
		return false, nil
	case StatusExpired:
		return false, ErrNotOpen
	}
	sess.Status, sess.PaymentStatus = StatusComplete, Paid
	sess.PaymentIntent = newID("pi_")
	s.byIntent[sess.PaymentIntent] = sess.ID
	s.log.Info("devpay: session paid", "session", sess.ID, "amount", sess.AmountTotal, "currency", sess.Currency)
	s.emit("checkout.session.completed", sess.ID, wire.SessionObject(sess, false), wire.EventRequest{})
	return true, nil
}

// decline records a declined payment of an open session, which stays open. s.mu is held.
func (s *Server) decline(sess *Session) error {
	if sess.Status != StatusOpen {
		return ErrNotOpen
	}
	sess.Declines++
	s.log.Info("devpay: payment declined", "session", sess.ID)
	return nil
}

// expire ends an open session unpaid. s.mu is held.
func (s *Server) expire(sess *Session, req wire.EventRequest) error {
	if sess.Status != StatusOpen {
		return ErrNotOpen
	}
	sess.Status = StatusExpired
	s.log.Info("devpay: session expired", "session", sess.ID)
	s.emit("checkout.session.expired", sess.ID, wire.SessionObject(sess, false), req)
	return nil
}

// ExpireDue expires every open session whose expires_at has passed, sends their events, and
// says how many it expired. The sweeper calls it every Options.SweepEvery.
func (s *Server) ExpireDue() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, id := range s.order {
		if sess := s.sessions[id]; sess.Status == StatusOpen && !s.now().Before(sess.ExpiresAt) {
			s.expireIfDue(sess)
			n++
		}
	}
	return n
}
