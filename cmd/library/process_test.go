package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/pgtest"
)

// The tests in this package run the built binary as separate processes, as it runs in
// production. TestMain builds it once.

func TestMain(m *testing.M) {
	os.Exit(buildAndRun(m))
}

func buildAndRun(m *testing.M) int {
	dir, err := os.MkdirTemp("", "library-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer func() { _ = os.RemoveAll(dir) }()
	binary := filepath.Join(dir, "library")
	build := exec.Command("go", "build", "-o", binary, ".")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "go build: %v\n%s", err, out)
		return 1
	}
	if err := os.Setenv("LIBRARY_TEST_BINARY", binary); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return pgtest.Run(m)
}

// process is one running copy of the binary.
type process struct {
	cmd    *exec.Cmd
	addr   string
	mu     sync.Mutex
	logs   bytes.Buffer
	exited chan struct{}
	err    error
}

// start runs the binary with the given environment (on top of a minimal one) and waits until
// it serves, or fails the test with its logs.
func start(t testing.TB, env ...string) *process {
	t.Helper()
	p := launch(t, env, "serve")
	deadline := time.Now().Add(30 * time.Second)
	for p.listenAddr() == "" {
		select {
		case <-p.exited:
			t.Fatalf("the service exited before serving: %v\n%s", p.err, p.output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service did not serve within 30s:\n%s", p.output())
		}
		time.Sleep(20 * time.Millisecond) // polling the log for the "serving" line
	}
	return p
}

// launch starts the binary with args and returns at once. The process is killed when the test
// ends, if it is still running.
func launch(t testing.TB, env []string, args ...string) *process {
	t.Helper()
	p := &process{exited: make(chan struct{})}
	p.cmd = exec.Command(os.Getenv("LIBRARY_TEST_BINARY"), args...)
	p.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "REPLICA_ID=" + t.Name(), "HTTP_ADDR=127.0.0.1:0"}, env...)
	stderr, err := p.cmd.StderrPipe()
	require.NoError(t, err)
	p.cmd.Stdout = writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.logs.Write(b)
	})
	require.NoError(t, p.cmd.Start())
	go func() {
		scanner := bufio.NewScanner(stderr)
		for scanner.Scan() {
			line := scanner.Text()
			var entry struct {
				Msg  string `json:"msg"`
				Addr string `json:"addr"`
			}
			p.mu.Lock()
			p.logs.WriteString(line + "\n")
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "serving" {
				p.addr = entry.Addr
			}
			p.mu.Unlock()
		}
		p.err = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

func (p *process) listenAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

func (p *process) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

func (p *process) url(path string) string { return "http://" + p.listenAddr() + path }

// wait waits for the process to exit and returns its error.
func (p *process) wait(t testing.TB, within time.Duration) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(within):
		t.Fatalf("the process did not exit within %s:\n%s", within, p.output())
		return nil
	}
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
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, err
	}
	return answer{status: resp.StatusCode, header: resp.Header, body: string(b)}, nil
}

var httpClient = &http.Client{Timeout: 30 * time.Second}

func TestServesInMemoryWithoutConfiguration(t *testing.T) {
	t.Parallel()
	p := start(t)
	a := call(t, "POST", p.url("/books"), `{"id":"dune","title":"Dune","author":"Frank Herbert"}`)
	require.Equal(t, http.StatusCreated, a.status, a.body)
	a = call(t, "GET", p.url("/books/dune"), "")
	require.Equal(t, http.StatusOK, a.status)
	require.Contains(t, a.body, `"status":"available"`)
	require.Contains(t, p.output(), "in memory")
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
		r := call(t, "POST", a.url("/accounts/alice/fines"), `{"amount":300,"reason":"`+reason+`"}`)
		require.Equal(t, http.StatusCreated, r.status, r.body)
	}
	first := call(t, "POST", a.url("/accounts/alice/payments"), `{"amount":300}`, "Idempotency-Key", "7b6f0e1c-pay-dune")
	require.Equal(t, http.StatusCreated, first.status, first.body)
	retry := call(t, "POST", b.url("/accounts/alice/payments"), `{"amount":300}`, "Idempotency-Key", "7b6f0e1c-pay-dune")
	require.Equal(t, first.status, retry.status)
	require.Equal(t, first.body, retry.body, "the retry on the other process gets the first answer, byte for byte")
	require.Equal(t, "true", retry.header.Get("Idempotent-Replayed"))
	require.Empty(t, first.header.Get("Idempotent-Replayed"))

	balance := call(t, "GET", b.url("/accounts/alice"), "")
	require.Equal(t, http.StatusOK, balance.status)
	require.Contains(t, balance.body, `"balance":300`)
	require.Contains(t, balance.body, `"version":3`, "two fines and one payment")
}

// SIGTERM stops the process cleanly: requests in flight finish and it exits with status 0.
func TestSIGTERMShutsDownCleanly(t *testing.T) {
	t.Parallel()
	p := start(t, "DATABASE_URL="+pgtest.NewDatabase(t))
	require.Equal(t, http.StatusOK, call(t, "GET", p.url("/readyz"), "").status)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))
	require.NoError(t, p.wait(t, 30*time.Second), p.output())
	require.Contains(t, p.output(), `"msg":"stopped"`)
}

// With SHUTDOWN_DELAY, a stopping process turns readiness off first and keeps serving for
// the delay, so that a load balancer can stop sending it requests before it stops taking them.
func TestShutdownDelayKeepsServingWithReadinessOff(t *testing.T) {
	t.Parallel()
	p := start(t, "SHUTDOWN_DELAY=3s")
	require.Equal(t, http.StatusOK, call(t, "GET", p.url("/readyz"), "").status)
	require.NoError(t, p.cmd.Process.Signal(syscall.SIGTERM))

	deadline := time.Now().Add(3 * time.Second)
	for call(t, "GET", p.url("/readyz"), "").status != http.StatusServiceUnavailable {
		require.True(t, time.Now().Before(deadline), "readiness still on after SIGTERM")
		time.Sleep(10 * time.Millisecond) // polling readiness
	}
	a := call(t, "POST", p.url("/books"), `{"id":"dune","title":"Dune","author":"Frank Herbert"}`)
	require.Equal(t, http.StatusCreated, a.status, "requests are still served during the delay")
	require.NoError(t, p.wait(t, 30*time.Second), p.output())
}

func TestMigrateCommands(t *testing.T) {
	t.Parallel()
	env := []string{"DATABASE_URL=" + pgtest.NewEmptyDatabase(t)}
	run := func(command string) string {
		p := launch(t, env, "migrate", command)
		require.NoError(t, p.wait(t, 30*time.Second), p.output())
		return p.output()
	}
	require.Contains(t, run("status"), "pending  00001_events.sql")
	require.Contains(t, run("up"), "migration applied")
	require.Contains(t, run("status"), "applied  00001_events.sql")
	require.Contains(t, run("down"), "migration rolled back")
	require.Contains(t, run("up"), "migration applied")

	bad := launch(t, env, "migrate", "sideways")
	require.Error(t, bad.wait(t, 30*time.Second))
	require.Contains(t, bad.output(), "unknown migrate command")
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
			require.Error(t, p.wait(t, 30*time.Second))
			require.NotContains(t, p.output(), "s3cret-pw")
		})
	}
}
