package config

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
)

// TLS modes of SMTP_URL (SMTPServer.TLS).
const (
	SMTPTLSNone     = "none"     // plain text; only for a relay on the same host or network
	SMTPTLSStartTLS = "starttls" // plain connection upgraded with STARTTLS, which is mandatory
	SMTPTLSImplicit = "tls"      // TLS from the first byte ("SMTPS")
)

// SMTPServer is SMTP_URL, parsed: the server and how to reach it. Its String and GoString
// leave the user name and the password out.
type SMTPServer struct {
	Host               string
	Port               int
	Username, Password string
	// TLS is SMTPTLSNone, SMTPTLSStartTLS or SMTPTLSImplicit.
	TLS string
}

// String is the server with no credentials.
func (s SMTPServer) String() string { return s.TLS + "://" + s.Host + ":" + strconv.Itoa(s.Port) }

// GoString keeps %#v from printing the credentials.
func (s SMTPServer) GoString() string { return "config.SMTPServer(" + s.String() + ")" }

// DefaultSMTPPort is the registered port of each TLS mode: what SMTP_URL means without a port.
func DefaultSMTPPort(mode string) int {
	switch mode {
	case SMTPTLSImplicit:
		return 465
	case SMTPTLSStartTLS:
		return 587
	default:
		return 25
	}
}

// errSMTPURL is the one error for an SMTP_URL that is not a URL at all: url.Parse's own error
// quotes the whole URL, password included, so it is never passed on.
var errSMTPURL = errors.New("SMTP_URL is not a valid URL; want smtp://user:password@host:port?tls=none|starttls|tls")

// ParseSMTPURL reads SMTP_URL: smtp://user:password@host:port?tls=none|starttls|tls.
//
// The user name and password are optional and percent-decoded. tls defaults to starttls (a
// mail server on the network should not see passwords or loan details in the clear); a
// local relay without TLS needs tls=none. The scheme smtps means implicit TLS, as does
// tls=tls. The port defaults to 25 for none, 587 for starttls and 465 for tls. Unknown query
// parameters are errors, so a typo does not silently fall back to a default. Errors name
// SMTP_URL and never include the URL or the password.
func ParseSMTPURL(s string) (SMTPServer, error) {
	u, err := url.Parse(s)
	if err != nil {
		return SMTPServer{}, errSMTPURL
	}
	var cfg SMTPServer
	switch u.Scheme {
	case "smtp":
		cfg.TLS = SMTPTLSStartTLS
	case "smtps":
		cfg.TLS = SMTPTLSImplicit
	default:
		return SMTPServer{}, errors.New("SMTP_URL: scheme must be smtp or smtps")
	}
	if u.Opaque != "" || u.Host == "" {
		return SMTPServer{}, errors.New("SMTP_URL: no host; want smtp://user:password@host:port")
	}
	if (u.Path != "" && u.Path != "/") || u.Fragment != "" {
		return SMTPServer{}, errors.New("SMTP_URL: must not have a path or fragment")
	}

	query, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return SMTPServer{}, errors.New("SMTP_URL: query is not valid")
	}
	for key, values := range query {
		if key != "tls" {
			return SMTPServer{}, fmt.Errorf("SMTP_URL: unknown parameter %q; only tls is allowed", key)
		}
		if len(values) != 1 {
			return SMTPServer{}, errors.New("SMTP_URL: tls is given more than once")
		}
		switch mode := values[0]; mode {
		case SMTPTLSNone, SMTPTLSStartTLS, SMTPTLSImplicit:
			if u.Scheme == "smtps" && mode != SMTPTLSImplicit {
				return SMTPServer{}, errors.New("SMTP_URL: smtps means tls=tls")
			}
			cfg.TLS = mode
		default:
			return SMTPServer{}, errors.New("SMTP_URL: tls must be none, starttls or tls")
		}
	}

	cfg.Host = u.Hostname()
	if cfg.Host == "" {
		return SMTPServer{}, errors.New("SMTP_URL: no host")
	}
	cfg.Port = DefaultSMTPPort(cfg.TLS)
	if p := u.Port(); p != "" {
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return SMTPServer{}, errors.New("SMTP_URL: port must be a number from 1 to 65535")
		}
		cfg.Port = port
	}

	if u.User != nil {
		cfg.Username = u.User.Username()
		cfg.Password, _ = u.User.Password()
		if cfg.Username == "" && cfg.Password != "" {
			return SMTPServer{}, errors.New("SMTP_URL: password without a user name")
		}
	}
	return cfg, nil
}
