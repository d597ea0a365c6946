package main

import (
	"fmt"
	"net/http"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/pgtest"
	"library/internal/testkit/proctest"
)

// The tests in this package run the built binary as separate processes, as it runs in
// production. TestMain builds it once.

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

// process is one running copy of the binary.
type process = proctest.Process

var (
	start  = proctest.Start
	launch = proctest.Launch
)

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "library-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	if err := proctest.Build(dir, "."); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return pgtest.Run(m)
}

type answer struct {
	status int
	header http.Header
	body   string
}

func call(t *testing.T, method, url, body string, headers ...string) answer {
	t.Helper()
	a, err := tryCall(method, url, body, headers...)
	require.NoError(t, err)
	return a
}

// tryCall is call for a server that may be gone: it returns the error.
func tryCall(method, url, body string, headers ...string) (answer, error) {
	a, err := proctest.Call(httpClient, method, url, body, headers...)
	return answer{status: a.Status, header: a.Header, body: a.Body}, err
}

var httpClient = &http.Client{Timeout: 30 * time.Second}

func TestServesInMemoryWithoutConfiguration(t *testing.T) {
	t.Parallel()
	p := start(t)
	a := call(t, "POST", p.URL("/books"), `{"id":"dune","title":"Dune","author":"Frank Herbert"}`)
	require.Equal(t, http.StatusCreated, a.status, a.body)
	a = call(t, "GET", p.URL("/books/dune"), "")
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `"status":"available"`)
	require.Contains(t, p.Output(), "in memory")
}

// Two processes on one database share their data: a payment sent to one with a key and retried
// on the other is recorded once and answered identically. Both start at once, so both try to
// migrate the empty database at the same moment.
func TestTwoProcessesShareOneDatabase(t *testing.T) {
	t.Parallel()
	url := pgtest.NewEmptyDatabase(t)
	var a, b *process
	var wg sync.WaitGroup
	wg.Go(func() { a = start(t, "DATABASE_URL="+url) })
	wg.Go(func() { b = start(t, "DATABASE_URL="+url) })
	wg.Wait()
	if t.Failed() {
		return
	}

	for _, reason := range []string{"Dune, 10 days late", "Neuromancer, 10 days late"} {
		r := call(t, "POST", a.URL("/accounts/alice/fines"), `{"amount":300,"reason":"`+reason+`"}`)
		require.Equal(t, http.StatusCreated, r.status, r.body)
	}
	first := call(t, "POST", a.URL("/accounts/alice/payments"), `{"amount":300}`, "Idempotency-Key", "7b6f0e1c-pay-dune")
	require.Equal(t, http.StatusCreated, first.status, first.body)
	retry := call(t, "POST", b.URL("/accounts/alice/payments"), `{"amount":300}`, "Idempotency-Key", "7b6f0e1c-pay-dune")
	require.Equal(t, first.status, retry.status)
	require.Equal(t, first.body, retry.body, "the retry on the other process gets the first answer, byte for byte")
	require.Equal(t, "true", retry.header.Get("Idempotent-Replayed"))
	require.Empty(t, first.header.Get("Idempotent-Replayed"))

	balance := call(t, "GET", b.URL("/accounts/alice"), "")
	require.Equal(t, http.StatusOK, balance.status)
	require.Contains(t, balance.body, `"balance":300`)
	require.Contains(t, balance.body, `"version":3`, "two fines and one payment")
}

// SIGTERM stops the process cleanly: requests in flight finish and it exits with status 0.
func TestSIGTERMShutsDownCleanly(t *testing.T) {
	t.Parallel()
	p := start(t, "DATABASE_URL="+pgtest.NewDatabase(t))
	require.Equal(t, http.StatusOK, call(t, "GET", p.URL("/readyz"), "").status)
	require.NoError(t, p.Signal(syscall.SIGTERM))
	require.NoError(t, p.Wait(t, 30*time.Second), p.Output())
	require.Contains(t, p.Output(), `"msg":"stopped"`)
}

// With SHUTDOWN_DELAY, a stopping process turns readiness off first and keeps serving for
// the delay, so that a load balancer can stop sending it requests before it stops taking them.
func TestShutdownDelayKeepsServingWithReadinessOff(t *testing.T) {
	t.Parallel()
	p := start(t, "SHUTDOWN_DELAY=3s")
	require.Equal(t, http.StatusOK, call(t, "GET", p.URL("/readyz"), "").status)
	require.NoError(t, p.Signal(syscall.SIGTERM))

	deadline := time.Now().Add(3 * time.Second)
	for call(t, "GET", p.URL("/readyz"), "").status != http.StatusServiceUnavailable {
		require.True(t, time.Now().Before(deadline), "readiness still on after SIGTERM")
		time.Sleep(10 * time.Millisecond) // polling readiness
	}
	a := call(t, "POST", p.URL("/books"), `{"id":"dune","title":"Dune","author":"Frank Herbert"}`)
	require.Equal(t, http.StatusCreated, a.status, "requests are still served during the delay")
	require.NoError(t, p.Wait(t, 30*time.Second), p.Output())
}

func TestMigrateCommands(t *testing.T) {
	t.Parallel()
	env := []string{"DATABASE_URL=" + pgtest.NewEmptyDatabase(t)}
	run := func(command string) string {
		p := launch(t, env, "migrate", command)
		require.NoError(t, p.Wait(t, 30*time.Second), p.Output())
		return p.Output()
	}
	require.Contains(t, run("status"), "pending  00001_events.sql")
	require.Contains(t, run("up"), "migration applied")
	require.Contains(t, run("status"), "applied  00001_events.sql")
	require.Contains(t, run("down"), "migration rolled back")
	require.Contains(t, run("up"), "migration applied")

	bad := launch(t, env, "migrate", "sideways")
	require.Error(t, bad.Wait(t, 30*time.Second))
	require.Contains(t, bad.Output(), "unknown migrate command")
}

// Configuration errors name the variable and never print a password.
func TestConfigurationErrorsKeepSecrets(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"unparsable URL":     {"DATABASE_URL=postgres://library:s3cret-pw@db:99999/library"},
		"unreachable":        {"DATABASE_URL=postgres://library:s3cret-pw@127.0.0.1:1/library?connect_timeout=2"},
		"bad number":         {"COMMAND_IDS_PER_STREAM=many"},
		"bad duration":       {"LOAN_PERIOD=fortnight"},
		"bad listen address": {"HTTP_ADDR=127.0.0.1:99999"},
		"bad SMTP URL":       {"SMTP_URL=smtp://mailer:s3cret-pw@mail.example.org:99999"},
		"SMTP URL typo":      {"SMTP_URL=smtp://mailer:s3cret-pw@mail.example.org?tls=sometimes"},
		"bad sender":         {"MAIL_FROM=not an address"},
		"bad fine":           {"FINE_PER_DAY=-5"},
		"bad lease interval": {"LEASE_RETRY_INTERVAL=soon"},
	}
	for name, env := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p := launch(t, env, "serve")
			require.Error(t, p.Wait(t, 30*time.Second))
			require.NotContains(t, p.Output(), "s3cret-pw")
		})
	}
}
