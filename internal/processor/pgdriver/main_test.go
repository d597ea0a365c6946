package pgdriver

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"

	"go.uber.org/goleak"

	"library/internal/testkit/pgtest"
)

// TestMain runs the tests against a throwaway PostgreSQL (or TEST_DATABASE_URL) and then checks
// that no goroutine outlived them: every lease and proxy a test starts must be stopped by the
// time the tests end. goleak.VerifyTestMain can't be used because it calls m.Run itself;
// pgtest.Run returns after the cluster is gone, so what is left is ours.
func TestMain(m *testing.M) {
	code := pgtest.Run(m)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines outlived the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// raiseTo sets a to n if n is larger, however many goroutines do it at once.
func raiseTo(a *atomic.Int64, n int64) {
	for {
		m := a.Load()
		if n <= m || a.CompareAndSwap(m, n) {
			return
		}
	}
}
