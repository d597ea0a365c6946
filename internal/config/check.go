package config

import (
	"fmt"
	"net"
	"net/url"
)

// Check refuses settings that would leave the service less safe than it looks, naming the
// variable: an open service on a real database that nobody chose to open, members' data on a
// real database without PII_KEY, a provider without an audience, over plain http, or whose
// audience is the web app's client id, an admin token short enough to guess, and Go's profiles
// served off this machine. The service checks them at start; the commands of the
// command line, which serve nobody, don't.
func (c Config) Check() error {
	switch {
	case c.AuthOff && c.AuthIssuer != "":
		return fmt.Errorf("AUTH=off and AUTH_ISSUER are both set: unset one")
	case c.AuthIssuer == "" && c.DatabaseURL != "" && !c.AuthOff:
		return fmt.Errorf("AUTH_ISSUER is unset: with DATABASE_URL the service needs an OpenID Connect provider to sign people in " +
			"(set AUTH_ISSUER and AUTH_AUDIENCE), or AUTH=off to run without sign-in on purpose")
	case c.AuthIssuer != "" && c.AuthAudience == "":
		return fmt.Errorf("AUTH_AUDIENCE is unset: set it to the audience the provider puts in access tokens for this service")
	case c.AuthIssuer != "" && c.AuthClientID == "":
		return fmt.Errorf("AUTH_CLIENT_ID is unset: set it to the web app's client id at the provider, so that the web app's " +
			"ID tokens, which name it, are never taken for access tokens")
	case c.AuthIssuer != "" && c.AuthClientID == c.AuthAudience:
		return fmt.Errorf("AUTH_CLIENT_ID is AUTH_AUDIENCE: the web app's ID tokens name its client id as their audience, " +
			"so they would pass for access tokens; give the service an audience of its own at the provider")
	case c.PIIKey == "" && c.DatabaseURL != "":
		return fmt.Errorf("PII_KEY is unset: with DATABASE_URL, members' names and emails are sealed with keys that PII_KEY wraps; " +
			"set it to a base64 32-byte secret (head -c 32 /dev/urandom | base64), kept apart from the database's backups")
	case c.AdminToken != "" && len(c.AdminToken) < MinAdminTokenLength:
		return fmt.Errorf("ADMIN_TOKEN must be at least %d characters (try: openssl rand -hex 32)", MinAdminTokenLength)
	}
	if err := checkReplicas(c.OperationsReplicas); err != nil {
		return err
	}
	if err := c.checkPayments(); err != nil {
		return err
	}
	if err := c.SIP.check(); err != nil {
		return err
	}
	if c.PprofAddr != "" && !onThisMachine(c.PprofAddr) {
		return fmt.Errorf("PPROF_ADDR must be an address on this machine, such as 127.0.0.1:6060: " +
			"Go's profiles show what the service does and holds, to anyone who reaches them")
	}
	if c.AuthIssuer != "" {
		return checkIssuer(c.AuthIssuer)
	}
	return nil
}

// onThisMachine reports whether addr (host:port) listens on a loopback address only.
func onThisMachine(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	return err == nil && isLoopback(host)
}

// checkIssuer wants an https URL, or http on this machine (a provider for demos and tests).
func checkIssuer(issuer string) error {
	u, err := url.Parse(issuer)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("AUTH_ISSUER must be the provider's URL, such as https://login.example.org/realms/library")
	}
	switch {
	case u.Scheme == "https":
		return nil
	case u.Scheme == "http" && isLoopback(u.Hostname()):
		return nil
	}
	return fmt.Errorf("AUTH_ISSUER must be an https URL (plain http only on this machine: localhost or 127.0.0.1)")
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
