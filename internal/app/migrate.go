package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/migrations"
)

// MigrateDatabase runs a migration command ("up", "down" or "status") against the database of
// cfg; see Migrate.
func MigrateDatabase(ctx context.Context, cfg Config, logger *slog.Logger, command string, out io.Writer) error {
	if cfg.DatabaseURL == "" {
		return errors.New("migrate needs DATABASE_URL: in memory there is no schema")
	}
	cfg, err := cfg.Complete()
	if err != nil {
		return err
	}
	poolCfg, err := poolConfig(cfg)
	if err != nil {
		return err
	}
	pool, err := pgxpool.NewWithConfig(ctx, poolCfg)
	if err != nil {
		return err
	}
	defer pool.Close()
	if err := migrations.CheckServer(ctx, pool); err != nil {
		return err
	}
	return Migrate(ctx, pool, logger, command, out)
}

// Migrate runs a migration command ("up", "down" or "status") against the database. Status is
// written to out, one migration per line.
func Migrate(ctx context.Context, pool *pgxpool.Pool, logger *slog.Logger, command string, out io.Writer) error {
	m, err := migrations.New(pool, logger)
	if err != nil {
		return err
	}
	defer func() { _ = m.Close() }()
	switch command {
	case "up":
		results, err := m.Up(ctx)
		if err != nil {
			return fmt.Errorf("migrate up: %w", err)
		}
		for _, r := range results {
			logger.Info("migration applied", "migration", r.Source.Path, "duration", r.Duration.String())
		}
	case "down":
		r, err := m.Down(ctx)
		if err != nil {
			return fmt.Errorf("migrate down: %w", err)
		}
		logger.Info("migration rolled back", "migration", r.Source.Path, "duration", r.Duration.String())
	case "status":
		statuses, err := m.Status(ctx)
		if err != nil {
			return fmt.Errorf("migrate status: %w", err)
		}
		for _, s := range statuses {
			appliedAt := ""
			if !s.AppliedAt.IsZero() {
				appliedAt = s.AppliedAt.UTC().Format(time.RFC3339)
			}
			if _, err := fmt.Fprintf(out, "%-8s %s %s\n", s.State, s.Source.Path, appliedAt); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown migrate command %q: use up, down or status", command)
	}
	return nil
}
