// Package migrations holds the database schema as goose SQL files, embedded in the binary, and
// applies them under a PostgreSQL session lock so that replicas starting at once take turns.
package migrations

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"
)

//go:embed *.sql
var files embed.FS

// Migrator applies the embedded migrations to one database.
type Migrator struct {
	db       *sql.DB
	provider *goose.Provider
}

// New returns a Migrator that works through pool. Close it when done; the pool stays open.
func New(pool *pgxpool.Pool, logger *slog.Logger) (*Migrator, error) {
	// A replica that finds the lock taken asks again every second, for up to five minutes.
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return nil, err
	}
	db := stdlib.OpenDBFromPool(pool)
	provider, err := goose.NewProvider(goose.DialectPostgres, db, files,
		goose.WithSessionLocker(locker),
		goose.WithSlog(logger),
	)
	if err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("migrations: %w", err)
	}
	return &Migrator{db: db, provider: provider}, nil
}

// Up applies every pending migration.
func (m *Migrator) Up(ctx context.Context) ([]*goose.MigrationResult, error) {
	return m.provider.Up(ctx)
}

// Down rolls back the most recent migration.
func (m *Migrator) Down(ctx context.Context) (*goose.MigrationResult, error) {
	return m.provider.Down(ctx)
}

// Status lists every migration and whether it is applied.
func (m *Migrator) Status(ctx context.Context) ([]*goose.MigrationStatus, error) {
	return m.provider.Status(ctx)
}

// HasPending reports whether a migration is yet to be applied.
func (m *Migrator) HasPending(ctx context.Context) (bool, error) {
	return m.provider.HasPending(ctx)
}

// Close releases the migrator's database handle; the pool it was given stays open.
func (m *Migrator) Close() error {
	return m.db.Close()
}

// Latest is the version of the newest embedded migration: the number its file name starts with.
func Latest() (int64, error) {
	names, err := fs.Glob(files, "*.sql")
	if err != nil {
		return 0, err
	}
	var latest int64
	for _, name := range names {
		digits, _, _ := strings.Cut(name, "_")
		v, err := strconv.ParseInt(digits, 10, 64)
		if err != nil {
			return 0, fmt.Errorf("migrations: %s does not start with a version number", name)
		}
		latest = max(latest, v)
	}
	return latest, nil
}

// Current returns the version the database's schema is at, 0 when no migration has run. Unlike
// the goose provider it only reads: it takes no lock and creates no table, so readiness probes
// can call it.
func Current(ctx context.Context, pool *pgxpool.Pool) (int64, error) {
	var version int64
	err := pool.QueryRow(ctx, `SELECT coalesce(max(version_id), 0) FROM `+goose.DefaultTablename+` WHERE is_applied`).Scan(&version)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && pgErr.Code == "42P01" { // undefined_table: never migrated
		return 0, nil
	}
	if err != nil {
		return 0, errors.New(err.Error()) // the driver's text, for the logs, without its types
	}
	return version, nil
}
