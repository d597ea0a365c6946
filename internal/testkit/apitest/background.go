package apitest

import (
	"testing"
	"time"

	"library/internal/app"
	"library/internal/config"
)

// AdminToken is the admin token FastBackground gives the service.
const AdminToken = "test-admin-token-at-least-32-characters"

// FastBackground shortens the waits of background work so that tests run quickly.
func FastBackground(cfg app.Config) app.Config {
	cfg.AdminToken = AdminToken
	cfg.Tuning.Processors = config.Processors{
		PollInterval: 50 * time.Millisecond,
		Retry:        config.Backoff{Attempts: 3, First: 10 * time.Millisecond, Max: 40 * time.Millisecond},
		RetakeDelay:  200 * time.Millisecond,
		DropAfter:    time.Second,
	}
	cfg.Tuning.EmailAddressPoll = 50 * time.Millisecond
	cfg.LeaseRetryInterval = 50 * time.Millisecond
	cfg.Tuning.LeaseTiming = config.LeaseTiming{CheckInterval: 200 * time.Millisecond, CheckTimeout: 500 * time.Millisecond}
	return cfg
}

// Eventually polls cond until it holds or timeout passes, then fails the test with msg.
func Eventually(t testing.TB, timeout time.Duration, cond func() bool, msg string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: "+msg, append([]any{timeout}, args...)...)
		}
		time.Sleep(10 * time.Millisecond) // polling a condition, bounded by the deadline
	}
}
