package app

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/migrations"
)

// What the commands of the command line share: the database they open, refused unless it is
// migrated already, and who the log says wrote what they record.

// CommandLine is the actor of what the command line records: an operator with the database's
// keys, who signs in nowhere; subject names them ("" for "command-line", as `--actor` may).
func CommandLine(subject string) eventstore.Actor {
	if subject == "" {
		subject = "command-line"
	}
	return eventstore.Actor{Subject: subject, Role: "system"}
}

// OpenDatabase opens DATABASE_URL for a command of the command line.
func OpenDatabase(ctx context.Context, cfg Config, what string) (*pgxpool.Pool, error) {
	if cfg.DatabaseURL == "" {
		return nil, fmt.Errorf("%s needs DATABASE_URL: in memory nothing is kept", what)
	}
	cfg, err := cfg.Complete()
	if err != nil {
		return nil, err
	}
	poolCfg, err := poolConfig(cfg)
	if err != nil {
		return nil, err
	}
	return pgxpool.NewWithConfig(ctx, poolCfg)
}

// OpenLog opens the log on DATABASE_URL, migrated already, for a command of the command line
// (what), and returns what closes it.
func OpenLog(ctx context.Context, cfg Config, logger *slog.Logger, what string) (*pgstore.Postgres, func(), error) {
	pool, err := OpenDatabase(ctx, cfg, what)
	if err != nil {
		return nil, nil, err
	}
	if err := migrated(ctx, pool); err != nil {
		pool.Close()
		return nil, nil, err
	}
	store := pgstore.New(pool, logger)
	return store, func() {
		store.Close()
		pool.Close()
	}, nil
}

// migrated refuses a database that can't be reached, or whose schema is behind this release's:
// the command line's commands other than migrate never apply migrations.
func migrated(ctx context.Context, pool *pgxpool.Pool) error {
	if err := migrations.CheckServer(ctx, pool); err != nil {
		return err
	}
	latest, err := migrations.Latest()
	if err != nil {
		return err
	}
	current, err := migrations.Current(ctx, pool)
	if err != nil {
		return fmt.Errorf("the database's schema version cannot be read: %w", err)
	}
	switch {
	case current == 0:
		return fmt.Errorf("the database has no schema yet: run `library migrate up` first")
	case current < latest:
		return fmt.Errorf("the database's schema is at version %d of %d: run `library migrate up` first", current, latest)
	}
	return nil
}
