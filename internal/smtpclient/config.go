package smtpclient

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"time"
)

// TLS modes of Config.
const (
	TLSNone     = "none"     // plain text; only for a relay on the same host or network
	TLSStartTLS = "starttls" // plain connection upgraded with STARTTLS, which is mandatory
	TLSImplicit = "tls"      // TLS from the first byte ("SMTPS")
)

// Config says how to reach the SMTP server. Its String, GoString and LogValue leave the
// user name and the password out, so a config can be printed or logged safely.
type Config struct {
	Host string
	Port int
	// Username, when set, makes the mailer authenticate with AUTH PLAIN.
	Username, Password string
	// TLS is TLSNone, TLSStartTLS or TLSImplicit.
	TLS string
	// TLSConfig verifies the server; tests set it to trust a self-signed certificate. Nil
	// means the system roots, with ServerName set to Host.
	TLSConfig *tls.Config
	// Timeout bounds connecting (with its greeting, STARTTLS and AUTH), each message and the
	// final QUIT. Zero means 10s.
	Timeout time.Duration
	// MaxRate caps the messages sent per second (SMTP_MAX_RATE), for relays that refuse mail
	// past a rate; 0 means no cap.
	MaxRate float64
	// MaxPerDomain caps the emails the outbox has in flight to one recipient domain at once
	// (SMTP_MAX_PER_DOMAIN), so that one slow domain can't take every connection. Zero means
	// DefaultMaxPerDomain. The outbox keeps to it (notifications.Outbox.Handle); Send itself
	// does not wait.
	MaxPerDomain int
}

const defaultSMTPTimeout = 10 * time.Second

// DefaultMaxPerDomain is how many emails may be in flight to one recipient domain at once when
// Config.MaxPerDomain (SMTP_MAX_PER_DOMAIN) is not set.
const DefaultMaxPerDomain = 4

// defaultPort is the registered port of each TLS mode.
func defaultPort(mode string) int {
	switch mode {
	case TLSImplicit:
		return 465
	case TLSStartTLS:
		return 587
	default:
		return 25
	}
}

// errSMTPURL is the one error for an SMTP_URL that is not a URL at all: url.Parse's own error
// quotes the whole URL, password included, so it is never passed on.
var errSMTPURL = errors.New("SMTP_URL is not a valid URL; want smtp://user:password@host:port?tls=none|starttls|tls")

// ParseURL reads SMTP_URL: smtp://user:password@host:port?tls=none|starttls|tls.
//
// The user name and password are optional and percent-decoded. tls defaults to starttls (a
// mail server on the network should not see passwords or loan details in the clear); a
// local relay without TLS needs tls=none. The scheme smtps means implicit TLS, as does
// tls=tls. The port defaults to 25 for none, 587 for starttls and 465 for tls. Unknown query
// parameters are errors, so a typo does not silently fall back to a default. Errors name
// SMTP_URL and never include the URL or the password.
func ParseURL(s string) (Config, error) {
	u, err := url.Parse(s)
	if err != nil {
		return Config{}, errSMTPURL
	}
	var cfg Config
	switch u.Scheme {
	case "smtp":
		cfg.TLS = TLSStartTLS
	case "smtps":
		cfg.TLS = TLSImplicit
	default:
		return Config{}, errors.New("SMTP_URL: scheme must be smtp or smtps")
	}
	if u.Opaque != "" || u.Host == "" {
		return Config{}, errors.New("SMTP_URL: no host; want smtp://user:password@host:port")
	}
	if (u.Path != "" && u.Path != "/") || u.Fragment != "" {
		return Config{}, errors.New("SMTP_URL: must not have a path or fragment")
	}

	query, err := url.ParseQuery(u.RawQuery)
	if err != nil {
		return Config{}, errors.New("SMTP_URL: query is not valid")
	}
	for key, values := range query {
		if key != "tls" {
			return Config{}, fmt.Errorf("SMTP_URL: unknown parameter %q; only tls is allowed", key)
		}
		if len(values) != 1 {
			return Config{}, errors.New("SMTP_URL: tls is given more than once")
		}
		switch mode := values[0]; mode {
		case TLSNone, TLSStartTLS, TLSImplicit:
			if u.Scheme == "smtps" && mode != TLSImplicit {
				return Config{}, errors.New("SMTP_URL: smtps means tls=tls")
			}
			cfg.TLS = mode
		default:
			return Config{}, errors.New("SMTP_URL: tls must be none, starttls or tls")
		}
	}

	cfg.Host = u.Hostname()
	if cfg.Host == "" {
		return Config{}, errors.New("SMTP_URL: no host")
	}
	cfg.Port = defaultPort(cfg.TLS)
	if p := u.Port(); p != "" {
		port, err := strconv.Atoi(p)
		if err != nil || port < 1 || port > 65535 {
			return Config{}, errors.New("SMTP_URL: port must be a number from 1 to 65535")
		}
		cfg.Port = port
	}

	if u.User != nil {
		cfg.Username = u.User.Username()
		cfg.Password, _ = u.User.Password()
		if cfg.Username == "" && cfg.Password != "" {
			return Config{}, errors.New("SMTP_URL: password without a user name")
		}
	}
	return cfg, nil
}

// String is the config as an SMTP_URL with the user name and password masked: a user name is
// half of the credentials, and with some providers an access key id of its own.
func (c Config) String() string {
	u := url.URL{
		Scheme:   "smtp",
		Host:     net.JoinHostPort(c.Host, strconv.Itoa(c.Port)),
		RawQuery: "tls=" + url.QueryEscape(c.TLS),
	}
	switch {
	case c.Username != "" && c.Password != "":
		u.User = url.UserPassword("xxxxx", "xxxxx")
	case c.Username != "":
		u.User = url.User("xxxxx")
	}
	return u.String()
}

// GoString keeps %#v from printing the password field.
func (c Config) GoString() string { return "smtpclient.Config(" + c.String() + ")" }

// LogValue logs the host, port, TLS mode and whether the mailer authenticates, never the user
// name or the password.
func (c Config) LogValue() slog.Value {
	attrs := []slog.Attr{
		slog.String("host", c.Host),
		slog.Int("port", c.Port),
		slog.String("tls", c.TLS),
		slog.Bool("auth", c.Username != ""),
	}
	if c.MaxPerDomain > 0 {
		attrs = append(attrs, slog.Int("max_per_domain", c.MaxPerDomain))
	}
	return slog.GroupValue(attrs...)
}
