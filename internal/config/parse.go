package config

import (
	"fmt"
	"math"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The parsers of Variables: each reads a variable's value, or its default when it is unset,
// and says what the value must be in an error that names the variable, never repeating the
// value, which may be a secret.

func text(_, value string) (string, error) { return value, nil }

// hostName is the value, or else the host's name.
func hostName(_, value string) (string, error) {
	if value == "" {
		value, _ = os.Hostname()
	}
	return value, nil
}

func positiveInt(name, value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a whole number above 0", name)
	}
	return n, nil
}

func positiveInt64(name, value string) (int64, error) {
	n, err := positiveInt(name, value)
	return int64(n), err
}

// limit reads a whole number, 0 (no limit) or more.
func limit(name, value string) (int, error) {
	n, err := strconv.Atoi(value)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s must be a whole number, 0 (no limit) or more", name)
	}
	return n, nil
}

// rate reads a rate per second: 0 (no cap) or more, such as 14 or 0.5.
func rate(name, value string) (float64, error) {
	r, err := strconv.ParseFloat(value, 64)
	if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		return 0, fmt.Errorf("%s must be a number of messages per second, 0 or more, such as 14 or 0.5", name)
	}
	return r, nil
}

func positiveDuration(name, value string) (time.Duration, error) {
	d, err := time.ParseDuration(value)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be a positive duration such as 500ms, 30s or 336h", name)
	}
	return d, nil
}

func duration(name, value string) (time.Duration, error) {
	d, err := time.ParseDuration(value)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s must be a duration such as 0s, 5s or 1m", name)
	}
	return d, nil
}

func boolean(name, value string) (bool, error) {
	b, err := strconv.ParseBool(value)
	if err != nil {
		return false, fmt.Errorf("%s must be true or false", name)
	}
	return b, nil
}

// oneOf reads one of the words given.
func oneOf(words ...string) func(name, value string) (string, error) {
	return func(name, value string) (string, error) {
		if !slices.Contains(words, value) {
			list := strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
			return "", fmt.Errorf("%s must be %s", name, list)
		}
		return value, nil
	}
}

// authOff reads AUTH: unset, or off to run without sign-in.
func authOff(name, value string) (bool, error) {
	switch value {
	case "":
		return false, nil
	case "off":
		return true, nil
	}
	return false, fmt.Errorf("%s must be unset, or off to run without sign-in on purpose", name)
}

func emailAddress(name, value string) (string, error) {
	if _, err := mail.ParseAddress(value); err != nil {
		return "", fmt.Errorf("%s must be an email address such as library@example.org", name)
	}
	return value, nil
}

// origins reads a comma-separated list of browser origins: "*", or scheme://host[:port].
func origins(name, value string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(value, ",") {
		o = strings.TrimSpace(o)
		if o == "" {
			continue
		}
		if o != "*" {
			u, err := url.Parse(o)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.User != nil {
				return nil, fmt.Errorf("%s must be a comma-separated list of origins such as https://library.example.org, or *", name)
			}
		}
		out = append(out, o)
	}
	return out, nil
}

// prefixes reads a comma-separated list of IP addresses and CIDR prefixes; an address is a
// prefix of its own length.
func prefixes(name, value string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(value, ",") {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		p, err := netip.ParsePrefix(s)
		if err != nil {
			ip, ipErr := netip.ParseAddr(s)
			if ipErr != nil || ip.Zone() != "" {
				return nil, fmt.Errorf("%s must be a comma-separated list of IP addresses or CIDR prefixes, such as 10.0.0.0/8, 192.0.2.7", name)
			}
			ip = ip.Unmap()
			p = netip.PrefixFrom(ip, ip.BitLen())
		}
		if p.Addr().Is4In6() { // ::ffff:10.0.0.0/104 is 10.0.0.0/8: peers are compared unmapped
			if p.Bits() < 96 {
				return nil, fmt.Errorf("%s: an IPv4-mapped prefix must be /96 or longer", name)
			}
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
