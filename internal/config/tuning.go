package config

import "time"

// Processors tunes the background processors: the fields of package processor's Options that
// code sets, which internal/app passes on. Zero fields take that package's defaults.
type Processors struct {
	BatchSize    int
	PollInterval time.Duration
	ReadInterval time.Duration
	Retry        Backoff
	RetakeDelay  time.Duration
	StepTimeout  time.Duration
	DropAfter    time.Duration
}

// Backoff is a retry schedule: Attempts tries, waiting First, then twice as long each time, up
// to Max (package processor's Backoff).
type Backoff struct {
	Attempts int
	First    time.Duration
	Max      time.Duration
}

// LeaseTiming tunes PostgreSQL leases (package pgdriver's LeaseTiming, which says how the
// numbers relate). Zero fields take that package's defaults.
type LeaseTiming struct {
	RetryInterval  time.Duration
	CheckInterval  time.Duration
	CheckTimeout   time.Duration
	SessionTimeout time.Duration
}
