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
