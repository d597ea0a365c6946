package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/smtptest"
)

// A service on a database without an OpenID provider refuses to start, naming the variables to
// set, unless AUTH=off says it is open on purpose; then it says so, loudly.
func TestADatabaseWithoutSignInIsRefused(t *testing.T) {
	t.Parallel()
	env := []string{"DATABASE_URL=postgres://library@127.0.0.1:1/library?connect_timeout=2"}
	_, stderr, status := cli(t, env, "serve")
	require.Equal(t, 1, status)
	require.Contains(t, stderr, "AUTH_ISSUER is unset")
	require.Contains(t, stderr, "AUTH=off")

	p := start(t, "DATABASE_URL="+pgtest.NewDatabase(t)) // proctest's environment says AUTH=off
	waitUntil(t, 10*time.Second, func() bool { return strings.Contains(p.Output(), `"msg":"serving"`) }, "the service to serve")
	require.Contains(t, p.Output(), `"level":"WARN","msg":"AUTH=off: no sign-in`)
}

// The smoke test passes against two replicas with sign-in on, with a librarian's token from
// the provider and the break-glass ADMIN_TOKEN for /status.
func TestSmokeScriptWithSignIn(t *testing.T) {
	t.Parallel()
	idp := apitest.StartProvider(t)
	const adminToken = "smoke-admin-token-of-at-least-32-characters"
	env := []string{"DATABASE_URL=" + pgtest.NewDatabase(t), "SMTP_URL=" + smtptest.Start(t).URL(), "AUTH=",
		"AUTH_ISSUER=" + idp.Issuer, "AUTH_AUDIENCE=" + apitest.Audience, "ADMIN_TOKEN=" + adminToken}
	holder := start(t, append(env, "REPLICA_ID=holder")...)
	waitUntil(t, 10*time.Second, func() bool { return holds(holder, "notifications", adminToken) }, "the first process to hold its leases")
	standby := start(t, append(env, "REPLICA_ID=standby")...)
	waitUntil(t, 10*time.Second, func() bool { return ready(standby) }, "the standby to be ready")

	cmd := smokeCommand(holder.URL(""), standby.URL(""))
	cmd.Env = append(cmd.Environ(), "SMOKE_TOKEN="+idp.Token(t, "libby"), "ADMIN_TOKEN="+adminToken)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "smoke test:\n%s", out)
	require.Contains(t, string(out), "exactly one holder per processor")

	// Without a token, the same script is refused at its first command.
	out, err = smokeCommand(holder.URL("")).CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "want 201, got 401")
}

// ready reports whether the process answers /readyz with 200.
func ready(p *process) bool {
	resp, err := http.Get(p.URL("/readyz"))
	if err != nil {
		return false
	}
	_ = resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}
