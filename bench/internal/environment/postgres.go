package environment

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// Database is the run's own database on one PostgreSQL server, and how to remove it (and the
// server, when the run started it).
type Database struct {
	Name string
	// URL reaches the run's database.
	URL string
	// adminURL reaches the server's maintenance database, to create and drop Name.
	adminURL string
	// others are further databases made by another, dropped with this one.
	others []string
	// stopServer removes the throwaway cluster; nil for a server given by BENCH_DATABASE_URL.
	stopServer func(ctx context.Context) error
}

// OpenDatabase creates a database of the run's own on the server at serverURL, or, when
// serverURL is empty, on a throwaway cluster started with scripts/postgres.sh.
func OpenDatabase(ctx context.Context, serverURL, root string) (*Database, error) {
	db := &Database{adminURL: serverURL}
	if serverURL == "" {
		adminURL, stop, err := startCluster(ctx, root)
		if err != nil {
			return nil, err
		}
		db.adminURL, db.stopServer = adminURL, stop
	}
	db.Name = fmt.Sprintf("librarybench_%d_%d", time.Now().Unix(), os.Getpid())
	u, err := url.Parse(db.adminURL)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		_ = db.Close(ctx)
		return nil, errors.New("BENCH_DATABASE_URL must be a URL such as postgres://user:password@host:5432/postgres")
	}
	u.Path = "/" + db.Name
	db.URL = u.String()

	conn, err := pgx.Connect(ctx, db.adminURL)
	if err != nil {
		_ = db.Close(ctx)
		return nil, fmt.Errorf("connecting to the benchmark's PostgreSQL: %w", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{db.Name}.Sanitize()); err != nil {
		_ = db.Close(ctx)
		return nil, fmt.Errorf("creating database %s: %w", db.Name, err)
	}
	return db, nil
}

// Another creates a further database on the same server, named after the run's with suffix,
// and returns its URL. Close drops it.
func (db *Database) Another(ctx context.Context, suffix string) (string, error) {
	name := db.Name + "_" + suffix
	u, err := url.Parse(db.URL)
	if err != nil {
		return "", err
	}
	u.Path = "/" + name
	conn, err := pgx.Connect(ctx, db.adminURL)
	if err != nil {
		return "", fmt.Errorf("connecting to the benchmark's PostgreSQL: %w", err)
	}
	defer func() { _ = conn.Close(ctx) }()
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", fmt.Errorf("creating database %s: %w", name, err)
	}
	db.others = append(db.others, name)
	return u.String(), nil
}

// Close drops the run's databases and stops the throwaway cluster, if any.
func (db *Database) Close(ctx context.Context) error {
	var errs []error
	for _, name := range db.others {
		conn, err := pgx.Connect(ctx, db.adminURL)
		if err == nil {
			_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)")
			_ = conn.Close(ctx)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("dropping database %s: %w", name, err))
		}
	}
	if db.URL != "" {
		conn, err := pgx.Connect(ctx, db.adminURL)
		if err == nil {
			_, err = conn.Exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db.Name}.Sanitize()+" WITH (FORCE)")
			_ = conn.Close(ctx)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("dropping database %s: %w", db.Name, err))
		}
	}
	if db.stopServer != nil {
		errs = append(errs, db.stopServer(ctx))
	}
	return errors.Join(errs...)
}

// startCluster runs scripts/postgres.sh in a temporary directory on a free port, and returns
// the URL of the cluster's postgres database and how to remove the cluster.
func startCluster(ctx context.Context, root string) (string, func(context.Context) error, error) {
	dir, err := os.MkdirTemp("", "librarybench-pg-")
	if err != nil {
		return "", nil, fmt.Errorf("temporary directory for PostgreSQL: %w", err)
	}
	// The script runs the server as the postgres user when we are root: it must reach the
	// directory.
	if err := os.Chmod(dir, 0o755); err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, fmt.Errorf("temporary directory for PostgreSQL: %w", err)
	}
	port, err := FreePort()
	if err != nil {
		_ = os.RemoveAll(dir)
		return "", nil, err
	}
	script := filepath.Join(root, "scripts", "postgres.sh")
	env := append(os.Environ(), "PGDIR="+dir, "PGPORT="+strconv.Itoa(port))
	stop := func(ctx context.Context) error {
		cmd := exec.CommandContext(ctx, script, "stop")
		cmd.Env = env
		out, err := cmd.CombinedOutput()
		_ = os.RemoveAll(dir)
		if err != nil {
			return fmt.Errorf("scripts/postgres.sh stop: %w: %s", err, strings.TrimSpace(string(out)))
		}
		return nil
	}
	Logf("starting a throwaway PostgreSQL on port %d in %s", port, dir)
	cmd := exec.CommandContext(ctx, script, "start")
	cmd.Env = env
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if _, err := cmd.Output(); err != nil {
		_ = stop(context.WithoutCancel(ctx))
		return "", nil, fmt.Errorf("scripts/postgres.sh start: %w: %s", err, strings.TrimSpace(stderr.String()))
	}
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port), stop, nil
}

// FreePort asks the kernel for a TCP port on loopback that nothing listens on now.
func FreePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("finding a free port: %w", err)
	}
	defer func() { _ = l.Close() }()
	return l.Addr().(*net.TCPAddr).Port, nil
}
