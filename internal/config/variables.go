package config

import (
	"net/netip"
	"strconv"
	"time"
)

// A Variable is one environment variable of the service: its name, the value it takes when
// unset, and the field of Config it sets.
type Variable struct {
	// Name is the variable, such as HTTP_ADDR.
	Name string
	// Default is the value the variable takes when unset, as docs/configuration.md gives it;
	// "" when unset means none, off, what is found at start (REPLICA_ID: the host name), or
	// what the other variables make it (HTTP_ADDR: see Complete).
	Default string
	field   field
}

// field is how a Variable's value reaches its field of a Config.
type field struct {
	// read sets the field from a value, the environment's or the default; its error names the
	// variable.
	read func(c *Config, name, value string) error
	// zero reports whether a Config leaves the field zero, for Complete to give it the
	// default; nil where zero means what it says (0: no limit, false: off, "": none).
	zero func(c *Config) bool
}

// to is a field that parse reads, at the place at gives: zero stands.
func to[T any](parse func(name, value string) (T, error), at func(*Config) *T) field {
	return field{read: func(c *Config, name, value string) error {
		v, err := parse(name, value)
		if err != nil {
			return err
		}
		*at(c) = v
		return nil
	}}
}

// orDefault is a field that parse reads, at the place at gives, and that takes the default
// when a Config made in code leaves it zero.
func orDefault[T comparable](parse func(name, value string) (T, error), at func(*Config) *T) field {
	f := to(parse, at)
	f.zero = func(c *Config) bool {
		var zero T
		return *at(c) == zero
	}
	return f
}

// Variables are the variables the service reads, in the order of docs/configuration.md: the
// one place their defaults are stated (those that belong to another package are its
// constants, written as the table gives them).
var Variables = []Variable{
	{"DATABASE_URL", "", to(text, func(c *Config) *string { return &c.DatabaseURL })},
	{"HTTP_ADDR", "", orDefault(text, func(c *Config) *string { return &c.HTTPAddr })}, // unset: see Complete
	{"REPLICA_ID", "", orDefault(hostName, func(c *Config) *string { return &c.ReplicaID })},
	{"COMMAND_IDS_PER_STREAM", "100", orDefault(positiveInt, func(c *Config) *int { return &c.CommandIDsPerStream })},
	{"AGGREGATE_CACHE_BYTES", strconv.Itoa(DefaultAggregateCacheBytes), orDefault(positiveInt, func(c *Config) *int { return &c.AggregateCacheBytes })},
	{"SNAPSHOT_EVERY", strconv.Itoa(DefaultSnapshotEvery), orDefault(positiveInt, func(c *Config) *int { return &c.SnapshotEvery })},
	{"LOAN_PERIOD", "336h", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.LoanPeriod })},
	{"RENEWALS_MAX", "2", orDefault(positiveInt, func(c *Config) *int { return &c.RenewalsMax })},
	{"HOLDS_MAX", "20", orDefault(positiveInt, func(c *Config) *int { return &c.HoldsMax })},
	{"HOLD_PICKUP", "72h", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.HoldPickup })},
	{"MAX_LOANS", "10", orDefault(positiveInt, func(c *Config) *int { return &c.MaxLoans })},
	{"BLOCK_AT", "1000", orDefault(positiveInt64, func(c *Config) *int64 { return &c.BlockAt })},
	{"FINE_PER_DAY", strconv.Itoa(DefaultFinePerDay), orDefault(positiveInt64, func(c *Config) *int64 { return &c.FinePerDay })},
	{"LIBRARY_TIMEZONE", "UTC", orDefault(zone, func(c *Config) **time.Location { return &c.Timezone })},
	{"SMTP_URL", "", to(text, func(c *Config) *string { return &c.SMTPURL })},
	{"MAIL_FROM", "library@localhost", orDefault(emailAddress, func(c *Config) *string { return &c.MailFrom })},
	{"SMTP_MAX_IN_FLIGHT", "16", orDefault(positiveInt, func(c *Config) *int { return &c.SMTPMaxInFlight })},
	{"SMTP_MAX_PER_DOMAIN", strconv.Itoa(DefaultSMTPMaxPerDomain), orDefault(positiveInt, func(c *Config) *int { return &c.SMTPMaxPerDomain })},
	{"SMTP_TIMEOUT", "10s", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.SMTPTimeout })},
	{"SMTP_MAX_RATE", "0", to(rate, func(c *Config) *float64 { return &c.SMTPMaxRate })},
	{"REMIND_BEFORE", "48h", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.RemindBefore })},
	{"OVERDUE_AFTER", "24h", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.OverdueAfter })},
	{"OVERDUE_EVERY", "168h", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.OverdueEvery })},
	{"OVERDUE_NOTICES", "3", orDefault(positiveInt, func(c *Config) *int { return &c.OverdueNotices })},
	{"EMAIL_ADDRESS_WAIT", "72h", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.EmailAddressWait })},
	{"AUTH_ISSUER", "", to(text, func(c *Config) *string { return &c.AuthIssuer })},
	{"AUTH_AUDIENCE", "", to(text, func(c *Config) *string { return &c.AuthAudience })},
	{"AUTH_ROLES_CLAIM", "roles", orDefault(text, func(c *Config) *string { return &c.AuthRolesClaim })},
	{"AUTH_MEMBER_CLAIM", "sub", orDefault(text, func(c *Config) *string { return &c.AuthMemberClaim })},
	{"AUTH_CLIENT_ID", "", to(text, func(c *Config) *string { return &c.AuthClientID })},
	{"AUTH_LOGOUT_ID_TOKEN_HINT", "false", to(boolean, func(c *Config) *bool { return &c.AuthLogoutIDTokenHint })},
	{"AUTH", "", to(authOff, func(c *Config) *bool { return &c.AuthOff })},
	{"ADMIN_TOKEN", "", to(text, func(c *Config) *string { return &c.AdminToken })},
	{"PII_KEY", "", to(text, func(c *Config) *string { return &c.PIIKey })},
	{"PAYMENTS", "", to(paymentsProvider, func(c *Config) *string { return &c.Payments.Provider })},
	{"STRIPE_SECRET_KEY", "", to(text, func(c *Config) *string { return &c.Payments.StripeSecretKey })},
	{"STRIPE_WEBHOOK_SECRET", "", to(text, func(c *Config) *string { return &c.Payments.StripeWebhookSecret })},
	{"STRIPE_API_URL", DefaultStripeAPIURL, orDefault(text, func(c *Config) *string { return &c.Payments.StripeAPIURL })},
	{"PUBLIC_URL", "", to(publicURL, func(c *Config) *string { return &c.Payments.PublicURL })},
	{"PAYMENTS_CURRENCY", "eur", orDefault(currency, func(c *Config) *string { return &c.Payments.Currency })},
	{"CHECKOUT_EXPIRES_AFTER", "30m", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.Payments.ExpiresAfter })},
	{"CHECKOUT_RECONCILE_AFTER", "5m", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.Payments.ReconcileAfter })},
	{"CHECKOUTS_OPEN_MAX", "3", orDefault(positiveInt, func(c *Config) *int { return &c.Payments.OpenMax })},
	{"SIP_ADDR", "", to(text, func(c *Config) *string { return &c.SIP.Addr })},
	{"SIP_TLS_CERT", "", to(text, func(c *Config) *string { return &c.SIP.TLSCert })},
	{"SIP_TLS_KEY", "", to(text, func(c *Config) *string { return &c.SIP.TLSKey })},
	{"SIP_LINE_END", "cr", orDefault(oneOf("cr", "lf", "crlf"), func(c *Config) *string { return &c.SIP.LineEnd })},
	{"SIP_CHARSET", "utf-8", orDefault(oneOf("utf-8", "cp850"), func(c *Config) *string { return &c.SIP.Charset })},
	{"SIP_IDLE_TIMEOUT", "10m", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.SIP.IdleTimeout })},
	{"SIP_MAX_CONNECTIONS", "256", orDefault(positiveInt, func(c *Config) *int { return &c.SIP.MaxConnections })},
	{"SIP_PIN_LOCKOUT", "15m", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.SIP.PINLockout })},
	{"SIP_INSTITUTION", "library", orDefault(institution, func(c *Config) *string { return &c.SIP.Institution })},
	{"METRICS_ADDR", "", to(text, func(c *Config) *string { return &c.MetricsAddr })},
	{"CORS_ORIGINS", "", to(origins, func(c *Config) *[]string { return &c.CORSOrigins })},
	{"OPERATIONS_REPLICAS", "", to(replicaURLs, func(c *Config) *[]string { return &c.OperationsReplicas })},
	{"RATE_LIMIT", "100", to(limit, func(c *Config) *int { return &c.RateLimit })},
	{"RATE_LIMIT_EXEMPT_LOOPBACK", "false", to(boolean, func(c *Config) *bool { return &c.RateLimitExemptLoopback })},
	{"AUTH_FAILURE_LIMIT", "10", to(limit, func(c *Config) *int { return &c.AuthFailureLimit })},
	{"ACCOUNT_DATA_LIMIT", "5", to(limit, func(c *Config) *int { return &c.AccountDataLimit })},
	{"TRUSTED_PROXIES", "", to(prefixes, func(c *Config) *[]netip.Prefix { return &c.TrustedProxies })},
	{"CATALOG_MAX_WAITS", "64", to(limit, func(c *Config) *int { return &c.CatalogMaxWaits })},
	{"LEASE_RETRY_INTERVAL", DefaultLeaseRetryInterval.String(), orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.LeaseRetryInterval })},
	{"MIGRATE_ON_START", "true", to(boolean, func(c *Config) *bool { return &c.MigrateOnStart })},
	{"WEB_UI", "true", to(boolean, func(c *Config) *bool { return &c.WebUI })},
	{"REQUEST_TIMEOUT", "10s", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.RequestTimeout })},
	{"SHUTDOWN_DELAY", "0s", to(duration, func(c *Config) *time.Duration { return &c.ShutdownDelay })},
	{"SHUTDOWN_TIMEOUT", "20s", orDefault(positiveDuration, func(c *Config) *time.Duration { return &c.ShutdownTimeout })},
	{"PPROF_ADDR", "", to(text, func(c *Config) *string { return &c.PprofAddr })},
	{"LOG_LEVEL", "info", orDefault(oneOf("debug", "info", "warn", "error"), func(c *Config) *string { return &c.LogLevel })},
	{"LOG_FORMAT", "json", orDefault(oneOf("json", "text"), func(c *Config) *string { return &c.LogFormat })},
}

// FromEnv reads the configuration from environment variables (docs/configuration.md). Unset
// variables take their defaults; a set variable that can't be read is an error naming the
// variable, never repeating its value. The Config comes back Complete.
func FromEnv(getenv func(string) string) (Config, error) {
	var c Config
	for _, v := range Variables {
		value := getenv(v.Name)
		if value == "" {
			value = v.Default
		}
		if err := v.field.read(&c, v.Name, value); err != nil {
			return Config{}, err
		}
	}
	return c.Complete()
}

// Defaults is the configuration of an empty environment: every variable at its default.
func Defaults() Config {
	c, err := FromEnv(func(string) string { return "" })
	if err != nil {
		panic(err) // a default that can't be read: TestDefaultsRead says which
	}
	return c
}

// Complete is c as the service runs with it: each field that takes a default when left zero
// and is (a Config made in code) takes it, from Variables, and HTTPAddr its default, which
// depends on whether the service is open (defaultHTTPAddr); the clock is time.Now unless
// Tuning brings one; and DatabaseURL and SMTPURL are parsed, unless parsed already (FromEnv
// parses them, and New and the commands of the command line find them parsed). This is the
// one place either URL is read.
func (c Config) Complete() (Config, error) {
	for _, v := range Variables {
		if v.field.zero != nil && v.field.zero(&c) {
			if err := v.field.read(&c, v.Name, v.Default); err != nil {
				return Config{}, err
			}
		}
	}
	if c.HTTPAddr == "" {
		c.HTTPAddr = c.defaultHTTPAddr()
	}
	if c.Tuning.Now == nil {
		c.Tuning.Now = time.Now
	}
	return c.parseURLs()
}

// The addresses the service listens on when HTTP_ADDR is unset: every interface when it signs
// people in, this machine only when it is open (no AUTH_ISSUER), since anyone who reaches an
// open service may do anything.
const (
	DefaultHTTPAddr = ":8080"
	OpenHTTPAddr    = "127.0.0.1:8080"
)

func (c Config) defaultHTTPAddr() string {
	if c.Open() {
		return OpenHTTPAddr
	}
	return DefaultHTTPAddr
}

// Open reports whether the service runs without sign-in (no AUTH_ISSUER: in memory, or with
// AUTH=off), when anyone who reaches it may do anything.
func (c Config) Open() bool { return c.AuthIssuer == "" }
