package app

import (
	"fmt"
	"math"
	"net/mail"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"go.opentelemetry.io/otel/trace"

	"library/internal/aggregate"
	"library/internal/latefines"
	"library/internal/processor"
	"library/internal/smtpclient"
)

// Config is everything the service reads from its environment.
type Config struct {
	// DatabaseURL is the PostgreSQL URL; empty runs in memory. It may hold a password: it is
	// never logged.
	DatabaseURL string
	// HTTPAddr is the listen address, such as ":8080".
	HTTPAddr string
	// ReplicaID names this process in logs and status.
	ReplicaID string
	// CommandIDsPerStream is how many recent command ids each stream remembers.
	CommandIDsPerStream int
	// AggregateCacheBytes bounds the aggregates each replica keeps in memory, per aggregate
	// type, by an estimate of their bytes (AGGREGATE_CACHE_BYTES). Negative keeps none.
	AggregateCacheBytes int
	// SnapshotEvery is how many events of a stream come between two of its snapshots
	// (SNAPSHOT_EVERY). Negative keeps none.
	SnapshotEvery int
	// LoanPeriod is the default loan length.
	LoanPeriod time.Duration
	// MigrateOnStart applies pending migrations when the service starts.
	MigrateOnStart bool
	// WebUI serves the web app (package web) at / and its files under /ui/, next to the API.
	// ConfigFromEnv turns it on unless WEB_UI=false; the zero Config serves the API alone.
	WebUI bool
	// RequestTimeout bounds each HTTP request, database calls included.
	RequestTimeout time.Duration
	// ShutdownDelay is how long the service keeps serving after it is told to stop, with
	// readiness off, so that load balancers stop sending it requests before it stops taking them.
	ShutdownDelay time.Duration
	// ShutdownTimeout bounds the drain of requests in flight at shutdown.
	ShutdownTimeout time.Duration
	// SMTPURL is where loan emails go (smtp://user:pass@host:port?tls=none|starttls|tls);
	// empty writes them to the log. It may hold a password: it is never logged.
	SMTPURL string
	// MailFrom is the sender of loan emails.
	MailFrom string
	// SMTPMaxInFlight is how many loan emails may be in flight at once, over as many SMTP
	// connections.
	SMTPMaxInFlight int
	// SMTPMaxRate caps the loan emails sent per second; 0 is no cap.
	SMTPMaxRate float64
	// SMTPMaxPerDomain is how many of those emails may be in flight to one recipient domain at
	// once, so that one slow domain can't take every connection.
	SMTPMaxPerDomain int
	// AdminToken is the break-glass bearer token for /status and the admin endpoints, for
	// scripts; it acts as an operator. Empty: none. At least MinAdminTokenLength characters.
	AdminToken string
	// AuthIssuer is the OpenID Connect provider whose access tokens the service trusts
	// (AUTH_ISSUER); AuthAudience must be among their audiences (AUTH_AUDIENCE).
	AuthIssuer   string
	AuthAudience string
	// AuthRolesClaim is the dotted path of the claim that lists a token's roles
	// (AUTH_ROLES_CLAIM, default "roles"); AuthMemberClaim the claim that holds the member id
	// (AUTH_MEMBER_CLAIM, default "sub").
	AuthRolesClaim  string
	AuthMemberClaim string
	// AuthClientID is the web app's client id at the provider (AUTH_CLIENT_ID).
	AuthClientID string
	// AuthOff runs without sign-in on purpose (AUTH=off): everyone may do everything but the
	// admin actions. It is refused together with AuthIssuer, and logged loudly.
	AuthOff bool
	// MetricsAddr, when set, serves /metrics there, apart from the API (METRICS_ADDR).
	MetricsAddr string
	// PIIKey holds the key-encryption keys of members' data keys (PII_KEY): a base64 32-byte
	// key, a list of id:key pairs (the current first), or the path of a file holding either.
	// Required with DatabaseURL. It is a secret: never logged.
	PIIKey string
	// CORSOrigins are the browser origins (such as https://library.example.org, or *) whose
	// pages may call the API; none by default.
	CORSOrigins []string
	// LeaseRetryInterval is how often a standby tries to take a lease.
	LeaseRetryInterval time.Duration
	// FinePerDay is the late fine in cents per day.
	FinePerDay int64
	// Processors tunes background work; tests shorten its waits. Not read from the
	// environment.
	Processors processor.Options
	// LeaseTiming tunes leases beyond LeaseRetryInterval; tests shorten it. Not read from the
	// environment.
	LeaseTiming processor.LeaseTiming
	// CatalogWait is how long GET /books waits for minPosition (default 5s). Not read from the
	// environment.
	CatalogWait time.Duration
	// PprofAddr, when set, serves Go's runtime profiles there (PPROF_ADDR), apart from the API.
	PprofAddr string
	// LogLevel is debug, info, warn or error; LogFormat is json or text.
	LogLevel  string
	LogFormat string
	// Now is the clock; nil means time.Now. Tests replace it.
	Now func() time.Time
	// TracerProvider, when set, traces requests, commands, database calls, emails and the
	// saga's commands; nil traces nothing. Not read by ConfigFromEnv: cmd/library makes it from
	// the OTEL_* variables (package telemetry).
	TracerProvider trace.TracerProvider

	// Limits at the edge.
	// RateLimit is how many requests a second one client may make (RATE_LIMIT);
	// AuthFailureLimit how many refused tokens a minute one address may send before no token
	// from it is checked (AUTH_FAILURE_LIMIT); AccountDataLimit how many exports, and erasures,
	// of accounts a minute one client may ask for (ACCOUNT_DATA_LIMIT); CatalogMaxWaits how
	// many reads of GET /books may wait for minPosition at once (CATALOG_MAX_WAITS). 0 is no
	// limit: ConfigFromEnv sets the documented defaults, and the zero Config limits nothing.
	RateLimit        int
	AuthFailureLimit int
	AccountDataLimit int
	CatalogMaxWaits  int
	// TrustedProxies are the proxies whose X-Forwarded-For tells a client's address
	// (TRUSTED_PROXIES); none by default.
	TrustedProxies []netip.Prefix

	// database and smtp are DatabaseURL and SMTPURL, parsed once, by parseURLs: nil while
	// unparsed or unset.
	database *pgxpool.Config
	smtp     *smtpclient.Config
}

// Defaults of the documented configuration.
const (
	DefaultHTTPAddr            = ":8080"
	DefaultCommandIDsPerStream = 100
	DefaultAggregateCacheBytes = aggregate.DefaultCacheBytes
	DefaultSnapshotEvery       = aggregate.DefaultSnapshotEvery
	DefaultLoanPeriod          = 14 * 24 * time.Hour
	DefaultRequestTimeout      = 10 * time.Second
	DefaultShutdownTimeout     = 20 * time.Second
	DefaultMailFrom            = "library@localhost"
	DefaultSMTPMaxInFlight     = 16
	DefaultSMTPMaxPerDomain    = smtpclient.DefaultMaxPerDomain
	DefaultFinePerDay          = latefines.DefaultFinePerDay
)

func (c Config) withDefaults() Config {
	if c.HTTPAddr == "" {
		c.HTTPAddr = DefaultHTTPAddr
	}
	if c.ReplicaID == "" {
		c.ReplicaID, _ = os.Hostname()
	}
	if c.CommandIDsPerStream <= 0 {
		c.CommandIDsPerStream = DefaultCommandIDsPerStream
	}
	if c.LoanPeriod <= 0 {
		c.LoanPeriod = DefaultLoanPeriod
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = DefaultShutdownTimeout
	}
	if c.MailFrom == "" {
		c.MailFrom = DefaultMailFrom
	}
	if c.SMTPMaxInFlight <= 0 {
		c.SMTPMaxInFlight = DefaultSMTPMaxInFlight
	}
	if c.SMTPMaxPerDomain <= 0 {
		c.SMTPMaxPerDomain = DefaultSMTPMaxPerDomain
	}
	if c.smtp != nil {
		// The mailer is made from the parsed SMTP_URL, and the limit goes with it.
		smtp := *c.smtp
		smtp.MaxPerDomain = c.SMTPMaxPerDomain
		c.smtp = &smtp
	}
	if c.LeaseRetryInterval <= 0 {
		c.LeaseRetryInterval = processor.DefaultLeaseRetryInterval
	}
	if c.FinePerDay <= 0 {
		c.FinePerDay = DefaultFinePerDay
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// ConfigFromEnv reads the configuration from environment variables (see the README's table).
// Unset variables take their defaults; a set variable that can't be read is an error naming the
// variable, never repeating its value.
func ConfigFromEnv(getenv func(string) string) (Config, error) {
	c := Config{
		DatabaseURL: getenv("DATABASE_URL"),
		HTTPAddr:    getenv("HTTP_ADDR"),
		ReplicaID:   getenv("REPLICA_ID"),
		SMTPURL:     getenv("SMTP_URL"),
		MailFrom:    getenv("MAIL_FROM"),
		AdminToken:  getenv("ADMIN_TOKEN"),
		PprofAddr:   getenv("PPROF_ADDR"),
		MetricsAddr: getenv("METRICS_ADDR"),
		PIIKey:      getenv("PII_KEY"),
		LogLevel:    or(getenv("LOG_LEVEL"), "info"),
		LogFormat:   or(getenv("LOG_FORMAT"), "json"),
	}
	var err error
	if c.CommandIDsPerStream, err = positiveInt(getenv, "COMMAND_IDS_PER_STREAM", DefaultCommandIDsPerStream); err != nil {
		return Config{}, err
	}
	if c.AggregateCacheBytes, err = positiveInt(getenv, "AGGREGATE_CACHE_BYTES", DefaultAggregateCacheBytes); err != nil {
		return Config{}, err
	}
	if c.SnapshotEvery, err = positiveInt(getenv, "SNAPSHOT_EVERY", DefaultSnapshotEvery); err != nil {
		return Config{}, err
	}
	if c.LoanPeriod, err = positiveDuration(getenv, "LOAN_PERIOD", DefaultLoanPeriod); err != nil {
		return Config{}, err
	}
	if c.RequestTimeout, err = positiveDuration(getenv, "REQUEST_TIMEOUT", DefaultRequestTimeout); err != nil {
		return Config{}, err
	}
	if c.ShutdownTimeout, err = positiveDuration(getenv, "SHUTDOWN_TIMEOUT", DefaultShutdownTimeout); err != nil {
		return Config{}, err
	}
	if c.ShutdownDelay, err = duration(getenv, "SHUTDOWN_DELAY", 0); err != nil {
		return Config{}, err
	}
	if c.MigrateOnStart, err = boolean(getenv, "MIGRATE_ON_START", true); err != nil {
		return Config{}, err
	}
	if c.WebUI, err = boolean(getenv, "WEB_UI", true); err != nil {
		return Config{}, err
	}
	if c.LeaseRetryInterval, err = positiveDuration(getenv, "LEASE_RETRY_INTERVAL", processor.DefaultLeaseRetryInterval); err != nil {
		return Config{}, err
	}
	if c.CORSOrigins, err = origins(getenv, "CORS_ORIGINS"); err != nil {
		return Config{}, err
	}
	if c.SMTPMaxInFlight, err = positiveInt(getenv, "SMTP_MAX_IN_FLIGHT", DefaultSMTPMaxInFlight); err != nil {
		return Config{}, err
	}
	if c.SMTPMaxPerDomain, err = positiveInt(getenv, "SMTP_MAX_PER_DOMAIN", DefaultSMTPMaxPerDomain); err != nil {
		return Config{}, err
	}
	if c.SMTPMaxRate, err = rate(getenv, "SMTP_MAX_RATE"); err != nil {
		return Config{}, err
	}
	finePerDay, err := positiveInt(getenv, "FINE_PER_DAY", DefaultFinePerDay)
	if err != nil {
		return Config{}, err
	}
	c.FinePerDay = int64(finePerDay)
	if c.MailFrom != "" {
		if _, err := mail.ParseAddress(c.MailFrom); err != nil {
			return Config{}, fmt.Errorf("MAIL_FROM must be an email address such as library@example.org")
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		return Config{}, fmt.Errorf("LOG_LEVEL must be debug, info, warn or error")
	}
	switch c.LogFormat {
	case "json", "text":
	default:
		return Config{}, fmt.Errorf("LOG_FORMAT must be json or text")
	}
	if c, err = authFromEnv(c, getenv); err != nil {
		return Config{}, err
	}
	if c, err = edgeFromEnv(c, getenv); err != nil {
		return Config{}, err
	}
	if c, err = c.parseURLs(); err != nil {
		return Config{}, err
	}
	return c.withDefaults(), nil
}

func or(value, fallback string) string {
	if value == "" {
		return fallback
	}
	return value
}

func positiveInt(getenv func(string) string, name string, fallback int) (int, error) {
	s := getenv(name)
	if s == "" {
		return fallback, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("%s must be a whole number above 0", name)
	}
	return n, nil
}

func positiveDuration(getenv func(string) string, name string, fallback time.Duration) (time.Duration, error) {
	s := getenv(name)
	if s == "" {
		return fallback, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s must be a positive duration such as 500ms, 30s or 336h", name)
	}
	return d, nil
}

// rate reads a rate per second: 0 (no cap) or more, such as 14 or 0.5.
func rate(getenv func(string) string, name string) (float64, error) {
	s := getenv(name)
	if s == "" {
		return 0, nil
	}
	r, err := strconv.ParseFloat(s, 64)
	if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
		return 0, fmt.Errorf("%s must be a number of messages per second, 0 or more, such as 14 or 0.5", name)
	}
	return r, nil
}

func duration(getenv func(string) string, name string, fallback time.Duration) (time.Duration, error) {
	s := getenv(name)
	if s == "" {
		return fallback, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%s must be a duration such as 0s, 5s or 1m", name)
	}
	return d, nil
}

// origins reads a comma-separated list of browser origins: "*", or scheme://host[:port].
func origins(getenv func(string) string, name string) ([]string, error) {
	var out []string
	for _, o := range strings.Split(getenv(name), ",") {
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

func boolean(getenv func(string) string, name string, fallback bool) (bool, error) {
	s := getenv(name)
	if s == "" {
		return fallback, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, fmt.Errorf("%s must be true or false", name)
	}
	return b, nil
}

// parseURLs parses DatabaseURL and SMTPURL, each unless it is parsed already: ConfigFromEnv
// parses them, and New and MigrateDatabase find them parsed; a Config made in code (tests) has
// them parsed by New. This is the one place either URL is read.
func (c Config) parseURLs() (Config, error) {
	if c.DatabaseURL != "" && c.database == nil {
		database, err := ParsePoolConfig(c.DatabaseURL)
		if err != nil {
			return Config{}, err
		}
		c.database = database
	}
	if c.SMTPURL != "" && c.smtp == nil {
		smtp, err := smtpclient.ParseURL(c.SMTPURL)
		if err != nil {
			return Config{}, err
		}
		c.smtp = &smtp
	}
	return c, nil
}

// ParsePoolConfig reads a PostgreSQL URL. The error never repeats the URL, which may hold a
// password.
func ParsePoolConfig(databaseURL string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:]
		} else {
			msg = "not a PostgreSQL connection string"
		}
		return nil, fmt.Errorf("DATABASE_URL: %s; want a PostgreSQL URL such as postgres://user:password@host:5432/library", msg)
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = 5 * time.Second
	}
	if _, set := cfg.ConnConfig.RuntimeParams[idleInTransaction]; !set {
		cfg.ConnConfig.RuntimeParams[idleInTransaction] = strconv.FormatInt(DefaultIdleInTransaction.Milliseconds(), 10)
	}
	return cfg, nil
}

// idleInTransaction is the PostgreSQL setting that ends a session left idle inside a
// transaction.
const idleInTransaction = "idle_in_transaction_session_timeout"

// DefaultIdleInTransaction is the idle_in_transaction_session_timeout of the service's own
// sessions, unless DATABASE_URL sets one. None of its transactions waits between statements,
// so only a session whose client is gone (a replica cut off from the database in the middle of
// a transaction) reaches it: the server then ends it, releasing its row locks and the log's
// read horizon, which every processor in the cluster waits on, instead of keeping it until
// TCP notices.
const DefaultIdleInTransaction = 10 * time.Second
