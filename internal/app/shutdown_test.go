package app_test

import (
	"net/http"
	"testing"

	"go.uber.org/goleak"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// After Run returns, nothing the service started is still running: no request goroutine, no
// notification listener, no pool worker. (Not parallel: goleak looks at every goroutine.)
func TestShutdownLeavesNothingRunning(t *testing.T) {
	before := goleak.IgnoreCurrent()
	databaseURL := pgtest.NewDatabase(t)
	t.Run("serve and stop", func(t *testing.T) {
		a := &api{Base: startService(t, app.Config{DatabaseURL: databaseURL})}
		requireResult(t, a.Call(t, "POST", "/accounts/alice/fines", obj{"amount": 300, "reason": "late"}), http.StatusCreated, "account-alice")
		requireResult(t, a.Call(t, "POST", "/accounts/alice/payments", obj{"amount": 100}, "Idempotency-Key", "k"), http.StatusCreated, "account-alice")
	}) // the subtest's cleanup stops the service and waits for Run to return
	apitest.CloseIdleConnections()
	goleak.VerifyNone(t, before)
}
