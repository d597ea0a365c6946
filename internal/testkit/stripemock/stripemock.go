// Package stripemock gives tests Stripe's own mock of its API: stripe-mock, a program that
// answers every endpoint of Stripe's published OpenAPI document, checks each request's
// parameters against it, and returns canned objects (it keeps no state: what a POST sends is
// checked, some of it reflected in the answer, and then forgotten).
//
// A test binary that uses it calls Main (or Run) from TestMain. Run starts one stripe-mock for
// the binary, on 127.0.0.1 on ports the system picks, waits until it answers, sets EnvURL to
// its address for the tests (URL reads it) and stops it when the tests end. When EnvURL is
// already set, Run uses that server instead (one started by hand, or in a container). When the
// program is neither on PATH nor in Go's bin folder ($GOBIN, or $GOPATH/bin), Run fails the
// run and prints the command that installs it: these tests never skip.
//
// Record puts a recording proxy in front of it, so that a test can see exactly what a client
// sent: the mock checks that Stripe would accept a request, the recording what it said.
package stripemock

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

const (
	// Module is the version of stripe-mock the tests are written against.
	Module = "github.com/stripe/stripe-mock@v0.203.0"
	// InstallCommand installs it from the Go module proxy, into $GOBIN or $GOPATH/bin.
	InstallCommand = "go install " + Module
	// EnvURL names the base URL of a running stripe-mock. Run sets it to the one it starts.
	EnvURL = "TEST_STRIPE_MOCK_URL"
	// SecretKey is an API key the mock accepts: it takes any key that looks like a test-mode
	// secret key and checks nothing else.
	SecretKey = "sk_test_stripemock"
)

// startTimeout bounds the start of the program: loading its OpenAPI document takes about a
// second on a quiet machine.
const startTimeout = 60 * time.Second

// Main runs a test binary's tests with a stripe-mock and exits with their result.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main for a TestMain that has more to do after the tests: it returns the exit code.
func Run(m *testing.M) int {
	if os.Getenv(EnvURL) == "" {
		server, err := start()
		if err != nil {
			fmt.Fprintf(os.Stderr, "stripemock: %v\n", err)
			return 1
		}
		defer server.stop()
		if err := os.Setenv(EnvURL, server.url); err != nil {
			fmt.Fprintf(os.Stderr, "stripemock: %v\n", err)
			return 1
		}
	}
	return m.Run()
}

// URL is the base URL of the test binary's stripe-mock, such as http://127.0.0.1:41234: what
// a Stripe client takes in place of https://api.stripe.com.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(EnvURL)
	if u == "" {
		t.Fatal("stripemock: no stripe-mock; call stripemock.Main from TestMain")
	}
	return u
}

// server is a stripe-mock this package started.
type server struct {
	cmd     *exec.Cmd
	url     string
	drained chan struct{} // closed when its output has been read to the end
}

// start finds stripe-mock, starts it on loopback and waits until it answers.
func start() (*server, error) {
	bin, err := find()
	if err != nil {
		return nil, err
	}
	// Port 0 for both: the system picks free ports, and the program prints them. HTTPS is
	// given an address too, or it would take its fixed default port (12112) and two test
	// binaries could not run at once.
	cmd := exec.Command(bin, "-http-addr", "127.0.0.1:0", "-https-addr", "127.0.0.1:0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // never outlive the tests
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	s := &server{cmd: cmd, drained: make(chan struct{})}
	addr := make(chan string, 1)
	go s.read(out, addr)
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	select {
	case a := <-addr:
		s.url = "http://" + a
	case <-s.drained:
		s.stop()
		return nil, fmt.Errorf("%s stopped before it listened (its errors are above)", bin)
	case <-ctx.Done():
		s.stop()
		return nil, fmt.Errorf("%s did not listen within %v", bin, startTimeout)
	}
	if err := waitUntilAnswering(ctx, s.url); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// read reads the program's output to its end, so that it never blocks on a full pipe (it
// prints a few lines for every request), and sends the HTTP address once it is printed.
func (s *server) read(out io.Reader, addr chan<- string) {
	defer close(s.drained)
	const listening = "Listening for HTTP at address: "
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), listening); ok {
			select {
			case addr <- strings.TrimSpace(a):
			default:
			}
		}
	}
	_, _ = io.Copy(io.Discard, out)
}

// waitUntilAnswering polls the server until it answers an HTTP request, whatever the answer.
func waitUntilAnswering(ctx context.Context, url string) error {
	client := &http.Client{Timeout: time.Second}
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url+"/v1/balance", nil)
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+SecretKey)
		resp, err := client.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("stripe-mock at %s did not answer: %w", url, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// stop kills the program, then reads its output to the end before waiting for it, as
// exec.Cmd.StdoutPipe asks.
func (s *server) stop() {
	_ = s.cmd.Process.Kill()
	<-s.drained
	_ = s.cmd.Wait()
}

// find looks for the program on PATH, then where go install puts it.
func find() (string, error) {
	if path, err := exec.LookPath("stripe-mock"); err == nil {
		return path, nil
	}
	dir := goBin()
	path := filepath.Join(dir, "stripe-mock")
	if info, err := os.Stat(path); err == nil && !info.IsDir() {
		return path, nil
	}
	return "", errors.New("stripe-mock is neither on PATH nor in " + dir + ". Install it " +
		"(Stripe's mock of its API; the payment tests run it) from the Go module proxy with\n\n\t" +
		InstallCommand + "\n\nor run `make tools`.")
}

// goBin is where go install puts programs: $GOBIN, or the bin folder of the first $GOPATH
// entry, as the go command reports them (or as the environment says, when there is no go
// command on PATH).
func goBin() string {
	gobin, gopath := os.Getenv("GOBIN"), os.Getenv("GOPATH")
	if out, err := exec.Command("go", "env", "GOBIN", "GOPATH").Output(); err == nil {
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(lines) == 2 {
			gobin, gopath = lines[0], lines[1]
		}
	}
	if gobin != "" {
		return gobin
	}
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	return filepath.Join(filepath.SplitList(gopath)[0], "bin")
}
