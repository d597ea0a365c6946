// Command librarybench, a module of its own so that its dependencies stay out of the service's,
// measures the service against PostgreSQL's own limits, side by side in
// one run: a baseline of straight pgx transactions (read a stream, append one event) and
// single-row autocommit appends (append.go), then the service's commands, replays and a
// contended stream over HTTP, each at several concurrency levels; with BENCH_BEFORE, the
// commands and the contended stream of the service built at another revision too (before.go).
// Then where the service's CPU goes while it runs commands, from a profile (profile.go); and,
// against the targets: the loan emails' delay from commit to an SMTP server in
// this program, at idle and under load (outbox.go); the outbox against a relay 100 ms away and
// draining a backlog after a relay outage, with a service process and database of their own
// (relay.go); how fast a standby process takes over after SIGKILL and SIGTERM of the holder
// (takeover.go); a command's latency as its stream grows (growth.go); the service's memory
// (memory.go); and GET /books's first page and a search at 100,000 books, with a service
// process and database of their own (catalog.go). It prints a table and writes
// docs/benchmarks.md.
//
//	cd bench && go run .
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
	var beforeBin, beforeCommit string
	if cfg.Before != "" {
		logf("building the service at BENCH_BEFORE=%s", cfg.Before)
		if beforeBin, beforeCommit, err = buildAt(ctx, root, tmp, cfg.Before); err != nil {
			return err
		}
		logf("BENCH_BEFORE=%s is %s", cfg.Before, beforeCommit)
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

	sink, err := startSMTPSink()
	if err != nil {
		return err
	}
	defer sink.close()

	pprofPort, err := freePort()
	if err != nil {
		return err
	}
	pprofAddr := fmt.Sprintf("127.0.0.1:%d", pprofPort)
	svc, err := startService(ctx, bin, db.URL, "SMTP_URL="+sink.URL(), "PPROF_ADDR="+pprofAddr)
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

	results, err := measureThroughput(ctx, cfg, db, svc.BaseURL, beforeBin)
	if err != nil {
		return err
	}
	rep := report{Config: cfg, Env: env, Results: results, BeforeCommit: beforeCommit}

	top := maxOf(cfg.Concurrency)
	logf("profile: the service's CPU while %d workers pay for %s", top, cfg.Duration)
	profiled := &commands{api: newAPIClient(svc.BaseURL, top), accounts: cfg.Accounts, keys: "profile-"}
	if rep.Profile, err = measureProfile(ctx, profiled, top, cfg.Duration, "http://"+pprofAddr, bin, tmp); err != nil {
		return fmt.Errorf("profile: %w", err)
	}

	api := newAPIClient(svc.BaseURL, cfg.Lenders)
	logf("outbox: %d loans one at a time, then %d lenders for %s", cfg.IdleLoans, cfg.Lenders, cfg.Duration)
	if rep.Outbox, err = measureOutbox(ctx, api, sink, cfg.IdleLoans, cfg.Lenders, cfg.Duration); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	mem, err := procStatus(svc.Pid(), "VmRSS")
	if err != nil {
		return err
	}
	rep.Memory.RSSAfterLoad = mem["VmRSS"]

	logf("relay: %d loans at %s per message, then a backlog of %d after a 421 outage, on a database of their own",
		slowRelayLoans, slowRelayDelay, backlogLoans)
	relayURL, err := db.another(ctx, "relay")
	if err != nil {
		return err
	}
	if rep.Relay, err = measureRelay(ctx, bin, relayURL); err != nil {
		return fmt.Errorf("relay: %w", err)
	}

	logf("growth: %d payments on each of streams of %v events", cfg.GrowthPayments, growthLengths)
	if rep.Growth, err = measureGrowth(ctx, api, db.URL, cfg.GrowthPayments); err != nil {
		return fmt.Errorf("growth: %w", err)
	}
	if mem, err = procStatus(svc.Pid(), "VmHWM"); err != nil {
		return err
	}
	rep.Memory.Peak = mem["VmHWM"]

	logf("takeover: %d rounds per signal, on a database of their own", takeoverRounds)
	takeoverURL, err := db.another(ctx, "takeover")
	if err != nil {
		return err
	}
	// A sink of its own: the sink knows an email by its loan's position, and positions in a
	// fresh database start again at 1.
	takeoverSink, err := startSMTPSink()
	if err != nil {
		return err
	}
	defer takeoverSink.close()
	if rep.Takeover, err = measureTakeover(ctx, bin, takeoverURL, takeoverSink); err != nil {
		return fmt.Errorf("takeover: %w", err)
	}

	logf("catalog: %s books, on a database of their own", thousands(catalogBooks))
	catalogURL, err := db.another(ctx, "catalog")
	if err != nil {
		return err
	}
	if rep.Catalog, err = measureCatalog(ctx, bin, catalogURL); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}

	rep.Env.LoadAfter = loadAverage()
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
