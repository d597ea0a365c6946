package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/proctest"
)

// cli runs the built binary with args and env, to its end, and returns what it printed on
// stdout and stderr and its exit status.
func cli(t *testing.T, env []string, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Getenv(proctest.EnvBinary), args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HTTP_ADDR=127.0.0.1:0"}, env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		status = exit.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	return out.String(), errOut.String(), status
}

func TestHelpPrintsTheUsageAndSucceeds(t *testing.T) {
	t.Parallel()
	for _, arg := range []string{"--help", "-h", "help"} {
		stdout, stderr, status := cli(t, nil, arg)
		require.Equal(t, 0, status, arg)
		require.Contains(t, stdout, "library migrate up|down|status", arg)
		require.Empty(t, stderr, arg)
	}
}

// A mistake in the command line is named, with the usage, and ends with status 2, before the
// configuration is read: no DATABASE_URL is needed to hear that a command is unknown.
func TestCommandLineMistakesAreNamed(t *testing.T) {
	t.Parallel()
	cases := map[string]struct {
		args []string
		want string
	}{
		"unknown command":         {[]string{"frobnicate"}, `unknown command "frobnicate"`},
		"unknown migrate command": {[]string{"migrate", "foo"}, `unknown migrate command "foo" (want up, down or status)`},
		"migrate alone":           {[]string{"migrate"}, "migrate needs one of up, down or status"},
		"serve with an argument":  {[]string{"serve", "now"}, `serve takes no arguments, got "now"`},
		"sip alone":               {[]string{"sip"}, "sip needs terminals add NAME, terminals list or terminals remove NAME"},
		"sip something else":      {[]string{"sip", "kiosks"}, "sip needs terminals add NAME"},
		"sip terminals alone":     {[]string{"sip", "terminals"}, "sip terminals needs add NAME, list or remove NAME"},
		"sip terminals add alone": {[]string{"sip", "terminals", "add"}, "sip terminals add needs one terminal name"},
		"two names to remove":     {[]string{"sip", "terminals", "remove", "a", "b"}, "sip terminals remove needs one terminal name"},
		"list with a name":        {[]string{"sip", "terminals", "list", "a"}, "sip terminals list takes no arguments"},
		"unknown sip command":     {[]string{"sip", "terminals", "rename"}, `unknown sip terminals command "rename" (want add, list or remove)`},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			stdout, stderr, status := cli(t, nil, tc.args...)
			require.Equal(t, 2, status)
			require.Empty(t, stdout)
			require.Contains(t, stderr, "library: "+tc.want)
			require.Contains(t, stderr, "usage:")
			require.NotContains(t, stderr, "DATABASE_URL:")
		})
	}
}

// A database that can't be reached is reported as such, in one line, naming the variable and
// never its password, by serve and by migrate alike.
func TestUnreachableDatabaseIsSaidInPlainWords(t *testing.T) {
	t.Parallel()
	env := []string{"DATABASE_URL=postgres://library:s3cret-pw@127.0.0.1:1/library?connect_timeout=2", "AUTH=off", "PII_KEY=" + base64Key('k')}
	for _, args := range [][]string{{"serve"}, {"migrate", "up"}, {"migrate", "status"}} {
		_, stderr, status := cli(t, env, args...)
		require.Equal(t, 1, status, args)
		require.Contains(t, stderr, "library: cannot reach the database (DATABASE_URL): ", args)
		require.NotContains(t, stderr, "migrate up:", args)
		require.NotContains(t, stderr, "s3cret-pw", args)
		require.Equal(t, 1, bytes.Count([]byte(stderr), []byte("\n")), "one line: %q", stderr)
	}
}
