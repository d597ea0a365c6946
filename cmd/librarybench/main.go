// Command librarybench measures the service against PostgreSQL's own limit, side by side in
// one run: a baseline of straight pgx transactions (read a stream, append one event), then the
// service's commands, replays and a contended stream over HTTP, each at several concurrency
// levels. It prints a table and writes docs/benchmarks.md.
//
//	go run ./cmd/librarybench
//
// Settings come from the environment (see loadConfig).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "librarybench:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	cfg, err := loadConfig()
	if err != nil {
		return err
	}
	root, err := moduleRoot(ctx)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "librarybench-")
	if err != nil {
		return fmt.Errorf("temporary directory: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()

	logf("building the service")
	bin, err := buildService(ctx, root, tmp)
	if err != nil {
		return err
	}

	db, err := openDatabase(ctx, cfg.DatabaseURL, root)
	if err != nil {
		return err
	}
	defer func() {
		// The run's context may be cancelled already: clean up regardless.
		if err := db.Close(context.WithoutCancel(ctx)); err != nil {
			logf("removing the database: %v", err)
		}
	}()

	svc, err := startService(ctx, bin, db.URL)
	if err != nil {
		return err
	}
	defer func() {
		if err := svc.Stop(context.WithoutCancel(ctx)); err != nil {
			logf("stopping the service: %v", err)
		}
	}()
	logf("service ready at %s, database %s", svc.BaseURL, db.Name)

	env, err := describeEnvironment(ctx, root, db.URL)
	if err != nil {
		return err
	}

	results, err := runMeasurements(ctx, cfg, db.URL, svc.BaseURL)
	if err != nil {
		return err
	}

	env.LoadAfter = loadAverage()

	rep := report{Config: cfg, Env: env, Results: results}
	fmt.Println()
	fmt.Print(rep.table())
	if cfg.Output == "" {
		return nil
	}
	if err := rep.write(cfg.Output, root); err != nil {
		return err
	}
	logf("wrote %s", cfg.Output)
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "librarybench: "+format+"\n", args...)
}
