// Command librarybench, a module of its own so that its dependencies stay out of the service's,
// measures the service against PostgreSQL's own limits, side by side in
// one run: a baseline of straight pgx transactions (read a stream, append one event) and
// single-row autocommit appends (append.go), then the service's commands, contact changes
// (which seal members' personal data, contacts.go), replays and a contended stream over HTTP,
// each at several concurrency levels; the commands again with a librarian's access token,
// against a service process that trusts a devidp process this program starts (signin.go);
// with BENCH_BEFORE, the commands, the contact changes and the contended stream of the service
// built at another revision too (before.go). Every service process runs with AUTH=off
// but that one, and with an ADMIN_TOKEN of the run's (server.go).
// Then where the service's CPU goes while it runs commands, from a profile (profile.go); and,
// against the targets: the loan emails' delay from commit to an SMTP server in
// this program, at idle and under load (outbox.go); the outbox against a relay 100 ms away and
// draining a backlog after a relay outage, with a service process and database of their own
// (relay.go); how fast a standby process takes over after SIGKILL and SIGTERM of the holder
// (takeover.go); a command's latency as its stream grows (growth.go); the service's memory
// (memory.go); GET /books's first page and a search at 100,000 books, with a service
// process and database of their own (catalog.go); and an account's first read and first
// payment after a restart on streams of up to 100,000 events, with a service process and
// database of their own (coldload.go). The main service's aggregate cache hits and misses
// during the commands cells come from its /metrics (cache.go). It prints a table and writes
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
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "librarybench:", err)
		os.Exit(1)
	}
}

// bench is what a run sets up once and its measurements share.
type bench struct {
	cfg          config
	root, tmp    string
	bin          string // the service, built from the working tree
	idpBin       string // cmd/devidp, the provider the service with sign-in trusts
	beforeBin    string // the service at BENCH_BEFORE, or ""
	beforeCommit string
	db           *database
	sink         *smtpSink
	svc          *service // the service every measurement on the main database talks to
	pprofAddr    string   // where svc serves its profiles
	metricsURL   string   // svc's /metrics, on its METRICS_ADDR
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
	b := &bench{cfg: cfg, root: root, tmp: tmp}
	if err := b.build(ctx); err != nil {
		return err
	}

	if b.db, err = openDatabase(ctx, cfg.DatabaseURL, root); err != nil {
		return err
	}
	defer func() {
		// The run's context may be cancelled already: clean up regardless.
		if err := b.db.Close(context.WithoutCancel(ctx)); err != nil {
			logf("removing the database: %v", err)
		}
	}()
	if cfg.Only == onlyTimers {
		return b.timersOnly(ctx)
	}
	if b.sink, err = startSMTPSink(); err != nil {
		return err
	}
	defer b.sink.close()
	if err := b.startService(ctx); err != nil {
		return err
	}
	defer func() {
		if err := b.svc.Stop(context.WithoutCancel(ctx)); err != nil {
			logf("stopping the service: %v", err)
		}
	}()

	if cfg.Only == onlyCommands {
		return b.commandsOnly(ctx)
	}
	rep, err := b.measure(ctx)
	if err != nil {
		return err
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

// build builds the service, and the service at BENCH_BEFORE when it is set.
func (b *bench) build(ctx context.Context) error {
	var err error
	if b.cfg.Only == onlyTimers {
		logf("building the service")
		b.bin, err = buildService(ctx, b.root, b.tmp)
		return err // the timers need the service alone
	}
	logf("building the service and devidp")
	if b.bin, err = buildService(ctx, b.root, b.tmp); err != nil {
		return err
	}
	if b.idpBin, err = buildCommand(ctx, b.root, b.tmp, "devidp"); err != nil {
		return err
	}
	if b.cfg.Before == "" {
		return nil
	}
	logf("building the service at BENCH_BEFORE=%s", b.cfg.Before)
	if b.beforeBin, b.beforeCommit, err = buildAt(ctx, b.root, b.tmp, b.cfg.Before); err != nil {
		return err
	}
	logf("BENCH_BEFORE=%s is %s", b.cfg.Before, b.beforeCommit)
	return nil
}

// startService starts the service on the main database, sending to the sink, with its
// profiles and its metrics served on ports of their own.
func (b *bench) startService(ctx context.Context) error {
	pprofPort, err := freePort()
	if err != nil {
		return err
	}
	metricsPort, err := freePort()
	if err != nil {
		return err
	}
	b.pprofAddr = fmt.Sprintf("127.0.0.1:%d", pprofPort)
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", metricsPort)
	b.metricsURL = "http://" + metricsAddr + "/metrics"
	if b.svc, err = startService(ctx, b.bin, b.db.URL, "SMTP_URL="+b.sink.URL(), "PPROF_ADDR="+b.pprofAddr,
		"METRICS_ADDR="+metricsAddr); err != nil {
		return err
	}
	logf("service ready at %s, database %s", b.svc.BaseURL, b.db.Name)
	return nil
}

// measure runs every measurement, in order: those on the main service first, then those that
// need a service and a database of their own.
func (b *bench) measure(ctx context.Context) (report, error) {
	env, err := describeEnvironment(ctx, b.root, b.db.URL)
	if err != nil {
		return report{}, err
	}
	results, cache, err := b.measureThroughput(ctx)
	if err != nil {
		return report{}, err
	}
	rep := report{Config: b.cfg, Env: env, Results: results, BeforeCommit: b.beforeCommit, Cache: cache}
	if err := b.measureMainService(ctx, &rep); err != nil {
		return rep, err
	}
	return rep, b.measureApart(ctx, &rep)
}

// measureMainService profiles the service, measures its outbox, its memory and a stream's
// growth, on the main database.
func (b *bench) measureMainService(ctx context.Context, rep *report) error {
	cfg := b.cfg
	top := maxOf(cfg.Concurrency)
	logf("profile: the service's CPU while %d workers pay for %s", top, cfg.Duration)
	payments := &commands{api: newAPIClient(b.svc.BaseURL, top), accounts: cfg.Accounts, keys: "profile-"}
	svc := profiled{pid: b.svc.Pid(), pprofURL: "http://" + b.pprofAddr, bin: b.bin}
	var err error
	if rep.Profile, err = measureProfile(ctx, payments, top, cfg.Duration, svc, b.tmp); err != nil {
		return fmt.Errorf("profile: %w", err)
	}

	api := newAPIClient(b.svc.BaseURL, cfg.Lenders)
	logf("outbox: %d loans one at a time, then %d lenders for %s", cfg.IdleLoans, cfg.Lenders, cfg.Duration)
	if rep.Outbox, err = measureOutbox(ctx, api, b.sink, cfg.IdleLoans, cfg.Lenders, cfg.Duration); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	mem, err := procStatus(b.svc.Pid(), "VmRSS")
	if err != nil {
		return err
	}
	rep.Memory.RSSAfterLoad = mem["VmRSS"]

	logf("growth: %d payments on each of streams of %v events", cfg.GrowthPayments, growthLengths)
	if rep.Growth, err = measureGrowth(ctx, api, b.db.URL, cfg.GrowthPayments); err != nil {
		return fmt.Errorf("growth: %w", err)
	}
	if mem, err = procStatus(b.svc.Pid(), "VmHWM"); err != nil {
		return err
	}
	rep.Memory.Peak = mem["VmHWM"]
	return nil
}

// measureApart runs the measurements that need a database, and service processes, of their
// own: the slow relay and the backlog, the takeovers, the catalog at 100,000 books and the
// cold loads of long streams.
func (b *bench) measureApart(ctx context.Context, rep *report) error {
	logf("relay: %d loans at %s per message, then a backlog of %d after a 421 outage, on a database of their own",
		slowRelayLoans, slowRelayDelay, backlogLoans)
	relayURL, err := b.db.another(ctx, "relay")
	if err != nil {
		return err
	}
	if rep.Relay, err = measureRelay(ctx, b.bin, relayURL); err != nil {
		return fmt.Errorf("relay: %w", err)
	}

	logf("takeover: %d rounds per signal, on a database of their own", takeoverRounds)
	takeoverURL, err := b.db.another(ctx, "takeover")
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
	if rep.Takeover, err = measureTakeover(ctx, b.bin, takeoverURL, takeoverSink); err != nil {
		return fmt.Errorf("takeover: %w", err)
	}

	logf("catalog: %s books, on a database of their own", thousands(catalogBooks))
	catalogURL, err := b.db.another(ctx, "catalog")
	if err != nil {
		return err
	}
	if rep.Catalog, err = measureCatalog(ctx, b.bin, catalogURL); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}

	logf("cold: the first read and the first payment after a restart, on streams of %v events, %d rounds, on a database of their own",
		b.cfg.ColdEvents, b.cfg.ColdRounds)
	coldURL, err := b.db.another(ctx, "cold")
	if err != nil {
		return err
	}
	if rep.Cold, err = measureCold(ctx, b.bin, coldURL, b.cfg.ColdEvents, b.cfg.ColdRounds); err != nil {
		return fmt.Errorf("cold: %w", err)
	}
	env := rep.Env
	env.Date, env.LoadBefore = time.Now().UTC(), loadAverage()
	rep.Timers, err = b.measureTimers(ctx, env)
	return err
}

// measureTimers runs the timers measurement on a database of its own.
func (b *bench) measureTimers(ctx context.Context, env environment) (timersResult, error) {
	logf("timers: %d rounds of %s due timers, payments at concurrency %d alone and while they fire, on a database of their own",
		timerRounds, thousands(timerCount), timerConcurrency)
	timersURL, err := b.db.another(ctx, "timers")
	if err != nil {
		return timersResult{}, err
	}
	res, err := measureTimers(ctx, b.cfg, b.bin, timersURL, env)
	if err != nil {
		return res, fmt.Errorf("timers: %w", err)
	}
	return res, nil
}

// timersOnly runs the timers measurement alone (BENCH_ONLY=timers), prints its figures and
// writes them into the report of the last full run.
func (b *bench) timersOnly(ctx context.Context) error {
	env, err := describeEnvironment(ctx, b.root, b.db.URL)
	if err != nil {
		return err
	}
	rep := report{Config: b.cfg, Env: env}
	if rep.Timers, err = b.measureTimers(ctx, env); err != nil {
		return err
	}
	t := &targetRows{}
	rep.timersTargets(t)
	fmt.Println()
	for _, s := range []section{{title: "Targets", header: []string{"target", "measured as", "result", "verdict"}, rows: t.rows}, rep.timersSection()} {
		fmt.Print(s.text())
	}
	if b.cfg.Output == "" {
		return nil
	}
	if err := spliceTimers(rep, b.cfg.Output, b.root); err != nil {
		return err
	}
	logf("wrote the timers' figures into %s", b.cfg.Output)
	return nil
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "librarybench: "+format+"\n", args...)
}
