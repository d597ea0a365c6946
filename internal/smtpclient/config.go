package smtpclient

import (
	"crypto/tls"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"time"

	"library/internal/config"
)

// TLS modes of Config.
const (
	TLSNone     = config.SMTPTLSNone     // plain text; only for a relay on the same host or network
	TLSStartTLS = config.SMTPTLSStartTLS // plain connection upgraded with STARTTLS, which is mandatory
	TLSImplicit = config.SMTPTLSImplicit // TLS from the first byte ("SMTPS")
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
const DefaultMaxPerDomain = config.DefaultSMTPMaxPerDomain

// ParseURL reads SMTP_URL (config.ParseSMTPURL says how) into the config that reaches the
// server it names.
func ParseURL(s string) (Config, error) {
	server, err := config.ParseSMTPURL(s)
	if err != nil {
		return Config{}, err
	}
	return FromServer(server), nil
}

// FromServer is the config that reaches server, with the defaults for the rest.
func FromServer(server config.SMTPServer) Config {
	return Config{Host: server.Host, Port: server.Port, Username: server.Username, Password: server.Password, TLS: server.TLS}
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
