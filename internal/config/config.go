// Package config is the service's configuration: what operators set in the environment
// (Config, read by FromEnv), each variable with its default in one table (Variables, which
// docs/configuration.md lists and a test holds it to), and the checks that refuse a value that
// can't be read, or that would leave the service less safe than it looks (Check), each naming
// the variable and never repeating a secret.
//
// What no variable sets (the clock, the tracer, the waits that tests shorten) is kept apart,
// in Tuning: FromEnv leaves it zero, and the code that starts the service sets it.
package config

import (
	"net/netip"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// Config is what operators set: each field but Tuning is one variable of Variables, and
// docs/configuration.md gives each its default and meaning. A Config made in code takes the
// default of each field it leaves zero where zero would mean nothing (an address, a name, a
// count or a duration above 0; see Complete); elsewhere zero stands (empty: none, 0: no limit,
// false: off), so that the zero Config limits nothing, serves the API alone, runs in memory
// and applies no migration.
type Config struct {
	// DatabaseURL is the PostgreSQL URL (DATABASE_URL); empty runs in memory. It may hold a
	// password: it is never logged.
	DatabaseURL string
	// HTTPAddr is the listen address (HTTP_ADDR).
	HTTPAddr string
	// ReplicaID names this process in logs and status (REPLICA_ID; unset: the host name).
	ReplicaID string
	// CommandIDsPerStream is how many recent command ids each stream remembers
	// (COMMAND_IDS_PER_STREAM).
	CommandIDsPerStream int
	// AggregateCacheBytes bounds the aggregates each replica keeps in memory, per aggregate
	// type, by an estimate of their bytes (AGGREGATE_CACHE_BYTES). Negative keeps none.
	AggregateCacheBytes int
	// SnapshotEvery is how many events of a stream come between two of its snapshots
	// (SNAPSHOT_EVERY). Negative keeps none.
	SnapshotEvery int
	// LoanPeriod is the default loan length (LOAN_PERIOD).
	LoanPeriod time.Duration
	// RenewalsMax is how many times a loan may be renewed (RENEWALS_MAX).
	RenewalsMax int
	// HoldsMax is how many members may wait for one title (HOLDS_MAX); HoldPickup how long a
	// book waits on the hold shelf for the member it is held for (HOLD_PICKUP).
	HoldsMax   int
	HoldPickup time.Duration
	// MaxLoans is how many books one member may have out at once (MAX_LOANS); BlockAt how much,
	// in cents, a member may owe and still borrow, renew or place holds (BLOCK_AT).
	MaxLoans int
	BlockAt  int64
	// FinePerDay is the late fine in cents per day (FINE_PER_DAY).
	FinePerDay int64
	// Timezone is the library's time zone, whose clock says which day it is: the calendar's
	// days (LIBRARY_TIMEZONE, an IANA name).
	Timezone *time.Location
	// MigrateOnStart applies pending migrations when the service starts (MIGRATE_ON_START).
	MigrateOnStart bool
	// WebUI serves the web app (package web) at / and its files under /ui/, next to the API
	// (WEB_UI).
	WebUI bool
	// RequestTimeout bounds each HTTP request, database calls included (REQUEST_TIMEOUT).
	RequestTimeout time.Duration
	// ShutdownDelay is how long the service keeps serving after it is told to stop, with
	// readiness off, so that load balancers stop sending it requests before it stops taking
	// them (SHUTDOWN_DELAY).
	ShutdownDelay time.Duration
	// ShutdownTimeout bounds the drain of requests in flight at shutdown (SHUTDOWN_TIMEOUT).
	ShutdownTimeout time.Duration
	// SMTPURL is where loan emails go (SMTP_URL: smtp://user:pass@host:port?tls=...); empty
	// writes them to the log. It may hold a password: it is never logged.
	SMTPURL string
	// MailFrom is the sender of loan emails (MAIL_FROM).
	MailFrom string
	// SMTPMaxInFlight is how many loan emails may be in flight at once, over as many SMTP
	// connections (SMTP_MAX_IN_FLIGHT).
	SMTPMaxInFlight int
	// SMTPMaxPerDomain is how many of those emails may be in flight to one recipient domain at
	// once, so that one slow domain can't take every connection (SMTP_MAX_PER_DOMAIN).
	SMTPMaxPerDomain int
	// SMTPTimeout bounds connecting to the relay and each email's conversation with it.
	SMTPTimeout time.Duration
	// SMTPMaxRate caps the loan emails sent per second; 0 is no cap (SMTP_MAX_RATE).
	SMTPMaxRate float64
	// RemindBefore is how long before a loan's due time its due-soon reminder goes
	// (REMIND_BEFORE).
	RemindBefore time.Duration
	// OverdueAfter is how long after a loan's due time its first overdue notice goes
	// (OVERDUE_AFTER), OverdueEvery how long after each the next (OVERDUE_EVERY), and
	// OverdueNotices how many a loan gets at most (OVERDUE_NOTICES).
	OverdueAfter   time.Duration
	OverdueEvery   time.Duration
	OverdueNotices int
	// EmailAddressWait is how long a loan email, or a reminder, waits for its member's email
	// address before it is parked, or given up (EMAIL_ADDRESS_WAIT).
	EmailAddressWait time.Duration
	// AuthIssuer is the OpenID Connect provider whose access tokens the service trusts
	// (AUTH_ISSUER); AuthAudience must be among their audiences (AUTH_AUDIENCE).
	AuthIssuer   string
	AuthAudience string
	// AuthRolesClaim is the dotted path of the claim that lists a token's roles
	// (AUTH_ROLES_CLAIM); AuthMemberClaim the claim that holds the member id
	// (AUTH_MEMBER_CLAIM).
	AuthRolesClaim  string
	AuthMemberClaim string
	// AuthClientID is the web app's client id at the provider (AUTH_CLIENT_ID). Its ID tokens
	// are refused as access tokens, so it must differ from AuthAudience.
	AuthClientID string
	// AuthLogoutIDTokenHint has the web app send its ID token as id_token_hint when it signs
	// out, for providers that require one (AUTH_LOGOUT_ID_TOKEN_HINT); otherwise it sends
	// client_id and post_logout_redirect_uri, and keeps no ID token.
	AuthLogoutIDTokenHint bool
	// AuthOff runs without sign-in on purpose (AUTH=off): everyone may do everything but the
	// admin actions. It is refused together with AuthIssuer, and logged loudly.
	AuthOff bool
	// AdminToken is the break-glass bearer token for /status and the admin endpoints, for
	// scripts; it acts as an operator (ADMIN_TOKEN). Empty: none. At least
	// auth.MinAdminTokenLength characters.
	AdminToken string
	// PIIKey holds the key-encryption keys of members' data keys (PII_KEY): a base64 32-byte
	// key, a list of id:key pairs (the current first), or the path of a file holding either.
	// Required with DatabaseURL. It is a secret: never logged.
	PIIKey string
	// Payments is how fines are paid online (PAYMENTS and the STRIPE_* variables).
	Payments Payments
	// SIP is the self-check kiosks' listener (the SIP_* variables).
	SIP SIP
	// MetricsAddr, when set, serves /metrics there, apart from the API (METRICS_ADDR).
	MetricsAddr string
	// CORSOrigins are the browser origins (such as https://library.example.org, or *) whose
	// pages may call the API (CORS_ORIGINS).
	CORSOrigins []string
	// OperationsReplicas are the base URLs of the other replicas the web app's operations page
	// may watch and send tokens to, besides the origin that served it (OPERATIONS_REPLICAS):
	// https, or http on this machine.
	OperationsReplicas []string
	// Limits at the edge, each 0 for no limit: RateLimit is how many requests a second one
	// client may make (RATE_LIMIT); AuthFailureLimit how many refused tokens a minute one
	// address may send before its further refused ones are answered 429, not 401 (every token
	// is still checked, a right one served: AUTH_FAILURE_LIMIT);
	// AccountDataLimit how many exports, and erasures, of accounts a minute one client may ask
	// for (ACCOUNT_DATA_LIMIT); CatalogMaxWaits how many reads of GET /books may wait for
	// minPosition at once, an eighth of them one client's (CATALOG_MAX_WAITS).
	RateLimit        int
	AuthFailureLimit int
	AccountDataLimit int
	CatalogMaxWaits  int
	// TrustedProxies are the proxies whose X-Forwarded-For tells a client's address
	// (TRUSTED_PROXIES).
	TrustedProxies []netip.Prefix
	// RateLimitExemptLoopback leaves requests from loopback out of RateLimit
	// (RATE_LIMIT_EXEMPT_LOOPBACK); off by default, for a proxy on the same machine (a sidecar)
	// makes every client a loopback one unless it is among TrustedProxies.
	RateLimitExemptLoopback bool
	// LeaseRetryInterval is how often a standby tries to take a lease (LEASE_RETRY_INTERVAL).
	LeaseRetryInterval time.Duration
	// PprofAddr, when set, serves Go's runtime profiles there, apart from the API (PPROF_ADDR).
	PprofAddr string
	// LogLevel is debug, info, warn or error (LOG_LEVEL); LogFormat json or text (LOG_FORMAT).
	LogLevel  string
	LogFormat string

	// Tuning is what no variable sets.
	Tuning Tuning

	// smtp is SMTPURL, parsed once, by Complete: nil while unparsed or unset.
	smtp *SMTPServer
}

// Tuning is what the code that starts the service sets, and no variable does: cmd/library
// sets the tracer; tests set a clock, and shorter waits. Its zero value runs the service as
// it is deployed.
type Tuning struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// TracerProvider, when set, traces requests, commands, database calls, emails and the
	// saga's commands; nil traces nothing. cmd/library makes it from the OTEL_* variables
	// (package telemetry).
	TracerProvider trace.TracerProvider
	// Processors tunes background work: its polls, retries and retakes (package processor's
	// Options; zero fields take its defaults).
	Processors Processors
	// LeaseTiming tunes leases beyond LeaseRetryInterval, which LEASE_RETRY_INTERVAL sets
	// (package pgdriver's LeaseTiming; zero fields take its defaults).
	LeaseTiming LeaseTiming
	// CatalogWait is how long GET /books waits for minPosition; zero is package books'
	// default.
	CatalogWait time.Duration
	// EmailAddressPoll is how often an email that waits for its member's address looks for it
	// again; zero is package notifications' default (a minute).
	EmailAddressPoll time.Duration
	// CatalogVersion stands in for the version of the catalog's code (catalog.Version), so
	// that a test can run a release whose catalog is of another version; zero is the code's.
	CatalogVersion int
	// CatalogBulkFrom is the fewest events of its types that a build of the catalog, far behind
	// the log, catches up in bulk from (its tables' rows, when more); zero is catalogpg's
	// DefaultBulkFrom. Tests lower it.
	CatalogBulkFrom int64
	// PINHash is the argon2id cost of the hashes of PINs set from now on; zero is package
	// secrethash's Default. Tests lower it: under the race detector a hash at the default cost
	// takes ten times as long, and tests set many PINs at once. A PIN is checked at the cost its
	// hash was made with, whatever this says.
	PINHash HashCost
	// DeskRefresh is how long a replica decides loans on the circulation rules and the
	// calendar it read, when it recorded no change to them since: a change made on another
	// replica reaches this one's decisions within it. Zero is a second; below zero reads them
	// for every decision.
	DeskRefresh time.Duration
}

// HashCost is an argon2id cost: passes over MemoryKiB of memory, in Threads lanes.
type HashCost struct {
	Time, MemoryKiB uint32
	Threads         uint8
}
