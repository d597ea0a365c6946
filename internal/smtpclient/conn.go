package smtpclient

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// smtpConn is one SMTP connection of the pool, used for one conversation at a time.
type smtpConn struct {
	client  *smtp.Client
	timeout time.Duration

	// raw is the TCP connection under client. It has a lock of its own because a context
	// ending closes it from another goroutine while a conversation runs: go-mail's commands
	// obey deadlines, not contexts, and closing the socket is what interrupts them.
	rawMu sync.Mutex
	raw   net.Conn
}

// dialConn opens a connection: TCP (or TLS), greeting, EHLO, STARTTLS and AUTH.
func (m *Client) dialConn(ctx context.Context) (*smtpConn, error) {
	c := &smtpConn{timeout: m.cfg.Timeout}
	client, err := m.newClient(c)
	if err != nil {
		return nil, err
	}
	interrupted := c.closeOnDone(ctx)
	conn, err := client.DialToSMTPClientWithContext(ctx)
	if interrupted() && err == nil {
		err = ctx.Err()
		_ = conn.Close()
	}
	if err != nil {
		// go-mail leaves the socket open when a step after connecting fails (a refused AUTH,
		// a missing STARTTLS); closing it here keeps a bad password from leaking sockets.
		c.closeRaw()
		return nil, err
	}
	c.client = conn
	return c, nil
}

// newClient makes go-mail's dial settings for one connection.
func (m *Client) newClient(c *smtpConn) (*mail.Client, error) {
	var tlsConfig *tls.Config
	if m.cfg.TLSConfig != nil {
		tlsConfig = m.cfg.TLSConfig.Clone()
	} else {
		tlsConfig = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if tlsConfig.ServerName == "" {
		tlsConfig.ServerName = m.cfg.Host
	}
	opts := []mail.Option{
		mail.WithPort(m.cfg.Port),
		mail.WithTimeout(m.cfg.Timeout),
		mail.WithTLSConfig(tlsConfig),
		mail.WithDialContextFunc(c.dialer(m.cfg.TLS == TLSImplicit, tlsConfig)),
	}
	switch m.cfg.TLS {
	case TLSNone:
		opts = append(opts, mail.WithTLSPolicy(mail.NoTLS))
	case TLSStartTLS:
		// Mandatory: a server (or someone in between) that hides STARTTLS gets no password.
		opts = append(opts, mail.WithTLSPolicy(mail.TLSMandatory))
	case TLSImplicit:
		opts = append(opts, mail.WithSSL())
	default:
		return nil, fmt.Errorf("SMTP TLS mode %q: want none, starttls or tls", m.cfg.TLS)
	}
	if m.cfg.Username != "" {
		opts = append(opts, mail.WithSMTPAuth(mail.SMTPAuthPlain),
			mail.WithUsername(m.cfg.Username), mail.WithPassword(m.cfg.Password))
	}
	client, err := mail.NewClient(m.cfg.Host, opts...)
	if err != nil {
		return nil, m.redact(fmt.Errorf("SMTP client for %s:%d: %w", m.cfg.Host, m.cfg.Port, err))
	}
	return client, nil
}

// dialer connects for go-mail and remembers the socket so that closeOnDone can close it.
// Because go-mail skips its own TLS dialer when given a dial function, implicit TLS is done
// here; returning the *tls.Conn is what tells go-mail the connection is encrypted.
func (c *smtpConn) dialer(implicitTLS bool, tlsConfig *tls.Config) mail.DialContextFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, &dialError{stage: "connect", err: err}
		}
		c.rawMu.Lock()
		c.raw = conn
		c.rawMu.Unlock()
		// ctx may have ended just before raw was set, when closeOnDone found nothing to close.
		if err := ctx.Err(); err != nil {
			c.closeRaw()
			return nil, err
		}
		if !implicitTLS {
			return conn, nil
		}
		tlsConn := tls.Client(conn, tlsConfig)
		if err := tlsConn.HandshakeContext(ctx); err != nil {
			c.closeRaw()
			return nil, &dialError{stage: "tls", err: err}
		}
		return tlsConn, nil
	}
}

// outcome is what one conversation came to.
type outcome struct {
	// accepted: the relay's 250 to DATA came. err may still be set, for what failed after it.
	accepted bool
	// usable: the connection can carry the next conversation.
	usable bool
	err    error // a *SendError, or ctx's error
}

// deliver runs one mail transaction: MAIL, RCPT, DATA and the message, then RSET so that the
// connection is ready for the next. It keeps to the connection's timeout, and ends at once when
// ctx does.
func (c *smtpConn) deliver(ctx context.Context, msg *mail.Msg, from, to string) outcome {
	interrupted := c.closeOnDone(ctx)
	o := c.transaction(msg, from, to)
	if interrupted() {
		o.usable = false
		if !o.accepted {
			o.err = ctx.Err() // the socket was closed under go-mail; its error would only say so
		}
	}
	return o
}

func (c *smtpConn) transaction(msg *mail.Msg, from, to string) outcome {
	// The deadline set by the last conversation may have passed while the connection sat idle.
	if err := c.client.UpdateDeadline(c.timeout); err != nil {
		return outcome{err: connectionFailure(StepMail, err)}
	}
	if err := c.client.Mail(from); err != nil {
		return c.refused(StepMail, err)
	}
	if err := c.client.Rcpt(to); err != nil {
		return c.refused(StepRcpt, err)
	}
	w, err := c.client.Data()
	if err != nil {
		return c.refused(StepData, err)
	}
	if _, err := msg.WriteTo(w); err != nil {
		return outcome{err: connectionFailure(StepMessage, err)}
	}
	if err := w.Close(); err != nil {
		return c.refused(StepData, err)
	}
	// Accepted. RSET readies the connection for the next message; if it fails (a relay that
	// takes one message per connection, a connection dropped), the message is still sent.
	if err := c.client.Reset(); err != nil {
		return outcome{accepted: true, err: err}
	}
	return outcome{accepted: true, usable: true}
}

// refused sorts a failed step, and says whether the connection can carry the next message.
//
// Without a reply (the connection broke or timed out) it can't, and the relay is down, except
// for a timeout at RCPT: the relay has just answered MAIL FROM on this connection, so it is
// taking mail, and stalls on this recipient (checking the address with its domain, a rate
// limit on that domain).
//
// After a reply, RSET clears the transaction and tells whether the relay kept the connection.
// A 421 after which it did not (the RSET fails) is the relay closing down, as RFC 5321's 421
// says; a 421 after which it goes on answering was about this recipient only.
func (c *smtpConn) refused(step string, err error) outcome {
	se := sortReply(step, err)
	if se.Code == 0 {
		if step == StepRcpt && se.Reason == "timeout" {
			se.Class = Temporary
		}
		return outcome{err: se}
	}
	if err := c.client.Reset(); err != nil {
		if se.Code == 421 {
			se.Class = RelayDown
			se.Text += " and closed the connection"
		}
		return outcome{err: se}
	}
	return outcome{usable: true, err: se}
}

// quit ends the conversation politely, within the timeout, and closes the connection.
func (c *smtpConn) quit() error {
	err := c.client.UpdateDeadline(c.timeout)
	if err == nil {
		err = c.client.Quit()
	}
	c.drop()
	if errors.Is(err, net.ErrClosed) {
		return nil
	}
	return err
}

// drop closes the connection without QUIT.
func (c *smtpConn) drop() {
	// Closing the socket first makes go-mail's own close (a TLS close_notify, for one) fail
	// at once instead of waiting on a peer that may be gone.
	c.closeRaw()
	if c.client != nil {
		_ = c.client.Close()
	}
}

func (c *smtpConn) closeRaw() {
	c.rawMu.Lock()
	defer c.rawMu.Unlock()
	if c.raw != nil {
		_ = c.raw.Close()
		c.raw = nil
	}
}

// closeOnDone closes the socket if ctx ends before the returned function is called. That
// function reports whether it did; it waits for a close already under way.
func (c *smtpConn) closeOnDone(ctx context.Context) (interrupted func() bool) {
	closed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(closed)
		c.closeRaw()
	})
	return func() bool {
		if stop() {
			return false
		}
		<-closed
		return true
	}
}
