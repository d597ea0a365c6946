package main

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/testkit/pgtest"
)

func base64Key(b byte) string {
	return base64.StdEncoding.EncodeToString([]byte(strings.Repeat(string(b), 32)))
}

// A service on a database without PII_KEY refuses to start, naming it.
func TestADatabaseWithoutPIIKeyIsRefused(t *testing.T) {
	t.Parallel()
	_, stderr, status := cli(t, []string{"DATABASE_URL=postgres://library@127.0.0.1:1/library", "AUTH=off"}, "serve")
	require.Equal(t, 1, status)
	require.Contains(t, stderr, "PII_KEY is unset")
}

// `library keys rotate` rewraps the data keys with the new KEK, after which the old one can be
// taken out of PII_KEY and every name still reads; the log is not rewritten.
func TestKeysRotate(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	oldKey, newKey := "1:"+base64Key('a'), "2:"+base64Key('b')
	p := start(t, "DATABASE_URL="+url, "PII_KEY="+oldKey)
	waitUntil(t, 10*time.Second, func() bool { return ready(p) }, "ready")
	call(t, "PUT", p.URL("/accounts/m1"), `{"name":"Mina Harker","email":"mina@example.org"}`)
	p.Kill()

	stdout, stderr, status := cli(t, []string{"DATABASE_URL=" + url, "PII_KEY=" + newKey + "," + oldKey}, "keys", "rotate")
	require.Equal(t, 0, status, stderr)
	require.Contains(t, stdout, "rewrapped 1 data keys")
	require.NotContains(t, stdout+stderr, base64Key('a'))

	again := start(t, "DATABASE_URL="+url, "PII_KEY="+newKey)
	waitUntil(t, 10*time.Second, func() bool { return ready(again) }, "ready with the new key alone")
	got := call(t, "GET", again.URL("/accounts/m1"), "")
	require.Equal(t, 200, got.status, got.body)
	require.Contains(t, got.body, "Mina Harker")
}

// `library members audit` lists the member ids that look like email addresses.
func TestMembersAudit(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	pool := pgtest.Connect(t, url)
	_, err := pool.Exec(context.Background(), `INSERT INTO events (stream_id, version, type, data) VALUES
		('account-old@example.org', 1, 'FineCharged', '{"amount":1,"reason":"x"}'),
		('account-m2', 1, 'FineCharged', '{"amount":1,"reason":"x"}'),
		('book-dune', 1, 'BookLent', '{"loanId":"l1","memberId":"older@example.com"}')`)
	require.NoError(t, err)
	stdout, stderr, status := cli(t, []string{"DATABASE_URL=" + url}, "members", "audit")
	require.Equal(t, 0, status, stderr)
	require.Equal(t, "2 member ids look like email addresses\nold@example.org\nolder@example.com\n", stdout)
}
