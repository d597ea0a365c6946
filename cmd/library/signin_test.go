package main

import (
	"net/http"
	"slices"
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

// signedInPair is two replicas with sign-in on, on one database and SMTP server, and their
// provider.
type signedInPair struct {
	replicaPair
	idp        *apitest.Provider
	adminToken string
}

// startSignedInPair starts a provider and a holder of every lease, then a standby.
func startSignedInPair(t *testing.T) signedInPair {
	t.Helper()
	pair := signedInPair{idp: apitest.StartProvider(t), adminToken: "smoke-admin-token-of-at-least-32-characters"}
	pair.smtp = smtptest.Start(t)
	env := []string{"DATABASE_URL=" + pgtest.NewDatabase(t), "SMTP_URL=" + pair.smtp.URL(), "AUTH=",
		"AUTH_ISSUER=" + pair.idp.Issuer, "AUTH_AUDIENCE=" + apitest.Audience, "AUTH_CLIENT_ID=" + apitest.WebClientID, "ADMIN_TOKEN=" + pair.adminToken}
	pair.holder = start(t, append(env, "REPLICA_ID=holder")...)
	waitUntil(t, 10*time.Second, func() bool { return holds(pair.holder, "notifications", pair.adminToken) }, "the first process to hold its leases")
	pair.standby = start(t, append(env, "REPLICA_ID=standby")...)
	waitUntil(t, 10*time.Second, func() bool { return ready(pair.standby) }, "the standby to be ready")
	return pair
}

// The smoke test passes against two replicas with sign-in on, with a librarian's token from
// the provider and the break-glass ADMIN_TOKEN for /status; without them it fails at once and
// says which is missing.
func TestSmokeScriptWithSignIn(t *testing.T) {
	t.Parallel()
	pair := startSignedInPair(t)
	holder, standby := pair.holder, pair.standby

	cmd := smokeCommand(holder.URL(""), standby.URL(""))
	cmd.Env = append(cmd.Environ(), "SMOKE_TOKEN="+pair.idp.Token(t, "libby"), "ADMIN_TOKEN="+pair.adminToken)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "smoke test:\n%s", out)
	require.Contains(t, string(out), "exactly one holder per processor")

	// Without a token, the same script is refused at its first command.
	out, err = smokeCommand(holder.URL("")).CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "want 201, got 401")
	require.Contains(t, string(out), "SMOKE_TOKEN must be a librarian's access token")

	// With a librarian's token but no ADMIN_TOKEN, /status is refused, and the script says why.
	cmd = smokeCommand(holder.URL(""), standby.URL(""))
	cmd.Env = append(withoutVariable(cmd.Environ(), "ADMIN_TOKEN"), "SMOKE_TOKEN="+pair.idp.Token(t, "libby"))
	out, err = cmd.CombinedOutput()
	require.Error(t, err)
	require.Contains(t, string(out), "status: want 200, got 403")
	require.Contains(t, string(out), "/status also needs ADMIN_TOKEN")
}

// withoutVariable is env without the variable name.
func withoutVariable(env []string, name string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
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
