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

// The statuses of a session's payment intent, as Stripe names them.
const (
	IntentProcessing            = wire.IntentProcessing
	IntentSucceeded             = wire.IntentSucceeded
	IntentRequiresPaymentMethod = wire.IntentRequiresPaymentMethod
)

// The statuses of a refund, as Stripe names them.
const (
	RefundPending   = wire.RefundPending
	RefundSucceeded = wire.RefundSucceeded
	RefundFailed    = wire.RefundFailed
	RefundCanceled  = wire.RefundCanceled
)

// Session is a checkout session as devpay keeps it.
type Session = wire.Session

// LineItem is one line of a session: what it is for, and its price.
type LineItem = wire.LineItem

// Refund is money given back from a session's payment.
type Refund = wire.Refund

// Errors of the test controls.
var (
	ErrNoSession     = errors.New("devpay: no such checkout session")
	ErrNotOpen       = errors.New("devpay: the checkout session is not open")
	ErrNotProcessing = errors.New("devpay: the checkout session's payment is not processing")
	ErrNoRefund      = errors.New("devpay: no such refund")
	ErrNotPending    = errors.New("devpay: the refund is not pending")
	ErrRefundStatus  = errors.New("devpay: a pending refund settles as succeeded, failed or canceled")
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
	s.complete(sess, Paid, IntentSucceeded)
	return true, nil
}

// payLater completes an open session with a payment that arrives later, as a slow payment
// method's does: unpaid, its intent processing until finishPayment. A complete session is left
// as it is. s.mu is held.
func (s *Server) payLater(sess *Session) error {
	switch sess.Status {
	case StatusComplete:
		return nil
	case StatusExpired:
		return ErrNotOpen
	}
	s.complete(sess, Unpaid, IntentProcessing)
	return nil
}

// complete completes an open session with a new payment intent, and sends
// checkout.session.completed. s.mu is held.
func (s *Server) complete(sess *Session, paymentStatus, intentStatus string) {
	sess.Status, sess.PaymentStatus, sess.IntentStatus = StatusComplete, paymentStatus, intentStatus
	sess.PaymentIntent = newID("pi_")
	s.byIntent[sess.PaymentIntent] = sess.ID
	s.log.Info("devpay: session completed", "session", sess.ID, "payment_status", paymentStatus,
		"amount", sess.AmountTotal, "currency", sess.Currency)
	s.emit("checkout.session.completed", sess.ID, wire.SessionObject(sess, false), wire.EventRequest{})
}

// finishPayment ends the processing payment of a session paid later: it succeeds (the session
// is paid) or fails (it stays unpaid, its intent wanting another payment method), and the
// session's async payment event is sent. A session without a payment processing is
// ErrNotProcessing. s.mu is held.
func (s *Server) finishPayment(sess *Session, succeeded bool) error {
	if sess.IntentStatus != IntentProcessing {
		return ErrNotProcessing
	}
	event := "checkout.session.async_payment_failed"
	sess.IntentStatus = IntentRequiresPaymentMethod
	if succeeded {
		event = "checkout.session.async_payment_succeeded"
		sess.PaymentStatus, sess.IntentStatus = Paid, IntentSucceeded
	}
	s.log.Info("devpay: payment finished", "session", sess.ID, "payment_intent_status", sess.IntentStatus)
	s.emit(event, sess.ID, wire.SessionObject(sess, false), wire.EventRequest{})
	return nil
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

// refund is the refund with this id. s.mu is held.
func (s *Server) refund(id string) (*Refund, error) {
	for _, r := range s.refunds {
		if r.ID == id {
			return r, nil
		}
	}
	return nil, ErrNoRefund
}

// settle moves a pending refund to succeeded, failed or canceled, and sends refund.updated
// (and refund.failed when it failed). A refund that failed or was canceled gives its amount
// back to what may be refunded of its payment. s.mu is held.
func (s *Server) settle(r *Refund, status string) error {
	if r.Status != RefundPending {
		return ErrNotPending
	}
	r.Status = status
	if status != RefundSucceeded {
		s.sessions[r.SessionID].Refunded -= r.Amount
	}
	s.log.Info("devpay: refund settled", "refund", r.ID, "session", r.SessionID, "status", status)
	s.emit("refund.updated", r.SessionID, wire.RefundObject(r), wire.EventRequest{})
	if status == RefundFailed {
		s.emit("refund.failed", r.SessionID, wire.RefundObject(r), wire.EventRequest{})
	}
	return nil
}
