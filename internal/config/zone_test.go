package config_test

import (
	"strings"
	"testing"
	"time"

	"library/internal/config"
)

// LIBRARY_TIMEZONE is an IANA zone's name, UTC by default; a name that is none, and Local (the
// machine's, which would move the library's days with it), are refused, naming the variable.
func TestConfigTimezone(t *testing.T) {
	t.Parallel()
	env := func(vars map[string]string) func(string) string {
		return func(name string) string { return vars[name] }
	}
	cfg, err := config.FromEnv(env(nil))
	if err != nil || cfg.Timezone != time.UTC {
		t.Fatalf("default: %v, %v; want UTC", cfg.Timezone, err)
	}
	cfg, err = config.FromEnv(env(map[string]string{"LIBRARY_TIMEZONE": "Europe/Paris"}))
	if err != nil || cfg.Timezone.String() != "Europe/Paris" {
		t.Fatalf("set: %v, %v; want Europe/Paris", cfg.Timezone, err)
	}
	if c, err := (config.Config{}).Complete(); err != nil || c.Timezone != time.UTC {
		t.Errorf("a Config made in code: %v, %v; want UTC", c.Timezone, err)
	}
	for _, v := range []string{"Mars/Olympus", "Local", "+02:00", "../etc/passwd"} {
		_, err := config.FromEnv(env(map[string]string{"LIBRARY_TIMEZONE": v}))
		if err == nil || !strings.Contains(err.Error(), "LIBRARY_TIMEZONE") {
			t.Errorf("LIBRARY_TIMEZONE=%q: %v, want an error naming it", v, err)
		}
	}
}
