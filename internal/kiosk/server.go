package kiosk

import (
	"context"
	"crypto/rand"
	"log/slog"
	"net"
	"runtime/debug"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"library/internal/auth"
	"library/internal/sip2"
)

// Options are how the listener serves.
type Options struct {
	// Framing is how messages end and what encoding their text is in.
	Framing sip2.Framing
	// IdleTimeout closes a connection that sent nothing for that long.
	IdleTimeout time.Duration
	// MaxConnections bounds the connections served at once.
	MaxConnections int
	// MessageTimeout bounds the work of one message.
	MessageTimeout time.Duration
	// Institution is the institution id (AO) of every answer; Currency the fees' (ISO 4217, as
	// written in BH: upper case).
	Institution, Currency string
	// MaxLoans and BlockAt are the accounts' limits, told to kiosks in patron answers.
	MaxLoans int
	BlockAt  int64
	// Now is the clock.
	Now func() time.Time
	// Rules is the rules table: what a kiosk may do (auth.Rule.Kiosk).
	Rules  auth.Table
	Logger *slog.Logger
	Tracer trace.Tracer
	// Observe records one message: its code, its outcome, and how long it took.
	Observe func(code, outcome string, took time.Duration)
}

// Server serves kiosks on listeners.
type Server struct {
	svc  Services
	opts Options
	// slots bounds the connections served at once.
	slots chan struct{}
	// pinKey keys the hash of the PIN a session remembers, so that the hash is worth nothing
	// outside this process.
	pinKey []byte
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
}

// New returns a server of svc.
func New(svc Services, o Options) *Server {
	if o.Tracer == nil {
		o.Tracer = noop.NewTracerProvider().Tracer("library/internal/kiosk")
	}
	if o.Observe == nil {
		o.Observe = func(string, string, time.Duration) {}
	}
	if o.MessageTimeout <= 0 {
		o.MessageTimeout = 10 * time.Second
	}
	key := make([]byte, 32)
	_, _ = rand.Read(key) // crypto/rand never fails on the platforms Go supports
	return &Server{svc: svc, opts: o, slots: make(chan struct{}, max(o.MaxConnections, 1)), pinKey: key,
		conns: make(map[net.Conn]struct{})}
}

// Serve takes connections from l until ctx ends, then closes l and every connection, and
// returns once each session has stopped. A message in flight finishes first: its command is
// either recorded or not, and a kiosk that lost the answer sends it again.
func (s *Server) Serve(ctx context.Context, l net.Listener) error {
	var wg sync.WaitGroup
	stop := context.AfterFunc(ctx, func() {
		_ = l.Close()
		s.closeAll()
	})
	defer stop()
	for {
		conn, err := l.Accept()
		if err != nil {
			wg.Wait()
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		select {
		case s.slots <- struct{}{}:
		default:
			s.opts.Logger.Warn("sip: connection refused: SIP_MAX_CONNECTIONS are open", "remote", conn.RemoteAddr().String())
			_ = conn.Close()
			continue
		}
		if !s.track(conn) {
			_ = conn.Close()
			<-s.slots
			continue
		}
		wg.Go(func() {
			defer func() { <-s.slots }()
			defer s.untrack(conn)
			defer s.survive(conn)
			newSession(s, conn).run(ctx)
		})
	}
}

// survive ends a session that panicked, as net/http ends a request's: the connection closes
// (the kiosk reconnects and resends), the replica and its other sessions go on, and the stack
// goes to the log.
func (s *Server) survive(conn net.Conn) {
	if r := recover(); r != nil {
		s.opts.Logger.Error("sip: session failed", "remote", conn.RemoteAddr().String(), "panic", r, "stack", string(debug.Stack()))
	}
}

// track adds a connection to those closed at shutdown; false once shutdown began.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conns == nil {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c net.Conn) {
	_ = c.Close()
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.conns, c)
}

// closeAll ends every session's read; a message being handled finishes and is answered first
// if it can be.
func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		_ = c.SetReadDeadline(time.Now())
	}
	s.conns = nil
}
