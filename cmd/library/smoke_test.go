package main

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/pgtest"
	"library/internal/testkit/smtptest"
)

// smoke runs scripts/smoke.sh against the given base URLs and returns its output and error.
func smoke(t *testing.T, urls ...string) (string, error) {
	t.Helper()
	out, err := smokeCommand(urls...).CombinedOutput()
	return string(out), err
}

// smokeCommand is the command that runs scripts/smoke.sh against urls.
func smokeCommand(urls ...string) *exec.Cmd {
	return exec.Command("bash", append([]string{"../../scripts/smoke.sh"}, urls...)...)
}

// The smoke test passes against two replicas of the built binary on one database.
func TestSmokeScriptAgainstTwoReplicas(t *testing.T) {
	t.Parallel()
	pair := startPair(t, pgtest.NewDatabase(t), smtptest.Start(t))
	out, err := smoke(t, pair.holder.URL(""), pair.standby.URL(""))
	require.NoError(t, err, "smoke test:\n%s", out)
	require.Contains(t, out, "exactly one holder per processor")
	require.Contains(t, out, "smoke test passed")
}

// ... and fails against a server that answers wrongly.
func TestSmokeScriptFailsOnWrongAnswers(t *testing.T) {
	t.Parallel()
	wrong := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.Method == http.MethodPost {
			w.WriteHeader(http.StatusCreated) // every command "recorded", retries included
		}
		_, _ = w.Write([]byte(`{"balance":600,"version":4}`))
	}))
	defer wrong.Close()
	out, err := smoke(t, wrong.URL)
	require.Error(t, err, "the smoke test must fail:\n%s", out)
	require.Contains(t, out, "FAIL: ")
}
