package migrations

import (
	"errors"
	"strings"
	"testing"
)

// Only PostgreSQL 14 and later run the service; an older server is named, with what is needed.
func TestCheckVersion(t *testing.T) {
	for num, version := range map[int]string{140000: "14.0", 140011: "14.11", 150018: "15.18 (Debian 15.18-0+deb12u1)", 170002: "17.2"} {
		if err := checkVersion(num, version); err != nil {
			t.Errorf("%s: %v", version, err)
		}
	}
	for num, version := range map[int]string{130011: "13.11", 120000: "12.0", 90624: "9.6.24"} {
		err := checkVersion(num, version)
		if err == nil || !strings.Contains(err.Error(), "PostgreSQL "+version) || !strings.Contains(err.Error(), "PostgreSQL 14 or later") {
			t.Errorf("%s: %v, want an error naming %s and 14", version, err, version)
		}
	}
}

func TestDriverCauseLeavesOutTheConnectionSettings(t *testing.T) {
	err := errors.New("failed to connect to `user=library database=library`: 127.0.0.1:1 (127.0.0.1): dial error: connect: connection refused")
	if got := driverCause(err); got != "127.0.0.1:1 (127.0.0.1): dial error: connect: connection refused" {
		t.Errorf("got %q", got)
	}
}
