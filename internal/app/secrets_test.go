package app_test

// The service's secrets (the password in DATABASE_URL, the user and password in SMTP_URL, and
// ADMIN_TOKEN) never appear in its logs, its answers, /status or /metrics: not at start, not
// in normal work, not when a request has the wrong token, not when the mail server refuses the
// credentials or is down, and not while the database is away.

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/smtptest"
	"library/internal/testkit/syncbuf"
)

// A secret is a value that must not leak. Its core is a run of letters and digits found
// nowhere else, so that it shows through any escaping or quoting; the rest holds characters
// that URLs, JSON and quoting escape.
type secret struct {
	name, core, value string
}

func newSecret(name, core, rest string) secret {
	return secret{name: name, core: core, value: core + rest}
}

// forms are the ways a secret could be written: as it is, escaped for a URL, JSON or Go
// quoting, and in base64.
func (s secret) forms() []string {
	quoted := strconv.Quote(s.value)
	jsonText, _ := json.Marshal(s.value)
	return []string{
		s.core, s.value,
		url.QueryEscape(s.value), url.PathEscape(s.value), url.UserPassword(s.value, s.value).String(),
		quoted[1 : len(quoted)-1], string(jsonText[1 : len(jsonText)-1]),
		base64.StdEncoding.EncodeToString([]byte(s.value)), base64.StdEncoding.EncodeToString([]byte(s.core)),
	}
}

// requireNoSecret fails the test for every secret, in any of its forms, found in text.
func requireNoSecret(t *testing.T, where, text string, secrets ...secret) {
	t.Helper()
	for _, s := range secrets {
		for _, form := range s.forms() {
			if i := strings.Index(text, form); i >= 0 {
				start, end := max(0, i-200), min(len(text), i+len(form)+200)
				t.Errorf("%s shows %s (as %q): ...%s...", where, s.name, form, text[start:end])
			}
		}
	}
}

func TestSecretsNeverShow(t *testing.T) {
	t.Parallel()
	dbPassword := newSecret("the DATABASE_URL password", "dbPassQ7x1Zk", "/p@ss:w?rd#&%ü 1")
	smtpUser := newSecret("the SMTP_URL user", "smtpUserK9v4Jd", "@mail.example.org")
	smtpPassword := newSecret("the SMTP_URL password", "smtpPassR2m8Wq", "/:@ &?#%+")
	adminToken := newSecret("ADMIN_TOKEN", "adminTokenT5n3HyQw8Lk2Zp9Rv4Xm", "-~._+/=")
	secrets := []secret{dbPassword, smtpUser, smtpPassword, adminToken}
	authPlain := base64.StdEncoding.EncodeToString([]byte("\x00" + smtpUser.value + "\x00" + smtpPassword.value))

	// The test cluster trusts local connections, so the password is never asked for: it is
	// in the URL, where the service must keep it to itself.
	proxy, proxied := pgtest.NewProxy(t, pgtest.NewDatabase(t))
	databaseURL, err := url.Parse(proxied)
	require.NoError(t, err)
	databaseURL.User = url.UserPassword(databaseURL.User.Username(), dbPassword.value)
	// The mail server knows the user, not the password the service has: it refuses AUTH.
	smtp := smtptest.Start(t, smtptest.Options{Username: smtpUser.value, Password: "another-password"})
	smtpURL := url.URL{Scheme: "smtp", Host: smtp.Addr(), RawQuery: "tls=none",
		User: url.UserPassword(smtpUser.value, smtpPassword.value)}

	cfg := fastBackground(app.Config{DatabaseURL: databaseURL.String(), SMTPURL: smtpURL.String(), MailFrom: "desk@library.test",
		ReplicaID: "replica-secrets"})
	cfg.AdminToken = adminToken.value
	cfg.RequestTimeout = 3 * time.Second
	// Every log line, at every level, in both formats, and to the test's log for a failure.
	var textLogs, jsonLogs syncbuf.Buffer
	debug := &slog.HandlerOptions{Level: slog.LevelDebug}
	logger := slog.New(slog.NewMultiHandler(
		slog.NewTextHandler(&textLogs, debug), slog.NewJSONHandler(&jsonLogs, debug),
		slog.NewTextHandler(testLog(t), debug)))
	service := apitest.Launch(t, cfg, logger)
	a, stop := service.API("postgres"), service.Stop

	var answers []response
	call := func(method, path string, body any, headers ...string) response {
		t.Helper()
		r := a.Call(t, method, path, body, headers...)
		answers = append(answers, r)
		return r
	}
	outbox := func() (relay, lastError string) {
		t.Helper()
		var s statusView
		r := call(http.MethodGet, "/status", nil)
		if r.Status == http.StatusServiceUnavailable {
			return "", "" // a database too busy to say, this once: asked again
		}
		requireJSON(t, r, &s)
		for _, p := range s.Processors {
			if p.Name == "notifications" {
				if p.LastError != nil {
					lastError = *p.LastError
				}
				if p.Relay != nil {
					relay = p.Relay.State
				}
				return relay, lastError
			}
		}
		t.Fatal("/status has no notifications")
		return "", ""
	}
	// /metrics is served apart from the API, on METRICS_ADDR: its answers are checked too.
	scrape := func() response {
		t.Helper()
		resp, err := http.Get(a.Metrics + "/metrics")
		require.NoError(t, err)
		defer func() { _ = resp.Body.Close() }()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		r := response{Status: resp.StatusCode, Header: resp.Header, Body: body}
		answers = append(answers, r)
		return r
	}
	bearer := "Bearer " + adminToken.value
	logsSay := func(what string) func() bool {
		return func() bool { return strings.Contains(textLogs.String(), what) }
	}

	// Normal work, and a loan email that the mail server refuses for its credentials.
	requireResult(t, call(http.MethodPut, "/accounts/reader", obj{"name": "Reader", "email": "reader@example.org"}),
		http.StatusCreated, "account-reader")
	requireResult(t, call(http.MethodPost, "/accounts/reader/fines", obj{"amount": 300, "reason": "Dune, 12 days late"}),
		http.StatusCreated, "account-reader")
	requireResult(t, call(http.MethodPost, "/accounts/reader/payments", obj{"amount": 300}, "Idempotency-Key", "pay-1"),
		http.StatusCreated, "account-reader")
	requireResult(t, call(http.MethodPost, "/books", obj{"id": "dune", "title": "Dune", "author": "Frank Herbert"}),
		http.StatusCreated, "book-dune")
	requireResult(t, call(http.MethodPost, "/books/dune/loans", obj{"loanId": "loan-1", "memberId": "reader"}),
		http.StatusCreated, "book-dune")
	requireProblem(t, call(http.MethodPost, "/books", obj{"id": "-bad"}), http.StatusBadRequest, "InvalidRequest")
	call(http.MethodGet, "/books", nil)
	connections := smtp.Connections()
	eventually(t, 20*time.Second, func() bool {
		relay, lastError := outbox()
		return relay == "down" && strings.Contains(lastError, "(auth)") && smtp.Connections() > connections+1
	}, "sending paused, and tried again, after the mail server refused the credentials")

	// Admin requests with wrong tokens, then with the right one.
	for _, wrong := range []string{"Bearer wrong", bearer[:len(bearer)-1], bearer + "x", "Basic " + adminToken.value, adminToken.value} {
		requireProblem(t, call(http.MethodPost, "/admin/processors/notifications/retry-parked", nil, "Authorization", wrong),
			http.StatusUnauthorized, "Unauthorized")
	}
	require.Equal(t, http.StatusAccepted, call(http.MethodPost, "/admin/processors/notifications/retry-parked", nil,
		"Authorization", bearer).Status)

	// The mail server goes down.
	smtp.Close()
	eventually(t, 20*time.Second, func() bool {
		relay, lastError := outbox()
		return relay == "down" && strings.Contains(lastError, "(connect)")
	}, "sending paused after the mail server went away")

	// The database goes away, and comes back.
	proxy.Cut()
	requireProblem(t, call(http.MethodGet, "/accounts/reader", nil), http.StatusServiceUnavailable, "Unavailable")
	requireProblem(t, call(http.MethodPost, "/accounts/reader/fines", obj{"amount": 100, "reason": "Lost card"}),
		http.StatusServiceUnavailable, "Unavailable")
	requireProblem(t, call(http.MethodGet, "/readyz", nil), http.StatusServiceUnavailable, "Unavailable")
	call(http.MethodGet, "/status", nil)
	scrape()
	call(http.MethodPost, "/admin/processors/catalog/replay", nil, "Authorization", bearer)
	eventually(t, 20*time.Second, logsSay("lease lost"), "a lease lost to the outage")
	eventually(t, 20*time.Second, logsSay("can't reach the database"), "a lease retried during the outage")
	proxy.Restore()
	eventually(t, 20*time.Second, func() bool { return call(http.MethodGet, "/readyz", nil).Status == http.StatusOK },
		"ready again after the outage")
	call(http.MethodGet, "/status", nil)
	require.Equal(t, http.StatusOK, scrape().Status)
	stop()

	logs := textLogs.String()
	for _, want := range []string{"store: PostgreSQL", "mail: SMTP", "535", "refused", "lease lost", "status=401", "status=503", "stopped"} {
		assert.Contains(t, logs, want, "the logs show that this happened, so the check below covers it")
	}
	requireNoSecret(t, "the text logs", logs, secrets...)
	requireNoSecret(t, "the JSON logs", jsonLogs.String(), secrets...)
	for _, form := range []string{authPlain, base64.StdEncoding.EncodeToString([]byte(smtpUser.value))} {
		assert.NotContains(t, logs+jsonLogs.String(), form, "the SMTP AUTH exchange")
	}
	for _, r := range answers {
		text := fmt.Sprintf("%d %v %s", r.Status, r.Header, r.Body)
		requireNoSecret(t, "an answer", text, secrets...)
	}
}

// Configuration errors name the variable, and never show a password or user name, whatever
// is wrong with the URL that holds them.
func TestConfigErrorsNeverShowSecrets(t *testing.T) {
	t.Parallel()
	password := newSecret("the password", "cfgPassH4k8Vt", "/p@ss:w?rd#&%ü")
	user := newSecret("the SMTP user", "cfgUserB6w2Pn", "@mail.example.org")
	escaped := url.QueryEscape(password.value)
	userinfo := url.UserPassword(url.QueryEscape(user.value), password.value).String()
	for _, env := range []map[string]string{
		{"DATABASE_URL": "postgres://library:" + escaped + "@db:99999/library"},
		{"DATABASE_URL": "postgres://library:" + escaped + "@db/library?pool_max_conns=many"},
		{"DATABASE_URL": "postgres://library:" + escaped + "@db/library?pool_max_conn_lifetime=forever"},
		{"DATABASE_URL": "postgres://library:" + escaped + "@db/library?connect_timeout=soon"},
		{"DATABASE_URL": "postgres://library:" + escaped + "@db/library?sslmode=sometimes"},
		{"DATABASE_URL": "postgres://library:" + escaped + "@db/library?target_session_attrs=any-old"},
		{"DATABASE_URL": "postgres://library:" + escaped + "@[::1/library"},
		{"DATABASE_URL": "postgres://library:" + password.core + "%zz@db/library"},
		{"DATABASE_URL": "postgres://library:" + password.core + "%@db/library"},
		{"DATABASE_URL": "host=db user=library password=" + password.core + " port=many"},
		{"DATABASE_URL": "host=db user=library password='" + password.core},
		{"DATABASE_URL": "host=db user=library password=" + password.core + " sslmode=sometimes"},
		{"DATABASE_URL": "postgres://library:" + escaped + "@db/library", "LOG_LEVEL": "chatty"},
		{"SMTP_URL": "smtp://" + userinfo + "@mail.example.org:99999"},
		{"SMTP_URL": "smtp://" + userinfo + "@mail.example.org?tls=sometimes"},
		{"SMTP_URL": "smtp://" + userinfo + "@mail.example.org?timeout=5s"},
		{"SMTP_URL": "smtp://" + userinfo + "@mail.example.org/inbox"},
		{"SMTP_URL": "smtps://" + userinfo + "@mail.example.org?tls=none"},
		{"SMTP_URL": "imap://" + userinfo + "@mail.example.org"},
		{"SMTP_URL": "smtp://" + user.core + ":" + password.core + "%zz@mail.example.org"},
		{"SMTP_URL": "smtp://" + userinfo + "@:25"},
		{"SMTP_URL": "smtp://:" + escaped + "@mail.example.org"},
		{"SMTP_URL": "smtp://" + userinfo + "@mail.example.org", "MAIL_FROM": "not an address"},
	} {
		_, err := app.FromEnv(func(name string) string { return env[name] })
		if !assert.Error(t, err, "%v", env) {
			continue
		}
		requireNoSecret(t, "the error", err.Error(), password, user)
		requireNoSecret(t, "the error", fmt.Sprintf("%+v %#v", err, err), password, user)
	}

	// A URL that reads well but whose server can't be reached fails at start, with the same care.
	var logs syncbuf.Buffer
	_, err := app.New(context.Background(), app.Config{
		DatabaseURL:    "postgres://library:" + escaped + "@127.0.0.1:1/library?connect_timeout=2",
		HTTPAddr:       "127.0.0.1:0",
		MigrateOnStart: true,
	}, slog.New(slog.NewTextHandler(io.MultiWriter(&logs, testLog(t)), &slog.HandlerOptions{Level: slog.LevelDebug})))
	require.Error(t, err)
	requireNoSecret(t, "the error of app.New", fmt.Sprintf("%v %+v", err, err), password)
	requireNoSecret(t, "the logs of app.New", logs.String(), password)

}
