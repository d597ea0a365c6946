package notifications

import (
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wneessen/go-mail"
	"github.com/wneessen/go-mail/smtp"
)

// SMTPMailer is the Mailer that delivers through an SMTP server with go-mail.
//
// It dials on the first Send and keeps the connection for the following ones until Close, so
// emails sent one after another cost one connection. After a failed Send the connection is dropped and
// the next Send dials again: after an error the conversation's state is unknown, and a fresh
// connection is cheaper than finding out.
type SMTPMailer struct {
	cfg    SMTPConfig
	logger *slog.Logger

	mu     sync.Mutex   // one SMTP conversation at a time; guards the fields below
	client *mail.Client // dial settings, made on the first dial
	conn   *smtp.Client // the open session, nil when there is none

	// raw is the TCP connection under conn. It has a lock of its own because a context
	// ending closes it from another goroutine while Send holds mu: go-mail's commands obey
	// deadlines, not contexts, and closing the socket is what interrupts them.
	rawMu sync.Mutex
	raw   net.Conn
}

var _ Mailer = (*SMTPMailer)(nil)

// NewSMTPMailer returns a mailer for cfg; it does not connect yet. A zero Timeout becomes 10s,
// an empty TLS becomes starttls and a zero Port the default port of the TLS mode. A nil
// logger logs nothing.
func NewSMTPMailer(cfg SMTPConfig, logger *slog.Logger) *SMTPMailer {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultSMTPTimeout
	}
	if cfg.TLS == "" {
		cfg.TLS = TLSStartTLS
	}
	if cfg.Port == 0 {
		cfg.Port = defaultPort(cfg.TLS)
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	return &SMTPMailer{cfg: cfg, logger: logger}
}

// Send delivers e, reusing the open connection if there is one. It returns once the server
// has accepted the message, or with an error when it refused it, the connection failed or
// ctx ended. Errors carry the server's reply but never the password.
func (m *SMTPMailer) Send(ctx context.Context, e Email) error {
	msg, err := newMsg(e)
	if err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("send email %s: %w", e.MessageID, err)
	}

	interrupted := m.closeOnDone(ctx)
	err = m.sendLocked(ctx, msg)
	if interrupted() || err != nil {
		m.dropLocked()
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			// The socket was closed under go-mail; its error would only say so.
			return fmt.Errorf("send email %s: %w", e.MessageID, ctxErr)
		}
		return m.redact(fmt.Errorf("send email %s via SMTP %s:%d: %s", e.MessageID, m.cfg.Host, m.cfg.Port, withoutRecipients(err)))
	}
	return nil
}

func (m *SMTPMailer) sendLocked(ctx context.Context, msg *mail.Msg) error {
	reused := m.conn != nil
	if reused {
		// go-mail checks a reused connection with NOOP before it extends the deadline, so an
		// idle connection needs a fresh deadline first or the check always fails.
		if err := m.conn.UpdateDeadline(m.cfg.Timeout); err != nil {
			m.dropLocked()
			reused = false
		}
	}
	if !reused {
		if err := m.dialLocked(ctx); err != nil {
			return err
		}
	}
	err := m.client.SendWithSMTPClient(m.conn, msg)
	var sendErr *mail.SendError
	if reused && errors.As(err, &sendErr) && sendErr.Reason == mail.ErrConnCheck && ctx.Err() == nil {
		// The server dropped the idle connection (timeout, restart) before anything of this
		// message was sent, so trying once on a new connection cannot send it twice.
		m.logger.DebugContext(ctx, "smtp connection went stale; reconnecting", slog.Any("smtp", m.cfg))
		m.dropLocked()
		if err := m.dialLocked(ctx); err != nil {
			return err
		}
		err = m.client.SendWithSMTPClient(m.conn, msg)
	}
	return err
}

// Close ends the open connection, if any, with QUIT.
func (m *SMTPMailer) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.conn == nil {
		return nil
	}
	var err error
	// The deadline set by the last Send may have passed while the connection sat idle.
	if err = m.conn.UpdateDeadline(m.cfg.Timeout); err == nil {
		err = m.client.CloseWithSMTPClient(m.conn)
	}
	m.dropLocked()
	if err != nil {
		return m.redact(fmt.Errorf("close SMTP connection to %s:%d: %w", m.cfg.Host, m.cfg.Port, err))
	}
	return nil
}

// dialLocked opens a connection: TCP (or TLS), greeting, EHLO, STARTTLS and AUTH.
func (m *SMTPMailer) dialLocked(ctx context.Context) error {
	if m.client == nil {
		client, err := m.newClient()
		if err != nil {
			return err
		}
		m.client = client
	}
	conn, err := m.client.DialToSMTPClientWithContext(ctx)
	if err != nil {
		// go-mail leaves the socket open when a step after connecting fails (a refused AUTH,
		// a missing STARTTLS); closing it here keeps a bad password from leaking sockets.
		m.closeRaw()
		return fmt.Errorf("connect: %w", err)
	}
	m.conn = conn
	m.logger.DebugContext(ctx, "smtp connection opened", slog.Any("smtp", m.cfg))
	return nil
}

// dropLocked forgets the connection without QUIT.
func (m *SMTPMailer) dropLocked() {
	// Closing the socket first makes go-mail's own close (a TLS close_notify, for one) fail
	// at once instead of waiting on a peer that may be gone.
	m.closeRaw()
	if m.conn != nil {
		_ = m.conn.Close()
		m.conn = nil
	}
}

func (m *SMTPMailer) closeRaw() {
	m.rawMu.Lock()
	defer m.rawMu.Unlock()
	if m.raw != nil {
		_ = m.raw.Close()
		m.raw = nil
	}
}

// closeOnDone closes the socket if ctx ends before the returned function is called. That
// function reports whether it did; it waits for a close already under way, so a late close
// never hits the next Send's connection.
func (m *SMTPMailer) closeOnDone(ctx context.Context) (interrupted func() bool) {
	closed := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		defer close(closed)
		m.closeRaw()
	})
	return func() bool {
		if stop() {
			return false
		}
		<-closed
		return true
	}
}

func (m *SMTPMailer) newClient() (*mail.Client, error) {
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
		mail.WithDialContextFunc(m.dialer(tlsConfig)),
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
func (m *SMTPMailer) dialer(tlsConfig *tls.Config) mail.DialContextFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		conn, err := d.DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		m.rawMu.Lock()
		m.raw = conn
		m.rawMu.Unlock()
		// ctx may have ended just before raw was set, when closeOnDone found nothing to close.
		if err := ctx.Err(); err != nil {
			m.closeRaw()
			return nil, err
		}
		if m.cfg.TLS != TLSImplicit {
			return conn, nil
		}
		tlsConn := tls.Client(conn, tlsConfig)
		if err := tlsConn.HandshakeContext(ctx); err != nil {
			m.closeRaw()
			return nil, err
		}
		return tlsConn, nil
	}
}

// redact removes the password from an error's text. go-mail's errors do not contain it as
// far as we know, but they quote server replies and inner errors we do not control, and a
// password in a log is expensive; the wrapped error is dropped only when it had to be cut.
// withoutRecipients is go-mail's error text without the addresses it names: the error ends up
// in logs and in /status, and an email address is personal data that neither needs.
func withoutRecipients(err error) string {
	text := err.Error()
	const list = ", affected recipient(s): "
	start := strings.Index(text, list)
	if start < 0 {
		return text
	}
	rest := text[start+len(list):]
	if end := strings.Index(rest, ", affected message ID: "); end >= 0 {
		return text[:start] + rest[end:]
	}
	return text[:start]
}

// redact removes the password and the user name from an error's text, for servers that quote
// the user name back in their reply (see the comment above withoutRecipients).
func (m *SMTPMailer) redact(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	for _, secret := range []string{m.cfg.Password, m.cfg.Username} {
		if secret != "" {
			text = strings.ReplaceAll(text, secret, "[redacted]")
		}
	}
	if text == err.Error() {
		return err
	}
	return errors.New(text)
}

// newMsg builds the message, rejecting addresses go-mail cannot parse. go-mail encodes the
// subject (RFC 2047) whenever it holds anything but printable ASCII, CR and LF included,
// which is what keeps a subject from starting a header of its own. A subject of printable
// ASCII that holds "=?" is encoded here: sent as it is, it would be read as encoded words
// and shown decoded, as text no one checked ("=?UTF-8?q?a=0D=0Ab?=" has a line break).
func newMsg(e Email) (*mail.Msg, error) {
	msg := mail.NewMsg() // UTF-8, quoted-printable
	if err := msg.From(e.From); err != nil {
		return nil, fmt.Errorf("email %s: invalid From address: %w", e.MessageID, err)
	}
	if err := msg.To(e.To); err != nil {
		// go-mail's error quotes the address; the error reaches logs and /status, which name the
		// message, never the recipient.
		return nil, fmt.Errorf("email %s: invalid To address", e.MessageID)
	}
	if e.MessageID != "" {
		// SetMessageIDWithValue adds the angle brackets itself, so they are taken off first;
		// otherwise the header would read <<id>>.
		id := strings.TrimSuffix(strings.TrimPrefix(e.MessageID, "<"), ">")
		if !validMessageID(id) {
			return nil, fmt.Errorf("email: invalid Message-ID %q", e.MessageID)
		}
		msg.SetMessageIDWithValue(id)
	}
	if strings.Contains(e.Subject, "=?") {
		msg.SetGenHeaderPreformatted(mail.HeaderSubject, encodedWords(e.Subject))
	} else {
		msg.Subject(shorten(e.Subject, maxSubjectRunes))
	}
	msg.SetDate()
	// go-mail's default names itself and its version in two headers; receivers need neither.
	msg.SetUserAgent("library")
	msg.SetBodyString(mail.TypeTextPlain, e.Body)
	return msg, nil
}

// encodedWords writes s as RFC 2047 encoded words (UTF-8, base64) on folded lines. Each word
// holds whole characters and is at most 68 characters long, so a line stays within 78.
func encodedWords(s string) string {
	const maxBytes = 42 // 56 characters in base64, without padding except in the last word
	var words []string
	for s != "" {
		n := min(len(s), maxBytes)
		for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
			n--
		}
		if n == 0 { // not UTF-8: cut anywhere rather than not at all
			n = min(len(s), maxBytes)
		}
		words = append(words, "=?UTF-8?b?"+base64.StdEncoding.EncodeToString([]byte(s[:n]))+"?=")
		s = s[n:]
	}
	return strings.Join(words, "\r\n ")
}

// maxSubjectRunes bounds a subject. go-mail folds a subject at its spaces, and encodes (which
// folds too) one that holds anything but printable ASCII, but a run of printable ASCII without a
// space stays on one line, and mail servers refuse a line over 998 characters (RFC 5322). The
// service's subjects are far shorter ("You borrowed " and a title of at most 300 characters);
// only text that bypassed its checks can be this long.
const maxSubjectRunes = 500

// shorten cuts s to at most n runes.
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// validMessageID accepts the inside of <...>: printable ASCII without spaces or brackets, so
// the header goes out exactly as given and never needs encoding.
func validMessageID(id string) bool {
	if id == "" {
		return false
	}
	for _, r := range id {
		if r <= ' ' || r > '~' || r == '<' || r == '>' {
			return false
		}
	}
	return true
}
