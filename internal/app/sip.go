package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strings"

	"library/internal/accounts"
	"library/internal/auth"
	"library/internal/books"
	"library/internal/kiosk"
	"library/internal/sip2"
	"library/internal/terminals"
	"library/internal/titles"
	"library/internal/tracing"
)

// kiosks is the SIP2 listener of SIP_ADDR, and its server; nil fields while it is unset.
type kiosks struct {
	server   *kiosk.Server
	listener net.Listener
	// stop ends the server's Serve, which then sends its result on done.
	stop context.CancelFunc
	done chan error
}

// listenKiosks opens SIP_ADDR, over TLS when SIP_TLS_CERT is set, so that a bad address or
// certificate fails at start, and builds the server that will serve it.
func (a *App) listenKiosks(ctx context.Context, svc kiosk.Services) error {
	sip := a.cfg.SIP
	if sip.Addr == "" {
		return nil
	}
	listener, err := new(net.ListenConfig).Listen(ctx, "tcp", sip.Addr)
	if err != nil {
		return fmt.Errorf("listen on SIP_ADDR %s: %w", sip.Addr, err)
	}
	if sip.TLS() {
		cert, err := tls.LoadX509KeyPair(sip.TLSCert, sip.TLSKey)
		if err != nil {
			_ = listener.Close()
			return fmt.Errorf("SIP_TLS_CERT and SIP_TLS_KEY: %w", err)
		}
		listener = tls.NewListener(listener, &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	}
	if sip.InTheClear() {
		a.logger.Warn("SIP_ADDR: kiosks connect in the clear: their members' PINs and the terminals' passwords cross the network unencrypted; " +
			"keep the port on the kiosks' own network, or set SIP_TLS_CERT and SIP_TLS_KEY")
	}
	a.kiosks.listener = listener
	a.kiosks.server = kiosk.New(svc, kiosk.Options{
		Framing:     sip2.Framing{LineEnd: sip.LineTerminator(), Charset: sip.Charset},
		IdleTimeout: sip.IdleTimeout, MaxConnections: sip.MaxConnections, MessageTimeout: a.cfg.RequestTimeout,
		Institution: sip.Institution, Currency: strings.ToUpper(a.cfg.Payments.Currency),
		MaxLoans: a.cfg.MaxLoans, BlockAt: a.cfg.BlockAt, Now: a.cfg.Tuning.Now,
		Rules: auth.NewTable(auth.Rules()), Logger: a.logger,
		Tracer:  tracing.Tracer(a.cfg.Tuning.TracerProvider, "library/internal/kiosk"),
		Observe: a.metrics.ObserveSIP,
	})
	return nil
}

// kioskServices are the services a kiosk reaches.
func kioskServices(accountService *accounts.Service, bookService *books.Service, titleService *titles.Service,
	terminalService *terminals.Service, v views) kiosk.Services {
	return kiosk.Services{Terminals: terminalService, Members: accountService, Books: bookService, Titles: titleService,
		Loans: v.loans, Holds: v.holds}
}

// serveKiosks serves SIP_ADDR until stopKiosks.
func (a *App) serveKiosks(ctx context.Context) {
	if a.kiosks.server == nil {
		return
	}
	ctx, a.kiosks.stop = context.WithCancel(context.WithoutCancel(ctx))
	a.kiosks.done = make(chan error, 1)
	go func() { a.kiosks.done <- a.kiosks.server.Serve(ctx, a.kiosks.listener) }()
	a.logger.Info("serving kiosks over SIP2", "addr", a.kiosks.listener.Addr().String(), "tls", a.cfg.SIP.TLS())
}

// stopKiosks closes the SIP listener and every kiosk's connection, once each message in hand
// is answered; a kiosk reconnects to another replica and resends what it got no answer to.
func (a *App) stopKiosks() error {
	if a.kiosks.stop == nil {
		if a.kiosks.listener != nil {
			_ = a.kiosks.listener.Close()
		}
		return nil
	}
	a.kiosks.stop()
	if err := <-a.kiosks.done; err != nil {
		return fmt.Errorf("kiosks: %w", err)
	}
	return nil
}

// SIPAddr is the address kiosks connect to, "" when SIP_ADDR is unset.
func (a *App) SIPAddr() string {
	if a.kiosks.listener == nil {
		return ""
	}
	return a.kiosks.listener.Addr().String()
}
