package processor

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine outlived the tests: every lease a test takes must be given
// back by the time they end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
