package app

import (
	"fmt"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"library/internal/httpapi"
)

// Defaults of the limits at the edge: generous enough that no person, the web app, the test
// suites or the benchmark (whose clients are on this machine, which RATE_LIMIT does not count)
// reach them.
const (
	DefaultRateLimit        = 100 // requests a second per client
	DefaultAuthFailureLimit = 10  // refused tokens a minute per address
	DefaultAccountDataLimit = 5   // exports, and erasures, a minute per client
	DefaultCatalogMaxWaits  = 64  // reads of GET /books waiting for minPosition at once
)

// MaxHeaderBytes bounds a request's line and headers on the API's and the metrics' servers;
// net/http answers 431 past it (it allows 4 KiB more, for its buffering).
const MaxHeaderBytes = 64 << 10

// edgeFromEnv reads the limits at the edge: each a whole number, 0 for no limit.
func edgeFromEnv(c Config, getenv func(string) string) (Config, error) {
	var err error
	if c.RateLimit, err = limit(getenv, "RATE_LIMIT", DefaultRateLimit); err != nil {
		return Config{}, err
	}
	if c.AuthFailureLimit, err = limit(getenv, "AUTH_FAILURE_LIMIT", DefaultAuthFailureLimit); err != nil {
		return Config{}, err
	}
	if c.AccountDataLimit, err = limit(getenv, "ACCOUNT_DATA_LIMIT", DefaultAccountDataLimit); err != nil {
		return Config{}, err
	}
	if c.CatalogMaxWaits, err = limit(getenv, "CATALOG_MAX_WAITS", DefaultCatalogMaxWaits); err != nil {
		return Config{}, err
	}
	if c.TrustedProxies, err = prefixes(getenv, "TRUSTED_PROXIES"); err != nil {
		return Config{}, err
	}
	return c, nil
}

// limit reads a whole number, 0 (no limit) or more.
func limit(getenv func(string) string, name string, fallback int) (int, error) {
	s := getenv(name)
	if s == "" {
		return fallback, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s must be a whole number, 0 (no limit) or more", name)
	}
	return n, nil
}

// prefixes reads a comma-separated list of IP addresses and CIDR prefixes; an address is a
// prefix of its own length.
func prefixes(getenv func(string) string, name string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range strings.Split(getenv(name), ",") {
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

// edgeLimits are the Config's limits, as the router takes them.
func (c Config) edgeLimits() httpapi.Limits {
	return httpapi.Limits{
		Requests:     httpapi.Limit{N: c.RateLimit, Per: time.Second},
		AuthFailures: httpapi.Limit{N: c.AuthFailureLimit, Per: time.Minute},
		AccountData:  httpapi.Limit{N: c.AccountDataLimit, Per: time.Minute},
	}
}
