package smtptest

import (
	"crypto/subtle"
	"errors"
	"io"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// backend creates one session per greeting (and a new one after STARTTLS).
type backend struct{ s *Server }

func (b *backend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	cc := countedOf(c.Conn())
	if cc == nil {
		return nil, errors.New("smtptest: connection not from the counting listener")
	}
	return &session{s: b.s, conn: cc}, nil
}

// session is the state of one SMTP conversation. go-smtp calls its methods from the
// connection's goroutine only, so it needs no lock of its own.
type session struct {
	s      *Server
	conn   *countedConn
	authed bool
	inTx   bool // a mail transaction is open and counted in Server.openTx
	from   string
	to     []string
	toDoms []string // domains this transaction is counted in Server.openTo for
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
	for _, d := range ss.toDoms { // a MAIL FROM that starts over without RSET
		ss.s.toClosed(d)
	}
	ss.toDoms = nil
	if !ss.inTx {
		ss.inTx = true
		ss.s.txOpened()
	}
	return nil
}

func (ss *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	refusal, delay, hold := ss.s.recipient(to) // counts the attempt even when it is refused below
	if ss.needsAuth() {
		return smtp.ErrAuthRequired
	}
	domain := domainOf(addrKey(to))
	ss.s.toOpened(domain)
	if hold != nil {
		select {
		case <-hold:
		case <-ss.s.stop:
			ss.s.toClosed(domain)
			return ss.fail(&smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Server shutting down"})
		}
	}
	if delay > 0 {
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ss.s.stop:
			timer.Stop()
			ss.s.toClosed(domain)
			return ss.fail(&smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Server shutting down"})
		}
	}
	if refusal.reply != nil {
		ss.s.toClosed(domain)
		if refusal.keepOpen {
			return refusal.reply
		}
		return ss.fail(refusal.reply)
	}
	ss.to = append(ss.to, to)
	ss.toDoms = append(ss.toDoms, domain)
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
	if delay := ss.s.dataDelay(); delay > 0 {
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ss.s.stop:
			timer.Stop()
			return ss.fail(&smtp.SMTPError{Code: 421, EnhancedCode: smtp.EnhancedCode{4, 3, 2}, Message: "Server shutting down"})
		}
	}
	// Read the rest after the delay so that a Refuse or CloseAfterAccept made meanwhile applies.
	refusal, closeAfter := ss.s.dataFaults()
	if refusal != nil {
		return ss.fail(refusal)
	}
	m := parseMessage(raw)
	m.From = ss.from
	m.To = append([]string(nil), ss.to...)
	m.Conn = ss.conn.n
	m.Received = time.Now()
	ss.s.record(m)
	if closeAfter {
		ss.conn.closeAfterReply()
	}
	return nil
}

// fail returns a refusal for go-smtp to send, arranging first for the connection to close
// right after a 421, which go-smtp would otherwise keep open.
func (ss *session) fail(refusal *smtp.SMTPError) error {
	if refusal.Code == 421 {
		ss.conn.closeAfterReply()
	}
	return refusal
}

// Reset is called by go-smtp for RSET, for a repeated EHLO and after it has written the reply
// to DATA: each ends the mail transaction.
func (ss *session) Reset() {
	ss.from, ss.to = "", nil
	ss.endTx()
}

// Logout is called when the connection ends, and for the old session after STARTTLS.
func (ss *session) Logout() error {
	ss.endTx()
	return nil
}

func (ss *session) endTx() {
	for _, d := range ss.toDoms {
		ss.s.toClosed(d)
	}
	ss.toDoms = nil
	if ss.inTx {
		ss.inTx = false
		ss.s.txClosed()
	}
}
