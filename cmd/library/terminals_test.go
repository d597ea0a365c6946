package main

import (
	"context"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore/pgstore"
	"library/internal/terminals"
	"library/internal/testkit/pgtest"
)

// passwordLine is the line of `sip terminals add`'s output that holds the password.
var passwordLine = regexp.MustCompile(`(?m)^([A-Z2-7]{26})$`)

// `library sip terminals add` prints a password, once, that logs in through the terminals
// service on the same database; list shows the terminal, remove ends its logins; adding a name
// twice is refused, saying why; and the password is nowhere in the database.
func TestSIPTerminals(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	env := []string{"DATABASE_URL=" + url}
	ctx := context.Background()
	store := pgstore.New(pgtest.Connect(t, url), slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(store.Close)
	service := terminals.NewService(store, aggregate.Options{}, time.Now)

	stdout, stderr, status := cli(t, env, "sip", "terminals", "add", "Kiosk-1")
	require.Equal(t, 0, status, stderr)
	require.Contains(t, stdout, "terminal kiosk-1 added")
	require.Contains(t, stdout, "will not be shown again")
	found := passwordLine.FindStringSubmatch(stdout)
	require.NotNil(t, found, "a line with the password alone: %q", stdout)
	password := found[1]
	require.NotContains(t, stderr, password)
	require.NotContains(t, stdout+stderr, "argon2id")

	require.NoError(t, service.Login(ctx, "kiosk-1", password))
	require.True(t, errs.Is(service.Login(ctx, "kiosk-1", "WRONGPASSWORD"), errs.Unauthorized))

	stdout, stderr, status = cli(t, env, "sip", "terminals", "add", "kiosk-1")
	require.Equal(t, 1, status)
	require.Empty(t, stdout)
	require.Contains(t, stderr, "library: TerminalExists: terminal kiosk-1 is added already; to give it a new password, remove it and add it again")
	require.NoError(t, service.Login(ctx, "kiosk-1", password), "the first password still logs in")

	_, stderr, status = cli(t, env, "sip", "terminals", "add", "kiosk-2")
	require.Equal(t, 0, status, stderr)
	stdout, stderr, status = cli(t, env, "sip", "terminals", "list")
	require.Equal(t, 0, status, stderr)
	require.Regexp(t, `^2 terminals\nkiosk-1 +added \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\nkiosk-2 +added \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n$`, stdout)

	var inEvents int
	require.NoError(t, pgtest.Connect(t, url).QueryRow(ctx,
		`SELECT count(*) FROM events WHERE data::text LIKE '%' || $1 || '%' OR metadata::text LIKE '%' || $1 || '%'`, password).Scan(&inEvents))
	require.Zero(t, inEvents, "the password is in no event")
	dump := pgtest.Dump(t, url)
	require.Contains(t, dump, "terminals-registry")
	require.NotContains(t, dump, password, "nor anywhere else in the database")

	stdout, stderr, status = cli(t, env, "sip", "terminals", "remove", "kiosk-1")
	require.Equal(t, 0, status, stderr)
	require.Contains(t, stdout, "terminal kiosk-1 removed")
	require.True(t, errs.Is(service.Login(ctx, "kiosk-1", password), errs.Unauthorized), "a removed terminal no longer logs in")
	stdout, _, status = cli(t, env, "sip", "terminals", "list")
	require.Equal(t, 0, status)
	require.True(t, strings.HasPrefix(stdout, "1 terminal\nkiosk-2 "), stdout)

	_, stderr, status = cli(t, env, "sip", "terminals", "remove", "kiosk-1")
	require.Equal(t, 1, status)
	require.Contains(t, stderr, "library: NotFound: there is no terminal kiosk-1")
	_, stderr, status = cli(t, env, "sip", "terminals", "add", "kiosk 3")
	require.Equal(t, 1, status)
	require.Contains(t, stderr, "a terminal name must be 1 to 64 characters from A-Z a-z 0-9 - _ .")
}

// The terminals commands need DATABASE_URL, and a database migrated already: they never apply
// migrations themselves.
func TestSIPTerminalsNeedAMigratedDatabase(t *testing.T) {
	t.Parallel()
	_, stderr, status := cli(t, nil, "sip", "terminals", "list")
	require.Equal(t, 1, status)
	require.Contains(t, stderr, "library: sip terminals needs DATABASE_URL")

	url := pgtest.NewEmptyDatabase(t)
	_, stderr, status = cli(t, []string{"DATABASE_URL=" + url}, "sip", "terminals", "add", "kiosk-1")
	require.Equal(t, 1, status)
	require.Contains(t, stderr, "library: the database has no schema yet: run `library migrate up` first")
	var tables int
	require.NoError(t, pgtest.Connect(t, url).QueryRow(context.Background(),
		`SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'`).Scan(&tables))
	require.Zero(t, tables, "nothing was created")
}
