package config_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/config"
)

// The loan's times: LOAN_PERIOD, the reminders' and the wait for an address. Each takes its
// default when unset, and any duration Go reads, seconds included (a loan of 20 s, for a demo
// or a test); zero, a negative or a word is refused, naming the variable, as is a count of
// notices below 1.
func TestConfigLoanTimes(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	cfg, err := config.FromEnv(env(nil))
	require.NoError(t, err)
	assert.Equal(t, 336*time.Hour, cfg.LoanPeriod)
	assert.Equal(t, 48*time.Hour, cfg.RemindBefore)
	assert.Equal(t, 24*time.Hour, cfg.OverdueAfter)
	assert.Equal(t, 168*time.Hour, cfg.OverdueEvery)
	assert.Equal(t, 3, cfg.OverdueNotices)
	assert.Equal(t, 72*time.Hour, cfg.EmailAddressWait)

	durations := map[string]func(config.Config) time.Duration{
		"LOAN_PERIOD":        func(c config.Config) time.Duration { return c.LoanPeriod },
		"REMIND_BEFORE":      func(c config.Config) time.Duration { return c.RemindBefore },
		"OVERDUE_AFTER":      func(c config.Config) time.Duration { return c.OverdueAfter },
		"OVERDUE_EVERY":      func(c config.Config) time.Duration { return c.OverdueEvery },
		"EMAIL_ADDRESS_WAIT": func(c config.Config) time.Duration { return c.EmailAddressWait },
	}
	for name, field := range durations {
		for value, want := range map[string]time.Duration{"20s": 20 * time.Second, "1s": time.Second, "90m": 90 * time.Minute, "1h30m5s": time.Hour + 30*time.Minute + 5*time.Second} {
			cfg, err := config.FromEnv(env(map[string]string{name: value}))
			require.NoError(t, err, "%s=%s", name, value)
			assert.Equal(t, want, field(cfg), "%s=%s", name, value)
		}
		for _, bad := range []string{"0s", "-1s", "two weeks", "14d", "20"} {
			_, err := config.FromEnv(env(map[string]string{name: bad}))
			if assert.Error(t, err, "%s=%s", name, bad) {
				assert.Contains(t, err.Error(), name)
			}
		}
	}

	cfg, err = config.FromEnv(env(map[string]string{"OVERDUE_NOTICES": "1"}))
	require.NoError(t, err)
	assert.Equal(t, 1, cfg.OverdueNotices)
	for _, bad := range []string{"0", "-1", "many"} {
		_, err := config.FromEnv(env(map[string]string{"OVERDUE_NOTICES": bad}))
		if assert.Error(t, err, bad) {
			assert.Contains(t, err.Error(), "OVERDUE_NOTICES")
		}
	}

	// A Config made in code takes the defaults of what it leaves zero.
	made, err := config.Config{LoanPeriod: 20 * time.Second}.Complete()
	require.NoError(t, err)
	assert.Equal(t, 20*time.Second, made.LoanPeriod)
	assert.Equal(t, 48*time.Hour, made.RemindBefore)
	assert.Equal(t, 3, made.OverdueNotices)
	assert.Equal(t, 72*time.Hour, made.EmailAddressWait)
}
