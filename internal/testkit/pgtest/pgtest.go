// Package pgtest gives tests a real PostgreSQL: a fresh, migrated database per test.
//
// A test binary that uses it calls Main from TestMain. Main uses the server named by
// TEST_DATABASE_URL when it is set (the role must be allowed to create databases); otherwise it
// starts a throwaway cluster from the local PostgreSQL server binaries (initdb, postgres) in a
// temporary folder on a free port, as the "postgres" user when the tests run as root, and
// removes it when the tests end. When neither is possible, Main fails the run and says how to
// get a server: PostgreSQL tests never skip.
//
// Main migrates one template database per test binary; NewDatabase copies it, which takes
// milliseconds, and drops the copy when the test ends.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/migrations"
)

const (
	// EnvURL names a PostgreSQL server for the tests. Main sets it to the throwaway cluster's
	// address when it starts one, so that NewDatabase and child processes find it.
	EnvURL = "TEST_DATABASE_URL"
	// envTemplate names this test binary's migrated template database.
	envTemplate = "PGTEST_TEMPLATE"
	// envKeep is set when the server is a throwaway cluster of this test binary: its
	// databases are not dropped one by one, since the cluster goes as a whole.
	envKeep = "PGTEST_KEEP_DATABASES"
)

// Main runs a test binary's tests against PostgreSQL and exits with their result.
func Main(m *testing.M) {
	os.Exit(Run(m))
}

// Run is Main for a TestMain that has more to do after the tests: it returns the exit code.
func Run(m *testing.M) int {
	ctx := context.Background()
	if os.Getenv(EnvURL) == "" {
		cluster, err := startCluster(ctx)
		if err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n\n%s\n", err, howToGetPostgres)
			return 1
		}
		defer cluster.stop()
		if err := os.Setenv(EnvURL, cluster.url); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
			return 1
		}
		if err := os.Setenv(envKeep, "1"); err != nil {
			fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
			return 1
		}
	} else if u, err := url.Parse(os.Getenv(EnvURL)); err != nil || u.Scheme == "" {
		fmt.Fprintf(os.Stderr, "pgtest: %s must be a URL such as postgres://user@host:5432/postgres\n", EnvURL)
		return 1
	}
	template, err := createTemplate(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n\n%s\n", err, howToGetPostgres)
		return 1
	}
	defer dropDatabase(context.Background(), template)
	if err := os.Setenv(envTemplate, template); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		return 1
	}
	return m.Run()
}

const howToGetPostgres = `PostgreSQL tests need a server. Either:
  - install the PostgreSQL server binaries (Debian: apt-get install postgresql), so that
    initdb and postgres are on PATH or in /usr/lib/postgresql/<version>/bin; or
  - set TEST_DATABASE_URL=postgres://user:password@host:port/postgres?sslmode=disable
    for a server where that role may CREATE DATABASE.`

// NewDatabase creates a fresh, migrated database for one test and returns its URL. It is
// dropped when the test ends, or with the throwaway cluster.
func NewDatabase(t testing.TB) string {
	t.Helper()
	template := os.Getenv(envTemplate)
	if template == "" {
		t.Fatal("pgtest: no template database; call pgtest.Main from TestMain")
	}
	ctx := context.Background()
	name := "t_" + randomHex(8)
	if err := adminExec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, template)); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	dropTestDatabase(t, name)
	return databaseURL(name)
}

// NewEmptyDatabase creates a database without the schema and returns its URL: for tests of the
// migrations themselves. It goes as NewDatabase's do.
func NewEmptyDatabase(t testing.TB) string {
	t.Helper()
	name := "t_" + randomHex(8)
	if err := adminExec(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("pgtest: create database: %v", err)
	}
	dropTestDatabase(t, name)
	return databaseURL(name)
}

// NewPool returns a pool on a fresh, migrated database, closed when the test ends.
func NewPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	return Connect(t, NewDatabase(t))
}

// Connect returns a pool on the database at url, closed when the test ends.
func Connect(t testing.TB, url string) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), url)
	if err != nil {
		t.Fatalf("pgtest: connect: %v", err)
	}
	t.Cleanup(pool.Close)
	return pool
}

func createTemplate(ctx context.Context) (string, error) {
	name := "template_" + randomHex(8)
	if err := adminExec(ctx, "CREATE DATABASE "+name); err != nil {
		return "", fmt.Errorf("create template database: %w", err)
	}
	pool, err := pgxpool.New(ctx, databaseURL(name))
	if err != nil {
		dropDatabase(ctx, name)
		return "", err
	}
	defer pool.Close()
	migrator, err := migrations.New(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		dropDatabase(ctx, name)
		return "", err
	}
	defer func() { _ = migrator.Close() }()
	if _, err := migrator.Up(ctx); err != nil {
		dropDatabase(ctx, name)
		return "", fmt.Errorf("migrate template database: %w", err)
	}
	return name, nil
}

// dropTestDatabase drops a test's database when the test ends, except on a throwaway cluster,
// which is removed whole when the tests end. There, dropping while other tests run would stall
// them: DROP DATABASE holds a transaction id while it waits for the database's sessions to
// end, and readers of the log wait for every transaction in the cluster (see eventstore).
func dropTestDatabase(t testing.TB, name string) {
	if os.Getenv(envKeep) != "" {
		return
	}
	t.Cleanup(func() { dropDatabase(context.Background(), name) })
}

func dropDatabase(ctx context.Context, name string) {
	_ = adminExec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
}

func adminExec(ctx context.Context, sql string) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, os.Getenv(EnvURL))
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(ctx) }()
	_, err = conn.Exec(ctx, sql)
	return err
}

// databaseURL is the server's URL with another database name.
func databaseURL(name string) string {
	u, _ := url.Parse(os.Getenv(EnvURL)) // checked in Run
	u.Path = "/" + name
	return u.String()
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
