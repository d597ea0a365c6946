package smtptest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the run when any goroutine, such as a connection handler, outlives its test.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
