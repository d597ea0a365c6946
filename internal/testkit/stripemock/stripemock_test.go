package stripemock

import (
	"net/http"
	"strings"
	"testing"
)

// Without the program, the harness says how to install it rather than skip.
func TestAMissingProgramSaysHowToInstallIt(t *testing.T) {
	empty := t.TempDir()
	t.Setenv("PATH", empty) // no stripe-mock, and no go command to ask: the environment is read
	t.Setenv("GOBIN", "")
	t.Setenv("GOPATH", empty)
	_, err := find()
	if err == nil {
		t.Fatal("found a stripe-mock in an empty folder")
	}
	if !strings.Contains(err.Error(), InstallCommand) || !strings.Contains(err.Error(), empty+"/bin") {
		t.Errorf("%q does not say where it looked and how to install it", err)
	}
}

// The program starts on a free port, answers, and stops.
func TestStartAnswersAndStops(t *testing.T) {
	t.Parallel()
	s, err := start()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.url, "http://127.0.0.1:") {
		t.Errorf("url %q, want loopback", s.url)
	}
	s.stop()
	if s.cmd.ProcessState == nil {
		t.Error("stop returned before the program ended")
	}
	if resp, err := http.Get(s.url + "/v1/balance"); err == nil {
		_ = resp.Body.Close()
		t.Error("the program still answers after stop")
	}
}
