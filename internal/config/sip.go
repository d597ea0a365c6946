package config

import (
	"fmt"
	"net"
	"strings"
	"time"
)

// SIP is the self-check kiosks' listener (package kiosk): SIP2 over TCP, or TLS when given a
// certificate and its key. Unset SIP_ADDR serves no kiosk. A kiosk's PIN and its terminal's
// password cross the connection, so a plain listener on an address other than this machine's is
// said loudly at start: kiosks belong on a network of their own, or behind TLS.
type SIP struct {
	// Addr is where kiosks connect (SIP_ADDR), such as :6001; empty serves none.
	Addr string
	// TLSCert and TLSKey are the PEM files of the listener's certificate and key (SIP_TLS_CERT,
	// SIP_TLS_KEY): both or neither.
	TLSCert, TLSKey string
	// LineEnd ends each message: "cr" (the specification's), "lf" or "crlf" (SIP_LINE_END).
	LineEnd string
	// Charset is the text's encoding: "utf-8" or "cp850" (IBM850, SIP_CHARSET).
	Charset string
	// IdleTimeout closes a connection that sent nothing for that long (SIP_IDLE_TIMEOUT).
	IdleTimeout time.Duration
	// MaxConnections bounds the kiosks connected to one replica at once (SIP_MAX_CONNECTIONS).
	MaxConnections int
	// PINLockout is how long a card stays locked after five wrong PINs in a row, at every kiosk
	// (SIP_PIN_LOCKOUT).
	PINLockout time.Duration
	// Institution is the institution id (AO) the service answers with and expects
	// (SIP_INSTITUTION).
	Institution string
}

// TLS reports whether the listener speaks TLS.
func (s SIP) TLS() bool { return s.TLSCert != "" }

// InTheClear reports whether kiosks' PINs and passwords would cross a network unencrypted: a
// plain listener on an address other than loopback.
func (s SIP) InTheClear() bool {
	return s.Addr != "" && !s.TLS() && !onThisMachine(s.Addr)
}

// LineTerminator is LineEnd as bytes.
func (s SIP) LineTerminator() string {
	return map[string]string{"cr": "\r", "lf": "\n", "crlf": "\r\n"}[s.LineEnd]
}

func (s SIP) check() error {
	switch {
	case (s.TLSCert == "") != (s.TLSKey == ""):
		return fmt.Errorf("SIP_TLS_CERT and SIP_TLS_KEY go together: set both for TLS, or neither")
	case s.TLS() && s.Addr == "":
		return fmt.Errorf("SIP_TLS_CERT is set but SIP_ADDR is not: set SIP_ADDR to serve kiosks over TLS")
	case s.Addr != "":
		if _, _, err := net.SplitHostPort(s.Addr); err != nil {
			return fmt.Errorf("SIP_ADDR must be host:port or :port, such as :6001")
		}
	}
	return nil
}

// institution reads SIP_INSTITUTION: printable text without the protocol's separator.
func institution(name, value string) (string, error) {
	if value == "" || len(value) > 64 || strings.ContainsAny(value, "|\r\n") {
		return "", fmt.Errorf("%s must be 1 to 64 characters, without | or line ends", name)
	}
	return value, nil
}
