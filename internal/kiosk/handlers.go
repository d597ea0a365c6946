package kiosk

import (
	"context"
	"errors"

	"library/internal/errs"
	"library/internal/sip2"
)

// The outcomes of a message, for metrics and spans.
const (
	outcomeOK      = "ok"
	outcomeRefused = "refused" // a rule said no, answered in the protocol's flags
	outcomeInvalid = "invalid" // a wrong login, card or PIN
	outcomeFailed  = "failed"  // the store could not be reached, or something broke
)

// handler answers one kind of message.
type handler struct {
	name string
	run  func(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string)
}

// handlers are the messages served, by code. ACS status (98) lists them in its
// supported-messages field: keep supported in step.
var handlers = map[string]handler{
	"99": {"status", status},
	"93": {"login", login},
	"23": {"patron status", patronStatus},
	"63": {"patron information", patronInformation},
	"11": {"checkout", checkout},
	"09": {"checkin", checkin},
	"29": {"renew", renew},
	"65": {"renew all", renewAll},
	"17": {"item information", itemInformation},
	"15": {"hold", hold},
	"37": {"fee paid", feePaid},
	"35": {"end patron session", endSession},
}

// supported is the 98 message's BX field: sixteen Y or N, in the specification's order of
// patron status, checkout, checkin, block patron, SC/ACS status, resend, login, patron
// information, end patron session, fee paid, item information, item status update, patron
// enable, hold, renew, renew all.
const supported = "YYYNYYYYYYYNNYYY"

func status(_ context.Context, s *session, _ sip2.Message) (sip2.Message, string) {
	o := s.srv.opts
	return sip2.Message{Code: "98", Fixed: []string{"Y", "Y", "Y", "Y", "N", "Y", "030", "003",
		sip2.FormatDateUTC(o.Now()), "2.00"},
		Fields: []sip2.Field{{ID: "AO", Value: o.Institution}, {ID: "AM", Value: o.Institution}, {ID: "BX", Value: supported}}}, outcomeOK
}

func login(ctx context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	name, password := m.Value("CN"), m.Value("CO")
	err := s.srv.svc.Terminals.Login(ctx, name, password)
	switch {
	case err == nil:
		s.terminal, s.shown = name, shownMember{}
		s.srv.opts.Logger.Info("sip: terminal logged in", "terminal", name, "remote", s.conn.RemoteAddr().String())
		return sip2.Message{Code: "94", Fixed: []string{"1"}}, outcomeOK
	case errs.CodeOf(err) == errs.Unauthorized:
		s.loginFailures++
		s.srv.opts.Logger.Warn("sip: login refused", "remote", s.conn.RemoteAddr().String())
		return sip2.Message{Code: "94", Fixed: []string{"0"}}, outcomeInvalid
	default:
		s.srv.opts.Logger.Error("sip: login failed", "error", err)
		return sip2.Message{Code: "94", Fixed: []string{"0"}}, outcomeFailed
	}
}

func endSession(_ context.Context, s *session, m sip2.Message) (sip2.Message, string) {
	s.shown = shownMember{}
	return sip2.Message{Code: "36", Fixed: []string{"Y", s.now()},
		Fields: []sip2.Field{{ID: "AO", Value: s.srv.opts.Institution}, {ID: "AA", Value: m.Value("AA")}}}, outcomeOK
}

// now is the time of an answer that is made from state read now.
func (s *session) now() string { return sip2.FormatDateUTC(s.srv.opts.Now()) }

// outcomeOf is the outcome of an answer to err: refused for a rule's no, failed otherwise.
func outcomeOf(err error) string {
	if err == nil {
		return outcomeOK
	}
	var e *errs.Error
	if errors.As(err, &e) && e.Code != errs.Internal && e.Code != errs.Unavailable && e.Code != errs.ConcurrencyConflict {
		return outcomeRefused
	}
	return outcomeFailed
}
