package devpay

import (
	"fmt"
	"net/http"
	"slices"

	"library/internal/devpay/wire"
)

// createSession is POST /v1/checkout/sessions.
func (s *Server) createSession(c call) result {
	now := s.now()
	p, err := wire.ParseCheckout(c.form, now, s.opts.MinExpiry)
	if err != nil {
		return refused(*err)
	}
	sess := &Session{
		ID: newID("cs_test_"), Status: StatusOpen, PaymentStatus: Unpaid, AmountTotal: p.Total, Currency: p.Currency,
		LineItems: p.Items, ClientReferenceID: p.Reference, Metadata: p.Metadata, IntentMetadata: p.IntentMetadata,
		SuccessURL: p.SuccessURL, CancelURL: p.CancelURL, CustomerEmail: p.Email, Created: now, ExpiresAt: p.ExpiresAt,
		IdempotencyKey: c.key,
	}
	sess.URL = s.opts.URL + pagePath + sess.ID
	s.sessions[sess.ID] = sess
	s.order = append(s.order, sess.ID)
	s.log.Info("devpay: session created", "session", sess.ID, "amount", sess.AmountTotal, "currency", sess.Currency)
	return ok(wire.SessionObject(sess, p.ExpandIntent))
}

// retrieveSession is GET /v1/checkout/sessions/{id}.
func (s *Server) retrieveSession(c call) result {
	expand, err := wire.ParseExpand(c.form)
	if err != nil {
		return refused(*err)
	}
	sess, found := s.sessionOr404(c.id)
	if !found {
		return noSession(c.id)
	}
	return ok(wire.SessionObject(sess, expand))
}

// expireSession is POST /v1/checkout/sessions/{id}/expire.
func (s *Server) expireSession(c call) result {
	expand, err := wire.ParseExpand(c.form)
	if err != nil {
		return refused(*err)
	}
	sess, found := s.sessionOr404(c.id)
	if !found {
		return noSession(c.id)
	}
	if s.expire(sess, wire.RequestOf(c.requestID, c.key)) != nil {
		return failed(http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Param: "session",
			Message: fmt.Sprintf("Only Checkout Sessions with a status in [\"open\"] can be expired; this one is %s.", sess.Status)})
	}
	return ok(wire.SessionObject(sess, expand))
}

func (s *Server) sessionOr404(id string) (*Session, bool) {
	sess, err := s.lookup(id)
	return sess, err == nil
}

func noSession(id string) result {
	return failed(http.StatusNotFound, wire.Error{Type: wire.InvalidRequest, Param: "session", Code: "resource_missing",
		Message: fmt.Sprintf("No such checkout.session: '%s'", id)})
}

func noIntent(id string) result {
	return failed(http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Param: "payment_intent", Code: "resource_missing",
		Message: fmt.Sprintf("No such payment_intent: '%s'", id)})
}

// createRefund is POST /v1/refunds: by payment_intent, of amount (default: all that is left),
// of a payment that succeeded. The refund succeeds at once, or is pending after PendRefunds.
func (s *Server) createRefund(c call) result {
	if s.failing > 0 {
		s.failing--
		s.log.Info("devpay: refund failed on purpose", "left", s.failing)
		return result{status: http.StatusInternalServerError, body: wire.Error{Type: wire.APIErrorType,
			Message: "An unknown error occurred: devpay failed this refund on purpose (FailRefunds)."}.Body()}
	}
	p, err := wire.ParseRefund(c.form)
	if err != nil {
		return refused(*err)
	}
	sess, found := s.sessions[s.byIntent[p.Intent]]
	if !found {
		return noIntent(p.Intent)
	}
	if sess.IntentStatus != IntentSucceeded {
		return failed(http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Param: "payment_intent",
			Message: fmt.Sprintf("This PaymentIntent (%s) does not have a successful charge to refund.", p.Intent)})
	}
	left := sess.AmountTotal - sess.Refunded
	if left == 0 {
		return failed(http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Code: "charge_already_refunded",
			Message: fmt.Sprintf("The payment %s has already been refunded.", p.Intent)})
	}
	amount := p.Amount
	if amount == 0 {
		amount = left
	}
	if amount > left {
		return failed(http.StatusBadRequest, wire.Error{Type: wire.InvalidRequest, Param: "amount", Code: "amount_too_large",
			Message: fmt.Sprintf("Refund amount (%d %s) is greater than unrefunded amount on charge (%d %s).", amount, sess.Currency, left, sess.Currency)})
	}
	status := RefundSucceeded
	if s.toPend > 0 {
		s.toPend--
		status = RefundPending
	}
	r := &Refund{ID: newID("re_"), Amount: amount, Currency: sess.Currency, PaymentIntent: p.Intent, SessionID: sess.ID,
		Status: status, Reason: p.Reason, Metadata: p.Metadata, Created: s.now(), IdempotencyKey: c.key}
	sess.Refunded += amount
	s.refunds = append(s.refunds, r)
	s.log.Info("devpay: refunded", "refund", r.ID, "session", sess.ID, "amount", amount, "currency", r.Currency, "status", status)
	s.emit("refund.created", sess.ID, wire.RefundObject(r), wire.RequestOf(c.requestID, c.key))
	return ok(wire.RefundObject(r))
}

// listRefunds is GET /v1/refunds: a page of the refunds of a payment_intent, newest first.
func (s *Server) listRefunds(c call) result {
	p, err := wire.ParseRefundList(c.form)
	if err != nil {
		return refused(*err)
	}
	if _, found := s.byIntent[p.Intent]; !found {
		return noIntent(p.Intent)
	}
	var refunds []*Refund
	for _, r := range slices.Backward(s.refunds) {
		if r.PaymentIntent == p.Intent {
			refunds = append(refunds, r)
		}
	}
	page, hasMore, err := wire.Page(refunds, func(r *Refund) string { return r.ID }, p.Page, "refund")
	if err != nil {
		return refused(*err)
	}
	objects := make([][]byte, len(page))
	for i, r := range page {
		objects[i] = wire.RefundObject(r)
	}
	return ok(wire.ListObject("/v1/refunds", objects, hasMore))
}

// retrieveRefund is GET /v1/refunds/{id}.
func (s *Server) retrieveRefund(c call) result {
	if err := wire.ParseRefundRetrieve(c.form); err != nil {
		return refused(*err)
	}
	r, err := s.refund(c.id)
	if err != nil {
		return failed(http.StatusNotFound, wire.Error{Type: wire.InvalidRequest, Param: "id", Code: "resource_missing",
			Message: fmt.Sprintf("No such refund: '%s'", c.id)})
	}
	return ok(wire.RefundObject(r))
}
