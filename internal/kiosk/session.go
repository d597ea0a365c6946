package kiosk

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"io"
	"net"
	"os"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/eventstore"
	"library/internal/sip2"
)

// maxLoginFailures is how many failed logins a connection may make before it is closed.
const maxLoginFailures = 3

// session is one connection: one terminal, and the member shown at it.
type session struct {
	srv  *Server
	conn net.Conn
	r    *sip2.Reader
	w    *sip2.Writer
	// terminal is the logged-in terminal's name, "" before a login.
	terminal      string
	loginFailures int
	// shown is the member who showed card and PIN in this session.
	shown shownMember
	// last is the last answer, for 97 (resend).
	last    sip2.Message
	hasLast bool
}

// shownMember is a card whose PIN was checked in the session, kept as a keyed hash of the PIN.
type shownMember struct {
	card, memberID string
	pinMAC         []byte
}

func newSession(s *Server, conn net.Conn) *session {
	return &session{srv: s, conn: conn, r: sip2.NewReader(conn, s.opts.Framing), w: sip2.NewWriter(conn, s.opts.Framing)}
}

// run reads and answers messages until the connection ends, is idle too long, or misbehaves.
func (s *session) run(ctx context.Context) {
	for ctx.Err() == nil {
		_ = s.conn.SetReadDeadline(time.Now().Add(s.srv.opts.IdleTimeout))
		m, err := s.r.ReadMessage()
		if err != nil {
			if !s.refuse(err) {
				return
			}
			continue
		}
		answer, then := s.answer(ctx, m)
		if then == closeNow {
			return
		}
		if err := s.write(answer, m); err != nil || then == answerAndClose {
			return
		}
	}
}

// refuse answers a message the codec refused with 96 (please resend), and reports whether the
// session goes on: a connection that ended or went idle does not.
func (s *session) refuse(err error) bool {
	var pe *sip2.ParseError
	if !errors.As(err, &pe) {
		if !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, net.ErrClosed) {
			s.srv.opts.Logger.Debug("sip: connection ended", "terminal", s.terminal, "error", err)
		}
		return false
	}
	s.srv.opts.Observe("unparsed", "resend", 0)
	s.srv.opts.Logger.Info("sip: message refused, resend asked", "terminal", s.terminal, "why", pe.Kind.String())
	return s.w.Write(sip2.Message{Code: "96"}) == nil
}

// write sends answer, with the request's sequence number and a checksum when the request had
// them (a checksum alone when it had that), and keeps it for 97.
func (s *session) write(answer, request sip2.Message) error {
	if request.HasSeq {
		answer.Seq, answer.HasSeq = request.Seq, true
	}
	answer.ChecksumOnly = request.ChecksumOnly && !request.HasSeq // a checksum without a sequence number: one back
	s.last, s.hasLast = answer, true
	_ = s.conn.SetWriteDeadline(time.Now().Add(s.srv.opts.MessageTimeout))
	return s.w.Write(answer)
}

// after is what a session does once it has a message's answer.
type after int

const (
	answerAndGoOn after = iota
	answerAndClose
	closeNow
)

// answer handles one message in a span of its own and returns its answer, and what the
// session does next.
func (s *session) answer(ctx context.Context, m sip2.Message) (sip2.Message, after) {
	if m.Code == "97" {
		s.srv.opts.Observe(m.Code, "resent", 0)
		if !s.hasLast { // nothing was answered yet: the kiosk is asked to send its message again
			return sip2.Message{Code: "96"}, answerAndGoOn
		}
		return s.last, answerAndGoOn
	}
	h, known := handlers[m.Code]
	if m.Code != "99" && m.Code != "93" && s.terminal == "" || !known {
		s.srv.opts.Observe(m.Code, "closed", 0)
		s.srv.opts.Logger.Info("sip: connection closed: a message before a login, or one the service does not serve",
			"code", m.Code, "remote", s.conn.RemoteAddr().String())
		return sip2.Message{}, closeNow
	}
	ctx, cancel := context.WithTimeout(ctx, s.srv.opts.MessageTimeout)
	defer cancel()
	ctx, span := s.srv.opts.Tracer.Start(ctx, "SIP "+h.name, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithAttributes(attribute.String("sip.command", m.Code), attribute.String("sip.terminal", s.terminal)))
	defer span.End()
	start := time.Now()
	answer, outcome := h.run(ctx, s, m)
	span.SetAttributes(attribute.String("sip.outcome", outcome))
	if outcome == outcomeFailed {
		span.SetStatus(codes.Error, "failed")
	}
	s.srv.opts.Observe(m.Code, outcome, time.Since(start))
	if s.loginFailures >= maxLoginFailures {
		s.srv.opts.Logger.Warn("sip: connection closed after failed logins", "remote", s.conn.RemoteAddr().String())
		return answer, answerAndClose
	}
	return answer, answerAndGoOn
}

// origin is who acts for a command of this session: the terminal, in the kiosk's role, for the
// card shown, under the id derived from the transaction.
func (s *session) origin(commandID string) aggregate.Origin {
	return aggregate.Origin{CommandID: commandID, CorrelationID: commandID,
		Actor: eventstore.Actor{Subject: "terminal:" + s.terminal, Role: string(auth.Kiosk)}, Card: s.shown.card}
}

// pinMAC is the session's keyed hash of a PIN.
func (s *session) pinMAC(pin string) []byte {
	mac := hmac.New(sha256.New, s.srv.pinKey)
	mac.Write([]byte(pin))
	return mac.Sum(nil)
}
