package config_test

import (
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/config"
)

// The outbox's limits: SMTP_MAX_IN_FLIGHT a whole number above 0 (default 16), SMTP_MAX_RATE a
// rate of 0 or more (default 0, no cap); anything else is refused, naming the variable.
func TestConfigSMTPLimits(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	cfg, err := config.FromEnv(env(nil))
	if err != nil || cfg.SMTPMaxInFlight != 16 || cfg.SMTPMaxRate != 0 {
		t.Fatalf("defaults: %d in flight, rate %v, %v", cfg.SMTPMaxInFlight, cfg.SMTPMaxRate, err)
	}
	cfg, err = config.FromEnv(env(map[string]string{"SMTP_MAX_IN_FLIGHT": "4", "SMTP_MAX_RATE": "0.5"}))
	if err != nil || cfg.SMTPMaxInFlight != 4 || cfg.SMTPMaxRate != 0.5 {
		t.Fatalf("set: %d in flight, rate %v, %v", cfg.SMTPMaxInFlight, cfg.SMTPMaxRate, err)
	}
	for name, values := range map[string][]string{
		"SMTP_MAX_IN_FLIGHT": {"0", "-1", "many", "1.5"},
		"SMTP_MAX_RATE":      {"-1", "fast", "NaN", "Inf", "1e400"},
	} {
		for _, v := range values {
			_, err := config.FromEnv(env(map[string]string{name: v}))
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: %v, want an error naming it", name, v, err)
			}
		}
	}
}

// SMTP_MAX_PER_DOMAIN is a whole number above 0, 4 by default; anything else is refused,
// naming the variable.
func TestConfigSMTPMaxPerDomain(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	cfg, err := config.FromEnv(env(nil))
	require.NoError(t, err)
	assert.Equal(t, 4, cfg.SMTPMaxPerDomain)
	cfg, err = config.FromEnv(env(map[string]string{"SMTP_MAX_PER_DOMAIN": "2"}))
	require.NoError(t, err)
	assert.Equal(t, 2, cfg.SMTPMaxPerDomain)
	for _, v := range []string{"0", "-1", "some", "1.5"} {
		_, err := config.FromEnv(env(map[string]string{"SMTP_MAX_PER_DOMAIN": v}))
		if assert.Error(t, err, v) {
			assert.Contains(t, err.Error(), "SMTP_MAX_PER_DOMAIN")
		}
	}
}

// The limits at the edge: RATE_LIMIT, AUTH_FAILURE_LIMIT, ACCOUNT_DATA_LIMIT and
// CATALOG_MAX_WAITS are whole numbers, 0 (no limit) or more; TRUSTED_PROXIES a list of
// addresses and prefixes; RATE_LIMIT_EXEMPT_LOOPBACK true or false, false by default (loopback
// may be a proxy's). Anything else is refused, naming the variable.
func TestConfigEdgeLimits(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	cfg, err := config.FromEnv(env(nil))
	require.NoError(t, err)
	require.Equal(t, []int{100, 10, 5, 64}, []int{cfg.RateLimit, cfg.AuthFailureLimit, cfg.AccountDataLimit, cfg.CatalogMaxWaits}, "defaults")
	require.Empty(t, cfg.TrustedProxies, "no proxy is trusted by default")
	require.False(t, cfg.RateLimitExemptLoopback, "loopback is counted by default")

	cfg, err = config.FromEnv(env(map[string]string{
		"RATE_LIMIT": "0", "AUTH_FAILURE_LIMIT": "3", "ACCOUNT_DATA_LIMIT": "0", "CATALOG_MAX_WAITS": "8",
		"TRUSTED_PROXIES":            " 10.1.2.3/8, 192.0.2.7 ,2001:db8::/32,::ffff:172.16.0.0/108, ::1",
		"RATE_LIMIT_EXEMPT_LOOPBACK": "true",
	}))
	require.NoError(t, err)
	require.True(t, cfg.RateLimitExemptLoopback)
	require.Equal(t, []int{0, 3, 0, 8}, []int{cfg.RateLimit, cfg.AuthFailureLimit, cfg.AccountDataLimit, cfg.CatalogMaxWaits})
	require.Equal(t, []netip.Prefix{
		netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("192.0.2.7/32"), netip.MustParsePrefix("2001:db8::/32"),
		netip.MustParsePrefix("172.16.0.0/12"), netip.MustParsePrefix("::1/128"),
	}, cfg.TrustedProxies)

	for name, values := range map[string][]string{
		"RATE_LIMIT":                 {"-1", "many", "1.5", "1e3"},
		"AUTH_FAILURE_LIMIT":         {"-1", "ten"},
		"ACCOUNT_DATA_LIMIT":         {"-5", "5/min"},
		"CATALOG_MAX_WAITS":          {"-1", "lots", " 64"},
		"RATE_LIMIT_EXEMPT_LOOPBACK": {"yes", "on"},
		"TRUSTED_PROXIES":            {"10.0.0.0/33", "proxy.example.org", "10.0.0.1:8080", "fe80::1%eth0", "::ffff:0:0/80", "10.0.0.1;10.0.0.2"},
	} {
		for _, v := range values {
			_, err := config.FromEnv(env(map[string]string{name: v}))
			if err == nil || !strings.Contains(err.Error(), name) {
				t.Errorf("%s=%q: %v, want an error naming it", name, v, err)
			}
		}
	}
}
