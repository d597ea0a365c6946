package devpay

import "library/internal/devpay/wire"

// The test controls on sessions: what a person does on the page, without a browser, and what
// devpay has made. The admin API (admin.go) serves the same.

// Pay pays an open session as its page's Pay button does, and sends checkout.session.completed;
// a paid session is returned as it is, with nothing more paid. An expired one is ErrNotOpen.
func (s *Server) Pay(sessionID string) (Session, error) {
	return s.control(sessionID, func(sess *Session) error {
		_, err := s.pay(sess)
		return err
	})
}

// Decline declines a payment of an open session, as the page's Decline button does: the
// session stays open and nothing moves. A session that is not open is ErrNotOpen.
func (s *Server) Decline(sessionID string) (Session, error) {
	return s.control(sessionID, s.decline)
}

// Expire expires an open session, as the API's expire does, and sends
// checkout.session.expired. A session that is not open is ErrNotOpen.
func (s *Server) Expire(sessionID string) (Session, error) {
	return s.control(sessionID, func(sess *Session) error { return s.expire(sess, wire.EventRequest{}) })
}

// PayLater completes an open session with a payment that arrives later, as a slow payment
// method's (SEPA debit) does at Stripe: the session is complete with payment_status unpaid, its
// payment intent processing, and checkout.session.completed is sent; FinishPayment ends the
// payment. A complete session is returned as it is, with nothing more paid; an expired one is
// ErrNotOpen.
func (s *Server) PayLater(sessionID string) (Session, error) {
	return s.control(sessionID, s.payLater)
}

// FinishPayment ends the processing payment of a session paid with PayLater. If it succeeded,
// the session is paid, its intent succeeded, and checkout.session.async_payment_succeeded is
// sent; if not, the session stays unpaid, its intent requires_payment_method, and
// checkout.session.async_payment_failed is sent. A session whose payment is not processing is
// ErrNotProcessing.
func (s *Server) FinishPayment(sessionID string, succeeded bool) (Session, error) {
	return s.control(sessionID, func(sess *Session) error { return s.finishPayment(sess, succeeded) })
}

func (s *Server) control(sessionID string, do func(*Session) error) (Session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.lookup(sessionID)
	if err != nil {
		return Session{}, err
	}
	err = do(sess)
	return sess.Clone(), err
}

// Session is a session as it is now, and whether there is one with this id.
func (s *Server) Session(sessionID string) (Session, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, err := s.lookup(sessionID)
	if err != nil {
		return Session{}, false
	}
	return sess.Clone(), true
}

// Sessions are the sessions made so far, oldest first.
func (s *Server) Sessions() []Session {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Session, len(s.order))
	for i, id := range s.order {
		sess := s.sessions[id]
		s.expireIfDue(sess)
		out[i] = sess.Clone()
	}
	return out
}

// Refunds are the refunds made so far, oldest first.
func (s *Server) Refunds() []Refund {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Refund, len(s.refunds))
	for i, r := range s.refunds {
		out[i] = r.Clone()
	}
	return out
}

// Refund is a refund as it is now, and whether there is one with this id.
func (s *Server) Refund(refundID string) (Refund, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.refund(refundID)
	if err != nil {
		return Refund{}, false
	}
	return r.Clone(), true
}

// PendRefunds makes the next n refunds made pending rather than succeeded, until SettleRefund
// settles each. Refund calls that are refused, failed by FailRefunds or replayed do not count.
func (s *Server) PendRefunds(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.toPend = max(0, n)
}

// SettleRefund moves a pending refund to status succeeded, failed or canceled, as Stripe settles
// a refund later, and sends refund.updated, then also refund.failed when it failed, each with
// the refund as its object and as an event of the refund's session. A refund that failed or was
// canceled gives its amount back to what may be refunded of its payment. Any other status is
// ErrRefundStatus, an unknown refund ErrNoRefund, one not pending ErrNotPending.
func (s *Server) SettleRefund(refundID, status string) (Refund, error) {
	if status != RefundSucceeded && status != RefundFailed && status != RefundCanceled {
		return Refund{}, ErrRefundStatus
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r, err := s.refund(refundID)
	if err != nil {
		return Refund{}, err
	}
	err = s.settle(r, status)
	return r.Clone(), err
}
