package smtpclient

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/wneessen/go-mail"
	"golang.org/x/time/rate"

	"library/internal/config"
)

// Client delivers emails through an SMTP relay with go-mail.
//
// It keeps a pool of connections, each used for one conversation at a time: a Send takes an
// idle connection, or dials one when none is idle, and puts it back when the relay has answered,
// so emails sent one after another, or many at once, share connections. How many are open at
// once is how many Sends run at once; Close ends the idle ones. A connection whose conversation
// failed without a clean reply is closed, not put back: its state is unknown, and a fresh
// connection is cheaper than finding out.
//
// Send reports an accepted email (the relay's 250 to DATA) as sent even when something fails
// after it, so that an accepted email is never sent again; any other failure is a *SendError,
// sorted by class (see FailureClass).
type Client struct {
	cfg     Config
	logger  *slog.Logger
	limiter *rate.Limiter // nil: no cap on the send rate

	mu   sync.Mutex
	idle []*smtpConn // open connections not in use, the most recently used last
}

// New returns a client for cfg; it does not connect yet. A zero Timeout becomes 10s,
// an empty TLS becomes starttls, a zero Port the default port of the TLS mode and a zero
// MaxPerDomain DefaultMaxPerDomain. A nil logger logs nothing.
func New(cfg Config, logger *slog.Logger) *Client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultSMTPTimeout
	}
	if cfg.TLS == "" {
		cfg.TLS = TLSStartTLS
	}
	if cfg.Port == 0 {
		cfg.Port = config.DefaultSMTPPort(cfg.TLS)
	}
	if cfg.MaxPerDomain <= 0 {
		cfg.MaxPerDomain = DefaultMaxPerDomain
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	m := &Client{cfg: cfg, logger: logger}
	if cfg.MaxRate > 0 {
		// A burst of one spaces the messages out evenly: relays count over windows shorter
		// than a second too.
		m.limiter = rate.NewLimiter(rate.Limit(cfg.MaxRate), 1)
	}
	return m
}

// MaxPerDomain is how many emails a caller may have in flight to one recipient domain at once
// (Config.MaxPerDomain): the loan email outbox keeps to it.
func (m *Client) MaxPerDomain() int { return m.cfg.MaxPerDomain }

// Send delivers e over a pooled connection. It returns nil once the relay has accepted the
// message, a *SendError when it refused it or could not be reached, or ctx's error when ctx
// ended first. Errors carry the relay's reply but never the recipient or the credentials.
func (m *Client) Send(ctx context.Context, e Email) error {
	msg, err := NewMessage(e)
	if err != nil {
		return &SendError{Class: Permanent, Step: StepMessage, Reason: "address", Text: err.Error()}
	}
	from, to, err := envelope(msg)
	if err != nil {
		return &SendError{Class: Permanent, Step: StepMessage, Reason: "address", Text: fmt.Sprintf("email %s: %v", e.MessageID, err)}
	}
	if m.limiter != nil {
		if err := m.limiter.Wait(ctx); err != nil {
			return fmt.Errorf("send email %s: waiting for the send rate: %w", e.MessageID, context.Cause(ctx))
		}
	}
	for retried := false; ; retried = true {
		c, reused, err := m.take(ctx)
		if err != nil {
			return m.failed(ctx, e, to, err)
		}
		o := c.deliver(ctx, msg, from, to)
		if o.usable {
			m.put(c)
		} else {
			c.drop()
		}
		if o.accepted {
			if o.err != nil {
				m.logger.DebugContext(ctx, "smtp: the relay accepted the email, then the connection failed",
					slog.String("message_id", e.MessageID), slog.String("error", m.redact(o.err).Error()))
			}
			return nil
		}
		if se, ok := IsSendError(o.err); ok && reused && !retried && se.Step == StepMail && (se.Code == 0 || se.Code == 421) {
			// The relay dropped the idle connection (a timeout, a restart) before anything of
			// this message was accepted, so trying once on a new connection can't send it twice.
			m.logger.DebugContext(ctx, "smtp: an idle connection went stale; reconnecting", slog.Any("smtp", m.cfg))
			continue
		}
		return m.failed(ctx, e, to, o.err)
	}
}

// failed names the message in a failure, without the recipient or the credentials.
func (m *Client) failed(ctx context.Context, e Email, to string, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("send email %s: %w", e.MessageID, ctxErr)
	}
	se, ok := IsSendError(err)
	if !ok {
		se = dialFailure(err)
	}
	out := *se
	text := fmt.Sprintf("send email %s via SMTP %s:%d: %s", e.MessageID, m.cfg.Host, m.cfg.Port, withoutAddress(se.Text, to))
	out.Text = m.redact(errors.New(text)).Error()
	return &out
}

// take returns an idle connection, or dials a new one; reused says which.
func (m *Client) take(ctx context.Context) (c *smtpConn, reused bool, err error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	m.mu.Lock()
	if n := len(m.idle); n > 0 {
		c = m.idle[n-1]
		m.idle = m.idle[:n-1]
		m.mu.Unlock()
		return c, true, nil
	}
	m.mu.Unlock()
	c, err = m.dialConn(ctx)
	if err != nil {
		return nil, false, err
	}
	m.logger.DebugContext(ctx, "smtp connection opened", slog.Any("smtp", m.cfg))
	return c, false, nil
}

func (m *Client) put(c *smtpConn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.idle = append(m.idle, c)
}

// Close ends the idle connections with QUIT. Connections in use are put back when their
// conversation ends, and closed by a later Close.
func (m *Client) Close() error {
	m.mu.Lock()
	idle := m.idle
	m.idle = nil
	m.mu.Unlock()
	var errs []error
	for _, c := range idle {
		if err := c.quit(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return m.redact(fmt.Errorf("close SMTP connections to %s:%d: %w", m.cfg.Host, m.cfg.Port, err))
	}
	return nil
}

// envelope is the message's sender and its one recipient, as MAIL FROM and RCPT TO take them.
func envelope(msg *mail.Msg) (from, to string, err error) {
	from, err = msg.GetSender(false)
	if err != nil {
		return "", "", errors.New("no sender")
	}
	rcpts, err := msg.GetRecipients()
	if err != nil || len(rcpts) != 1 {
		return "", "", errors.New("not exactly one recipient")
	}
	return from, rcpts[0], nil
}

// withoutAddress is text with every mention of addr (a relay's reply often quotes it) masked:
// the error ends up in logs and in /status, and an email address is personal data that neither
// needs.
func withoutAddress(text, addr string) string {
	if addr == "" {
		return text
	}
	var b strings.Builder
	for {
		i := strings.Index(strings.ToLower(text), strings.ToLower(addr))
		if i < 0 {
			b.WriteString(text)
			return b.String()
		}
		b.WriteString(text[:i])
		b.WriteString("[recipient]")
		text = text[i+len(addr):]
	}
}

// redact removes the password and the user name from an error's text. go-mail's errors do not
// contain them as far as we know, but they quote relay replies (some quote the user name back)
// and inner errors we do not control, and a credential in a log is expensive.
func (m *Client) redact(err error) error {
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

// NewMessage builds the message Send sends for e, rejecting addresses go-mail cannot parse. go-mail encodes the
// subject (RFC 2047) whenever it holds anything but printable ASCII, CR and LF included,
// which is what keeps a subject from starting a header of its own. A subject of printable
// ASCII that holds "=?" is encoded here: sent as it is, it would be read as encoded words
// and shown decoded, as text no one checked ("=?UTF-8?q?a=0D=0Ab?=" has a line break).
func NewMessage(e Email) (*mail.Msg, error) {
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
		if !ValidMessageID(id) {
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

// ValidMessageID accepts the inside of <...>: printable ASCII without spaces or brackets, so
// the header goes out exactly as given and never needs encoding.
func ValidMessageID(id string) bool {
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
