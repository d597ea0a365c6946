package app

import (
	"time"

	"library/internal/config"
	"library/internal/httpapi"
	"library/internal/processor"
)

// Config is the service's configuration (package config), as New takes it: what operators
// set, and its Tuning.
type Config = config.Config

// Tuning is what no variable sets (package config): the clock, the tracer, and the waits that
// tests shorten.
type Tuning = config.Tuning

// Backoff is a retry schedule of Tuning's (package config).
type Backoff = config.Backoff

// processorOptions are the processors' options as Tuning sets them.
func processorOptions(p config.Processors) processor.Options {
	return processor.Options{BatchSize: p.BatchSize, PollInterval: p.PollInterval, ReadInterval: p.ReadInterval,
		Retry: processor.Backoff(p.Retry), RetakeDelay: p.RetakeDelay, StepTimeout: p.StepTimeout, DropAfter: p.DropAfter}
}

// MaxHeaderBytes bounds a request's line and headers on the API's and the metrics' servers;
// net/http answers 431 past it (it allows 4 KiB more, for its buffering).
const MaxHeaderBytes = 64 << 10

// edgeLimits are the Config's limits at the edge, as the router takes them.
func edgeLimits(c Config) httpapi.Limits {
	return httpapi.Limits{
		Requests:       httpapi.Limit{N: c.RateLimit, Per: time.Second},
		ExemptLoopback: c.RateLimitExemptLoopback,
		AuthFailures:   httpapi.Limit{N: c.AuthFailureLimit, Per: time.Minute},
		AccountData:    httpapi.Limit{N: c.AccountDataLimit, Per: time.Minute},
	}
}
