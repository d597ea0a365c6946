package pgdriver

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"

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

// eventually polls cond until it holds or timeout passes. Tests wait for conditions, never for
// fixed times, so they are as fast as the code and don't fail on a slow machine.
func eventually(t testing.TB, timeout time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not true after %v: %s", timeout, fmt.Sprintf(format, args...))
		}
		time.Sleep(5 * time.Millisecond)
	}
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
