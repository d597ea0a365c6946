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

	"library/internal/testkit/apitest"
	"library/internal/testkit/paytest"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/smtptest"
)

// demoAdminToken is scripts/demo.sh's ADMIN_TOKEN unless one is given.
const demoAdminToken = "demo-admin-token-for-this-machine-only"

// demoCommands is what scripts/demo-commands.sh prints for these replicas, provider and token,
// and, with kiosk, for a SIP listener and its terminal's password: the commands the demo's
// banner suggests.
func demoCommands(t *testing.T, a, b, issuer, adminToken string, kiosk ...string) string {
	t.Helper()
	args := append([]string{"../../scripts/demo-commands.sh", a, b, issuer, adminToken, "http://127.0.0.1:8025"}, kiosk...)
	out, err := exec.Command("bash", args...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// demoPublicURL is PUBLIC_URL in the demo: its first replica's web app, where the provider's
// page sends a member back. Nobody follows that redirect in these tests.
const demoPublicURL = "http://127.0.0.1:8080"

// payingPair is two replicas with sign-in on that take payments online, as the demo's do:
// through a devpay of their own, which sends each webhook to both.
type payingPair struct {
	signedInPair
	pay *paytest.Provider
	// sip is the holder's SIP listener, and password that of its terminal, demo-kiosk.
	sip, password string
}

// startPayingPair starts the providers, a holder of every lease, then a standby, and points
// the payment provider's webhooks at both.
func startPayingPair(t *testing.T) payingPair {
	t.Helper()
	pay := paytest.Start(t)
	pair := signedInPair{idp: apitest.StartProvider(t), adminToken: "smoke-admin-token-of-at-least-32-characters"}
	pair.smtp = smtptest.Start(t)
	env := []string{"DATABASE_URL=" + pgtest.NewDatabase(t), "SMTP_URL=" + pair.smtp.URL(), "AUTH=",
		"AUTH_ISSUER=" + pair.idp.Issuer, "AUTH_AUDIENCE=" + apitest.Audience, "AUTH_CLIENT_ID=" + apitest.WebClientID, "ADMIN_TOKEN=" + pair.adminToken,
		"PAYMENTS=stripe", "STRIPE_API_URL=" + pay.URL(), "STRIPE_SECRET_KEY=" + pay.SecretKey(),
		"STRIPE_WEBHOOK_SECRET=" + pay.WebhookSecret(), "PUBLIC_URL=" + demoPublicURL}
	sip := "127.0.0.1:" + freePorts(t, 1)[0]
	pair.holder = start(t, append(env, "REPLICA_ID=holder", "SIP_ADDR="+sip)...)
	waitUntil(t, 10*time.Second, func() bool { return holds(pair.holder, "checkouts", pair.adminToken) }, "the first process to hold its leases")
	pair.standby = start(t, append(env, "REPLICA_ID=standby")...)
	waitUntil(t, 10*time.Second, func() bool { return ready(pair.standby) }, "the standby to be ready")
	require.NoError(t, pay.SetWebhookURLs([]string{pair.holder.URL("/webhooks/stripe"), pair.standby.URL("/webhooks/stripe")}))
	stdout, stderr, status := cli(t, env, "sip", "terminals", "add", "demo-kiosk")
	require.Equal(t, 0, status, stderr)
	password := passwordLine.FindStringSubmatch(stdout)
	require.NotNil(t, password, stdout)
	return payingPair{signedInPair: pair, pay: pay, sip: sip, password: password[1]}
}

// Every command the demo prints works as printed, in order, against two replicas with sign-in
// and payments online on: the sample loan is to a member with an address, so its email is
// sent; the member's fine is paid on the provider's page, and recorded once although both
// replicas were told; and the smoke test passes, printing what docs/operations.md shows.
func TestTheDemosCommandsWorkAsPrinted(t *testing.T) {
	t.Parallel()
	pair := startPayingPair(t)
	commands := demoCommands(t, pair.holder.URL(""), pair.standby.URL(""), pair.idp.Issuer, pair.adminToken, pair.sip, pair.password)

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
	var statuses []string
	for _, a := range regexp.MustCompile(`(?m)\} (\d{3})$`).FindAllStringSubmatch(string(out), -1) {
		statuses = append(statuses, a[1])
	}
	require.Equal(t, []string{"201", "201", "201", "201", "201", "200", "201", "201", "201", "201"}, statuses,
		"the contact, the book, the loan, the fine, the checkout, the checkout read again, alice's card and PIN, a title and its copy:\n%s", out)
	kiosk := regexp.MustCompile(`(?m)^12.*$`).FindAllString(string(out), -1)
	require.Regexp(t, `(?m)^941$`, string(out), "the kiosk's terminal logged in")
	require.Len(t, kiosk, 2, "the kiosk's checkout, and the same again: %s", out)
	require.True(t, strings.HasPrefix(kiosk[0], "121"), "lent: %s", kiosk[0])
	require.Equal(t, kiosk[0], kiosk[1], "the checkout sent twice, answered alike")
	require.Regexp(t, `(?m)^303 `+regexp.QuoteMeta(demoPublicURL+"/#/checkouts/alice/co_"), string(out),
		"Pay pressed on the provider's page, which sends alice back to the web app")
	require.Contains(t, string(out), `"holdsLease":true`, "the status")
	require.Contains(t, string(out), "ok: exactly one holder per processor (catalog@2 loans@2 holds@2 notifications late-fines hold-shelf adoption due-dates lost-loans checkouts)",
		"the smoke test, of every processor the replicas run")
	require.Contains(t, string(out), "smoke test passed")
	doc, err := os.ReadFile("../../docs/operations.md")
	require.NoError(t, err)
	for _, line := range regexp.MustCompile(`(?m)^ok: .*$`).FindAllString(string(out), -1) {
		require.True(t, strings.Contains(string(doc), "\n# "+line+"\n"),
			"docs/operations.md shows the smoke test's output, but not this line it prints:\n%s", line)
	}

	delivered := pair.pay.WaitDelivered("checkout.session.completed", 2)
	require.ElementsMatch(t, []string{pair.holder.URL("/webhooks/stripe"), pair.standby.URL("/webhooks/stripe")},
		[]string{delivered[0].URL, delivered[1].URL}, "the payment, told to each replica")
	alice := []string{"Authorization", "Bearer " + pair.idp.Token(t, "alice")}
	waitUntil(t, 10*time.Second, func() bool {
		return strings.Contains(call(t, "GET", pair.standby.URL("/accounts/alice"), "", alice...).body, `"balance":0,`)
	}, "alice's fine, paid")
	history := call(t, "GET", pair.holder.URL("/accounts/alice/history"), "", alice...)
	require.Equal(t, 1, strings.Count(history.body, `"type":"PaymentReceived"`), "one payment, however many were told: %s", history.body)
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
