package environment

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// BuildService builds cmd/library into dir and returns the binary's path.
func BuildService(ctx context.Context, root, dir string) (string, error) {
	return BuildCommand(ctx, root, dir, "library")
}

// BuildCommand builds ./cmd/<name> of the module at root into dir and returns the binary's
// path.
func BuildCommand(ctx context.Context, root, dir, name string) (string, error) {
	bin := filepath.Join(dir, name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "./cmd/"+name)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/%s: %w: %s", name, err, strings.TrimSpace(string(out)))
	}
	return bin, nil
}

// adminToken is the ADMIN_TOKEN of every service process the run starts (at least 32
// characters, as the service wants), new each run. It goes as Authorization: Bearer on
// /status, which takes it with sign-in on or off, and which a binary from before sign-in
// serves to anyone.
var adminToken = func() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b) // crypto/rand.Read does not fail
	return hex.EncodeToString(b)
}()

// Service is one process of the service binary, or of another that serves HTTP (devidp).
type Service struct {
	BaseURL string
	ready   string // the path that answers 200 once the process is ready
	cmd     *exec.Cmd
	stderr  *lockedBuffer
	done    chan struct{} // closed when the process has exited
	waitErr error         // the exit, once done is closed
}

// StartService runs the binary on a free loopback port against databaseURL and waits until
// /readyz answers 200. Sign-in is off (AUTH=off), with adminToken as ADMIN_TOKEN, and the rest
// of its environment is the run's. env adds to, or overrides, its environment (REPLICA_ID=...,
// SMTP_URL=..., AUTH_ISSUER=...).
func StartService(ctx context.Context, bin, databaseURL string, env ...string) (*Service, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	addr := "127.0.0.1:" + strconv.Itoa(port)
	// Not CommandContext: Stop ends it with SIGTERM, so that it drains and closes its pool.
	cmd := exec.Command(bin)
	cmd.Env = append(serviceEnv(databaseURL), "HTTP_ADDR="+addr)
	cmd.Env = append(cmd.Env, env...) // the last of a repeated name wins
	return startProcess(ctx, cmd, "http://"+addr, "/readyz")
}

// RunCommand runs one of the binary's commands (sip terminals add NAME, ...) with the
// environment of the services the run starts, against databaseURL, and returns what it printed.
func RunCommand(ctx context.Context, bin, databaseURL string, args ...string) (string, error) {
	out, err := Command(ctx, bin, databaseURL, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("library %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// Command is one of the binary's commands (import marc FILE, ...) with the environment of the
// services the run starts, against databaseURL, for its caller to run and watch.
func Command(ctx context.Context, bin, databaseURL string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = serviceEnv(databaseURL)
	return cmd
}

// serviceEnv is the environment of the service's processes, on databaseURL.
func serviceEnv(databaseURL string) []string {
	return append(os.Environ(),
		"DATABASE_URL="+databaseURL,
		"LOG_LEVEL=warn",
		"REPLICA_ID=bench",
		// With DATABASE_URL the service wants a provider or AUTH=off; none inherited from the
		// shell, and no METRICS_ADDR that two processes would both listen on.
		"AUTH=off", "AUTH_ISSUER=", "AUTH_AUDIENCE=",
		"ADMIN_TOKEN="+adminToken,
		"METRICS_ADDR=",
		// Members' data keys are wrapped by it (a benchmark's own, for this run's databases).
		"PII_KEY="+benchPIIKey,
		// The benchmark's many workers are one client on loopback, whom RATE_LIMIT would hold
		// to 100 requests a second; it measures the service, not the limit. (A binary too old
		// to read it exempted loopback anyway.)
		"RATE_LIMIT_EXEMPT_LOOPBACK=true",
		// One member borrows every benchmark loan: no limit on how many books they have out.
		"MAX_LOANS=1000000000",
	)
}

// benchPIIKey is the key-encryption key of the services the benchmark starts.
const benchPIIKey = "YmVuY2htYXJrIGtleS1lbmNyeXB0aW9uIGtleSAhISE=" // "benchmark key-encryption key !!!"

// startProcess starts cmd, which serves HTTP at baseURL, and waits until its ready path answers
// 200.
func startProcess(ctx context.Context, cmd *exec.Cmd, baseURL, ready string) (*Service, error) {
	s := &Service{BaseURL: baseURL, ready: ready, cmd: cmd, stderr: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stdout = s.stderr
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the service: %w", err)
	}
	go func() {
		s.waitErr = cmd.Wait()
		close(s.done)
	}()
	if err := s.waitReady(ctx, 30*time.Second); err != nil {
		_ = s.Stop(context.WithoutCancel(ctx))
		return nil, err
	}
	return s, nil
}

func (s *Service) waitReady(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	client := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.BaseURL+s.ready, nil)
		if err != nil {
			return err
		}
		if resp, err := client.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.done:
			return fmt.Errorf("the service exited before it was ready (%w): %s", s.waitErr, s.Output())
		case <-ctx.Done():
			return fmt.Errorf("the service was not ready within %s: %s", timeout, s.Output())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// StartWithSink starts an SMTP sink of its own and a service process on databaseURL that sends
// to it (env beside SMTP_URL). stop stops the service, what naming it in the log if that fails
// (StopLogged), and then closes the sink.
func StartWithSink(ctx context.Context, bin, databaseURL, what string, env ...string) (svc *Service, sink *SMTPSink, stop func(), err error) {
	sink, err = StartSMTPSink()
	if err != nil {
		return nil, nil, nil, err
	}
	svc, err = StartService(ctx, bin, databaseURL, append([]string{"SMTP_URL=" + sink.URL()}, env...)...)
	if err != nil {
		sink.Close()
		return nil, nil, nil, err
	}
	return svc, sink, func() {
		svc.StopLogged(ctx, what)
		sink.Close()
	}, nil
}

// StopLogged stops the service, as a measurement's deferred call does once its figures are in:
// a failure to stop is logged, naming what the service was for (what), and changes no figure.
func (s *Service) StopLogged(ctx context.Context, what string) {
	if err := s.Stop(context.WithoutCancel(ctx)); err != nil {
		Logf("stopping %s: %v", what, err)
	}
}

// Stop sends SIGTERM and waits for the process to exit, killing it after 30 seconds.
func (s *Service) Stop(ctx context.Context) error {
	select {
	case <-s.done:
		return s.exitError()
	default:
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signalling the service: %w", err)
	}
	select {
	case <-s.done:
		return s.exitError()
	case <-ctx.Done():
	case <-time.After(30 * time.Second):
	}
	_ = s.cmd.Process.Kill()
	<-s.done
	return fmt.Errorf("the service did not stop after SIGTERM and was killed: %s", s.Output())
}

// Signal sends sig to the process without waiting for it to exit.
func (s *Service) Signal(sig os.Signal) error {
	if err := s.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("signalling the service: %w", err)
	}
	return nil
}

// Wait waits up to timeout for the process to exit, killing it then.
func (s *Service) Wait(timeout time.Duration) {
	select {
	case <-s.done:
	case <-time.After(timeout):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Pid is the process id.
func (s *Service) Pid() int { return s.cmd.Process.Pid }

func (s *Service) exitError() error {
	if s.waitErr != nil {
		return fmt.Errorf("the service exited with %w: %s", s.waitErr, s.Output())
	}
	return nil
}

// Output is the end of what the process wrote, for error messages.
func (s *Service) Output() string {
	out := strings.TrimSpace(s.stderr.String())
	const keep = 2000
	if len(out) > keep {
		out = "..." + out[len(out)-keep:]
	}
	if out == "" {
		return "(no output)"
	}
	return out
}

// lockedBuffer collects a process's output while it runs.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
