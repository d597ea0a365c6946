package main

import (
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// demoAdminToken is scripts/demo.sh's ADMIN_TOKEN unless one is given.
const demoAdminToken = "demo-admin-token-for-this-machine-only"

// demoCommands is what scripts/demo-commands.sh prints for these replicas, provider and token:
// the commands the demo's banner suggests.
func demoCommands(t *testing.T, a, b, issuer, adminToken string) string {
	t.Helper()
	out, err := exec.Command("bash", "../../scripts/demo-commands.sh", a, b, issuer, adminToken, "http://127.0.0.1:8025").CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// Every command the demo prints works as printed, in order, against two replicas with sign-in
// on: the sample loan is to a member with an address, so its email is sent, and the smoke test
// passes.
func TestTheDemosCommandsWorkAsPrinted(t *testing.T) {
	t.Parallel()
	pair := startSignedInPair(t)
	commands := demoCommands(t, pair.holder.URL(""), pair.standby.URL(""), pair.idp.Issuer, pair.adminToken)

	cmd := exec.Command("bash", "-c", commands)
	cmd.Dir = "../.."                                                // as the demo says: from the repository's root
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { // a newcomer's shell has neither
		return strings.HasPrefix(kv, "ADMIN_TOKEN=") || strings.HasPrefix(kv, "SMOKE_TOKEN=")
	})
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "commands:\n%s\noutput:\n%s", commands, out)
	waitUntil(t, 10*time.Second, func() bool {
		for _, m := range pair.smtp.Messages() {
			if slices.Contains(m.To, "alice@example.org") && m.Subject == "You borrowed Dune" {
				return true
			}
		}
		return false
	}, "the sample loan's email to alice, sent, not parked for want of an address")
	answers := regexp.MustCompile(`(?m)\} (\d{3})$`).FindAllStringSubmatch(string(out), -1)
	require.Len(t, answers, 3, "the contact, the book and the loan:\n%s", out)
	for _, a := range answers {
		require.Equal(t, "201", a[1], "%s", out)
	}
	require.Contains(t, string(out), `"holdsLease":true`, "the status")
	require.Contains(t, string(out), "smoke test passed")
}

// docs/operations.md shows the smoke command as the demo prints it, so that it works too.
func TestTheOperationsGuideShowsTheDemosSmokeCommand(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile("../../docs/operations.md")
	require.NoError(t, err)
	demo, err := os.ReadFile("../../scripts/demo.sh")
	require.NoError(t, err)
	require.Contains(t, string(demo), `ADMIN_TOKEN="${ADMIN_TOKEN:-`+demoAdminToken+`}"`, "the demo's own admin token")
	commands := demoCommands(t, "http://127.0.0.1:8080", "http://127.0.0.1:8081", "http://127.0.0.1:9096", demoAdminToken)
	for _, line := range strings.Split(commands, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "token()") || strings.HasPrefix(line, "SMOKE_TOKEN=") {
			require.True(t, strings.Contains(string(doc), line), "docs/operations.md lacks the line the demo prints:\n%s", line)
		}
	}
}
