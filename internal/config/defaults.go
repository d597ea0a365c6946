package config

import "time"

// The defaults of the variables that other packages read from here: each package that needs
// its default (when its caller passes zero) reads it from config, so that the table of
// variables (Variables) and the code agree, and config imports none of them.
const (
	// DefaultAggregateCacheBytes bounds the aggregates each repository keeps in memory
	// (AGGREGATE_CACHE_BYTES; package aggregate).
	DefaultAggregateCacheBytes = 16 << 20
	// DefaultSnapshotEvery is how many events of a stream come between two of its snapshots
	// (SNAPSHOT_EVERY; package aggregate).
	DefaultSnapshotEvery = 200
	// DefaultFinePerDay is the fine, in cents, for each day a book comes back late
	// (FINE_PER_DAY; package latefines).
	DefaultFinePerDay = 25
	// DefaultSMTPMaxPerDomain is how many emails may be in flight to one recipient domain at
	// once (SMTP_MAX_PER_DOMAIN; package smtpclient).
	DefaultSMTPMaxPerDomain = 4
	// DefaultLeaseRetryInterval is how often a standby tries to take a lease
	// (LEASE_RETRY_INTERVAL; package pgdriver).
	DefaultLeaseRetryInterval = 500 * time.Millisecond
	// MinAdminTokenLength is the shortest ADMIN_TOKEN the service accepts (package auth).
	MinAdminTokenLength = 32
)
