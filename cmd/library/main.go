// Command library is the lending library's back end: an event-sourced HTTP service that runs
// in memory, or on PostgreSQL when DATABASE_URL is set.
//
//	library [serve]                 serve the HTTP API (the default)
//	library migrate up|down|status  manage the database schema
//
// Configuration comes from the environment; see README.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"library/internal/app"
	"library/internal/telemetry"
	"library/internal/tracing"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second signal ends the process at once, without waiting for the drain
	}()
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "library:", err)
		os.Exit(1)
	}
}

const usage = `usage:
  library [serve]                 serve the HTTP API
  library migrate up|down|status  manage the database schema (needs DATABASE_URL)`

func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cfg, err := app.ConfigFromEnv(getenv)
	if err != nil {
		return err
	}
	logger := newLogger(stderr, cfg)

	switch {
	case len(args) == 0 || (len(args) == 1 && args[0] == "serve"):
		tp, shutdownTracing, err := telemetry.FromEnv(ctx, getenv, cfg.ReplicaID)
		if err != nil {
			return err
		}
		defer flush(shutdownTracing, logger)
		cfg.TracerProvider = tp
		a, err := app.New(ctx, cfg, logger)
		if err != nil {
			return err
		}
		return a.Run(ctx)
	case len(args) == 2 && args[0] == "migrate":
		return app.MigrateDatabase(ctx, cfg, logger, args[1], stdout)
	default:
		return errors.New(usage)
	}
}

func newLogger(w io.Writer, cfg app.Config) *slog.Logger {
	var level slog.Level
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler = slog.NewJSONHandler(w, opts)
	if cfg.LogFormat == "text" {
		h = slog.NewTextHandler(w, opts)
	}
	return slog.New(tracing.LogHandler(h)).With("replica", cfg.ReplicaID)
}

// flush sends the spans not yet exported, within a few seconds.
func flush(shutdown func(context.Context) error, logger *slog.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := shutdown(ctx); err != nil {
		logger.Warn("traces not all exported", "error", err)
	}
}
