// Package proctest runs the service's binary as separate processes in tests: it builds the
// binary once per test binary, starts copies of it with an environment of the test's choosing,
// finds the address each one serves on from its log, and signals, kills and restarts them.
//
// Every process started for a test is killed when the test ends, if it is still running, and
// its log is kept for the test to print when something goes wrong.
package proctest

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
)

// EnvBinary names the built binary. Build sets it, so that the tests of one test binary share it.
const EnvBinary = "LIBRARY_TEST_BINARY"

// Build compiles the package at pkg (such as "." or "../cmd/library") into dir and sets
// EnvBinary to it. Call it from TestMain.
func Build(dir, pkg string) error {
	binary := filepath.Join(dir, "library")
	build := exec.Command("go", "build", "-o", binary, pkg)
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return os.Setenv(EnvBinary, binary)
}

// PIIKey is the key-encryption key the processes run with unless env gives another.
const PIIKey = "dGVzdHMtb25seSBrZXktZW5jcnlwdGlvbiBrZXkgISE="

// Process is one running copy of the binary.
type Process struct {
	cmd  *exec.Cmd
	mu   sync.Mutex
	addr string
	// metricsAddr is where it serves /metrics (METRICS_ADDR).
	metricsAddr string
	// sipAddr is where it takes kiosks (SIP_ADDR), "" when it takes none.
	sipAddr string
	logs    bytes.Buffer
	exited  chan struct{}
	err     error
}

// Start runs the binary's "serve" with env (on top of a minimal environment: PATH, REPLICA_ID
// the test's name, HTTP_ADDR on a free loopback port) and waits until it serves, or fails the
// test with its log.
func Start(t testing.TB, env ...string) *Process {
	t.Helper()
	return serve(t, built(t), env)
}

// serve runs binary's "serve" with env and waits until it serves, as Start says.
func serve(t testing.TB, binary string, env []string) *Process {
	t.Helper()
	p := launch(t, binary, env, "serve")
	deadline := time.Now().Add(30 * time.Second)
	for p.Addr() == "" {
		select {
		case <-p.exited:
			t.Fatalf("the service exited before serving: %v\n%s", p.err, p.Output())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service did not serve within 30s:\n%s", p.Output())
		}
		time.Sleep(20 * time.Millisecond) // polling the log for the "serving" line
	}
	return p
}

// Launch starts the binary with args and returns at once.
func Launch(t testing.TB, env []string, args ...string) *Process {
	t.Helper()
	return launch(t, built(t), env, args...)
}

// built is the binary Build made.
func built(t testing.TB) string {
	t.Helper()
	binary := os.Getenv(EnvBinary)
	if binary == "" {
		t.Fatalf("proctest: %s is unset; call proctest.Build from TestMain", EnvBinary)
	}
	return binary
}

// launch starts binary with args and returns at once.
func launch(t testing.TB, binary string, env []string, args ...string) *Process {
	t.Helper()
	p := &Process{exited: make(chan struct{})}
	p.cmd = exec.Command(binary, args...)
	// Sign-in is off unless env says otherwise (AUTH= and AUTH_ISSUER=...), and so is
	// RATE_LIMIT for the tests' own requests, which all come from loopback as one client
	// (RATE_LIMIT_EXEMPT_LOOPBACK; one that tells its clients apart by X-Forwarded-For, from a
	// trusted loopback, is still counted): the processes' tests are of other promises.
	// /metrics is served on a port of its own. No fines are paid online unless env says so
	// (PAYMENTS=stripe), which a process with sign-in on a database must say one way or the
	// other.
	p.cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "REPLICA_ID=" + t.Name(), "HTTP_ADDR=127.0.0.1:0",
		"METRICS_ADDR=127.0.0.1:0", "AUTH=off", "RATE_LIMIT_EXEMPT_LOOPBACK=true", "PII_KEY=" + PIIKey, "PAYMENTS=off"}, env...)
	stderr, err := p.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stdout = writerFunc(func(b []byte) (int, error) {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.logs.Write(b)
	})
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.readLog(stderr)
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// readLog keeps the process's log and notes the address from its "serving" line.
func (p *Process) readLog(stderr io.Reader) {
	scanner := bufio.NewScanner(stderr)
	scanner.Buffer(make([]byte, 64<<10), 1<<20)
	for scanner.Scan() {
		line := scanner.Text()
		var entry struct {
			Msg  string `json:"msg"`
			Addr string `json:"addr"`
		}
		p.mu.Lock()
		p.logs.WriteString(line + "\n")
		if json.Unmarshal([]byte(line), &entry) == nil {
			switch entry.Msg {
			case "serving":
				p.addr = entry.Addr
			case "serving metrics":
				p.metricsAddr = entry.Addr
			case "serving kiosks over SIP2":
				p.sipAddr = entry.Addr
			}
		}
		p.mu.Unlock()
	}
	_, _ = io.Copy(io.Discard, stderr)
	p.err = p.cmd.Wait()
	close(p.exited)
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// Addr is the address the process serves on, "" until it serves.
func (p *Process) Addr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.addr
}

// URL is the URL of path on the process.
func (p *Process) URL(path string) string { return "http://" + p.Addr() + path }

// MetricsURL is the URL of /metrics on the process's METRICS_ADDR, "" until it serves there.
func (p *Process) MetricsURL() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.metricsAddr == "" {
		return ""
	}
	return "http://" + p.metricsAddr + "/metrics"
}

// SIPAddr is the address kiosks connect to (SIP_ADDR), "" unless the process was started with
// one; it is known once Start returns, as the listener is logged before "serving".
func (p *Process) SIPAddr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sipAddr
}

// Output is the process's log so far.
func (p *Process) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.logs.String()
}

// Pid is the process id.
func (p *Process) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to the process.
func (p *Process) Signal(sig syscall.Signal) error { return p.cmd.Process.Signal(sig) }

// Kill sends SIGKILL and waits for the process to be gone.
func (p *Process) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Exited is closed when the process has exited.
func (p *Process) Exited() <-chan struct{} { return p.exited }

// Wait waits for the process to exit and returns its error, or fails the test after within.
func (p *Process) Wait(t testing.TB, within time.Duration) error {
	t.Helper()
	select {
	case <-p.exited:
		return p.err
	case <-time.After(within):
		t.Fatalf("the process did not exit within %s:\n%s", within, p.Output())
		return nil
	}
}

// Answer is an HTTP answer, read whole.
type Answer struct {
	Status int
	Header http.Header
	Body   string
}

// Call sends a request with a JSON body (when body is not "") and headers given as name,
// value pairs, and returns the answer or the error of a server that is gone.
func Call(client *http.Client, method, url, body string, headers ...string) (Answer, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}, nil
}
