package smtptest

import (
	"crypto/subtle"
	"io"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// backend creates one session per greeting (and a new one after STARTTLS).
type backend struct{ s *Server }

func (b *backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &session{s: b.s, conn: connNumber(c.Conn())}, nil
}

// session is the state of one SMTP conversation. go-smtp calls its methods from the
// connection's goroutine only, so it needs no lock of its own.
type session struct {
	s      *Server
	conn   int
	authed bool
	from   string
	to     []string
}

var _ smtp.AuthSession = (*session)(nil)

// AuthMechanisms offers PLAIN only when credentials are configured, so a server without them
// does not advertise AUTH at all.
func (ss *session) AuthMechanisms() []string {
	if ss.s.opts.Username == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (ss *session) Auth(mech string) (sasl.Server, error) {
	if ss.s.opts.Username == "" || mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		userOK := subtle.ConstantTimeCompare([]byte(username), []byte(ss.s.opts.Username)) == 1
		passOK := subtle.ConstantTimeCompare([]byte(password), []byte(ss.s.opts.Password)) == 1
		if !userOK || !passOK || (identity != "" && identity != username) {
			return smtp.ErrAuthFailed
		}
		ss.authed = true
		return nil
	}), nil
}

func (ss *session) needsAuth() bool { return ss.s.opts.Username != "" && !ss.authed }

func (ss *session) Mail(from string, _ *smtp.MailOptions) error {
	if ss.needsAuth() {
		return smtp.ErrAuthRequired
	}
	ss.from, ss.to = from, nil
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	if ss.needsAuth() {
		return smtp.ErrAuthRequired
	}
	ss.to = append(ss.to, to)
	return nil
}

func (ss *session) Data(r io.Reader) error {
	if ss.needsAuth() {
		return smtp.ErrAuthRequired
	}
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	delay, _ := ss.s.misbehaviour()
	if delay > 0 {
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ss.s.stop:
			timer.Stop()
			return &smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Server shutting down"}
		}
	}
	// Read the refusal after the delay so that a Refuse made meanwhile applies.
	if _, refusal := ss.s.misbehaviour(); refusal != nil {
		return refusal
	}
	m := parseMessage(raw)
	m.From = ss.from
	m.To = append([]string(nil), ss.to...)
	m.Conn = ss.conn
	m.Received = time.Now()
	ss.s.record(m)
	return nil
}

func (ss *session) Reset() { ss.from, ss.to = "", nil }

func (ss *session) Logout() error { return nil }
