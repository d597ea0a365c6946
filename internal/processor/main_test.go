package processor

import (
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no goroutine outlived the tests: every lease a test takes must be given
// back by the time they end.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// raiseTo sets a to n if n is larger, however many goroutines do it at once.
func raiseTo(a *atomic.Int64, n int64) {
	for {
		m := a.Load()
		if n <= m || a.CompareAndSwap(m, n) {
			return
		}
	}
}
