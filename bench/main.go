// Command librarybench, a module of its own so that its dependencies stay out of the service's,
// measures the service against PostgreSQL's own limits, side by side in one run, and writes
// docs/benchmarks.md. Its parts are packages under internal/:
//
//   - environment: what a run measures in: its settings (BENCH_*), a PostgreSQL database of its
//     own, the service's processes built from the tree (and at BENCH_BEFORE), devidp, an SMTP
//     sink, and a description of the machine.
//   - workload: what is done again and again: a baseline of straight pgx transactions and
//     single-row appends, then the service's commands, contact changes, replays and a
//     contended stream over HTTP, with a token and against the build before too.
//   - measure: cells of workers at each concurrency, and the measurements on the main
//     service: its CPU profile, its aggregate cache, the outbox's latency, a stream's growth
//     and its memory.
//   - apart: the measurements that need a service process and a database of their own: a slow
//     relay and a backlog, takeovers after SIGKILL and SIGTERM, the catalog at 100,000 books,
//     cold loads of long streams, durable timers firing, a title with a long queue of holds
//     whose copies come back at once, the titles search at 100,000 titles, checkouts at
//     self-check kiosks over SIP2 beside the same over HTTP, and the import of a generated
//     catalogue of a million records beside PostgreSQL's own COPY.
//   - report: the table, the targets with their verdicts, and the Markdown file.
//   - figures: how numbers are summarised and written.
//
// Every service process runs with AUTH=off but the one with sign-in, and with an ADMIN_TOKEN
// of the run's.
//
//	cd bench && go run .
//
// Settings come from the environment (see environment.LoadConfig).
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"library/bench/internal/apart"
	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/measure"
	"library/bench/internal/report"
	"library/bench/internal/workload"
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
	cfg          environment.Config
	root, tmp    string
	bin          string // the service, built from the working tree
	idpBin       string // cmd/devidp, the provider the service with sign-in trusts
	beforeBin    string // the service at BENCH_BEFORE, or ""
	beforeCommit string
	db           *environment.Database
	sink         *environment.SMTPSink
	svc          *environment.Service // the service every measurement on the main database talks to
	pprofAddr    string               // where svc serves its profiles
	metricsURL   string               // svc's /metrics, on its METRICS_ADDR
}

func run(ctx context.Context) error {
	cfg, err := environment.LoadConfig()
	if err != nil {
		return err
	}
	root, err := environment.ModuleRoot(ctx)
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

	if b.db, err = environment.OpenDatabase(ctx, cfg.DatabaseURL, root); err != nil {
		return err
	}
	defer func() {
		// The run's context may be cancelled already: clean up regardless.
		if err := b.db.Close(context.WithoutCancel(ctx)); err != nil {
			environment.Logf("removing the database: %v", err)
		}
	}()
	switch cfg.Only {
	case environment.OnlyTimers:
		return b.timersOnly(ctx)
	case environment.OnlyHolds:
		return b.holdsOnly(ctx)
	case environment.OnlyTitles:
		return b.titlesOnly(ctx)
	case environment.OnlySIP:
		return b.kiosksOnly(ctx)
	case environment.OnlyImport:
		return b.importOnly(ctx)
	}
	if b.sink, err = environment.StartSMTPSink(); err != nil {
		return err
	}
	defer b.sink.Close()
	if err := b.startService(ctx); err != nil {
		return err
	}
	defer func() {
		if err := b.svc.Stop(context.WithoutCancel(ctx)); err != nil {
			environment.Logf("stopping the service: %v", err)
		}
	}()

	if cfg.Only == environment.OnlyCommands {
		return b.commandsOnly(ctx)
	}
	rep, err := b.measure(ctx)
	if err != nil {
		return err
	}
	rep.Env.LoadAfter = environment.LoadAverage()
	fmt.Println()
	fmt.Print(rep.Table())
	if cfg.Output == "" {
		return nil
	}
	if err := rep.Write(cfg.Output, root); err != nil {
		return err
	}
	environment.Logf("wrote %s", cfg.Output)
	return nil
}

// build builds the service, and the service at BENCH_BEFORE when it is set.
func (b *bench) build(ctx context.Context) error {
	var err error
	if b.cfg.Alone() {
		environment.Logf("building the service")
		b.bin, err = environment.BuildService(ctx, b.root, b.tmp)
		return err // the timers, the holds, the titles and the kiosks need the service alone
	}
	environment.Logf("building the service and devidp")
	if b.bin, err = environment.BuildService(ctx, b.root, b.tmp); err != nil {
		return err
	}
	if b.idpBin, err = environment.BuildCommand(ctx, b.root, b.tmp, "devidp"); err != nil {
		return err
	}
	if b.cfg.Before == "" {
		return nil
	}
	environment.Logf("building the service at BENCH_BEFORE=%s", b.cfg.Before)
	if b.beforeBin, b.beforeCommit, err = environment.BuildAt(ctx, b.root, b.tmp, b.cfg.Before); err != nil {
		return err
	}
	environment.Logf("BENCH_BEFORE=%s is %s", b.cfg.Before, b.beforeCommit)
	return nil
}

// startService starts the service on the main database, sending to the sink, with its
// profiles and its metrics served on ports of their own.
func (b *bench) startService(ctx context.Context) error {
	pprofPort, err := environment.FreePort()
	if err != nil {
		return err
	}
	metricsPort, err := environment.FreePort()
	if err != nil {
		return err
	}
	b.pprofAddr = fmt.Sprintf("127.0.0.1:%d", pprofPort)
	metricsAddr := fmt.Sprintf("127.0.0.1:%d", metricsPort)
	b.metricsURL = "http://" + metricsAddr + "/metrics"
	if b.svc, err = environment.StartService(ctx, b.bin, b.db.URL, "SMTP_URL="+b.sink.URL(), "PPROF_ADDR="+b.pprofAddr,
		"METRICS_ADDR="+metricsAddr); err != nil {
		return err
	}
	environment.Logf("service ready at %s, database %s", b.svc.BaseURL, b.db.Name)
	return nil
}

// measure runs every measurement, in order: those on the main service first, then those that
// need a service and a database of their own.
func (b *bench) measure(ctx context.Context) (report.Report, error) {
	env, err := environment.DescribeMachine(ctx, b.root, b.db.URL)
	if err != nil {
		return report.Report{}, err
	}
	results, cache, err := b.measureThroughput(ctx)
	if err != nil {
		return report.Report{}, err
	}
	rep := report.Report{Config: b.cfg, Env: env, Results: results, BeforeCommit: b.beforeCommit, Cache: cache}
	if err := b.measureMainService(ctx, &rep); err != nil {
		return rep, err
	}
	return rep, b.measureApart(ctx, &rep)
}

// measureMainService profiles the service, measures its outbox, its memory and a stream's
// growth, on the main database.
func (b *bench) measureMainService(ctx context.Context, rep *report.Report) error {
	cfg := b.cfg
	top := figures.MaxOf(cfg.Concurrency)
	environment.Logf("profile: the service's CPU while %d workers pay for %s", top, cfg.Duration)
	payments := &workload.Commands{API: workload.NewClient(b.svc.BaseURL, top), Accounts: cfg.Accounts, Keys: "profile-"}
	svc := measure.Profiled{PID: b.svc.Pid(), PprofURL: "http://" + b.pprofAddr, Bin: b.bin}
	var err error
	if rep.Profile, err = measure.Profile(ctx, payments, top, cfg.Duration, svc, b.tmp); err != nil {
		return fmt.Errorf("profile: %w", err)
	}

	api := workload.NewClient(b.svc.BaseURL, cfg.Lenders)
	environment.Logf("outbox: %d loans one at a time, then %d lenders for %s", cfg.IdleLoans, cfg.Lenders, cfg.Duration)
	if rep.Outbox, err = measure.Outbox(ctx, api, b.sink, cfg.IdleLoans, cfg.Lenders, cfg.Duration); err != nil {
		return fmt.Errorf("outbox: %w", err)
	}
	mem, err := measure.ProcStatus(b.svc.Pid(), "VmRSS")
	if err != nil {
		return err
	}
	rep.Memory.RSSAfterLoad = mem["VmRSS"]

	environment.Logf("growth: %d payments on each of streams of %v events", cfg.GrowthPayments, measure.GrowthLengths())
	if rep.Growth, err = measure.Growth(ctx, api, b.db.URL, cfg.GrowthPayments); err != nil {
		return fmt.Errorf("growth: %w", err)
	}
	if mem, err = measure.ProcStatus(b.svc.Pid(), "VmHWM"); err != nil {
		return err
	}
	rep.Memory.Peak = mem["VmHWM"]
	return nil
}

// measureApart runs the measurements that need a database, and service processes, of their
// own: the slow relay and the backlog, the takeovers, the catalog at 100,000 books, the cold
// loads of long streams, the timers, the title holds, the titles search, the kiosks and the
// catalogue import.
func (b *bench) measureApart(ctx context.Context, rep *report.Report) error {
	environment.Logf("relay: %d loans at %s per message, then a backlog of %d after a 421 outage, on a database of their own",
		apart.SlowRelayLoans, apart.SlowRelayDelay, apart.BacklogLoans)
	relayURL, err := b.db.Another(ctx, "relay")
	if err != nil {
		return err
	}
	if rep.Relay, err = apart.Relay(ctx, b.bin, relayURL); err != nil {
		return fmt.Errorf("relay: %w", err)
	}

	environment.Logf("takeover: %d rounds per signal, on a database of their own", apart.TakeoverRounds)
	takeoverURL, err := b.db.Another(ctx, "takeover")
	if err != nil {
		return err
	}
	// A sink of its own: the sink knows an email by its loan's position, and positions in a
	// fresh database start again at 1.
	takeoverSink, err := environment.StartSMTPSink()
	if err != nil {
		return err
	}
	defer takeoverSink.Close()
	if rep.Takeover, err = apart.Takeover(ctx, b.bin, takeoverURL, takeoverSink); err != nil {
		return fmt.Errorf("takeover: %w", err)
	}

	environment.Logf("catalog: %s books, on a database of their own", figures.Thousands(apart.CatalogBooks))
	catalogURL, err := b.db.Another(ctx, "catalog")
	if err != nil {
		return err
	}
	if rep.Catalog, err = apart.Catalog(ctx, b.bin, catalogURL); err != nil {
		return fmt.Errorf("catalog: %w", err)
	}

	environment.Logf("cold: the first read and the first payment after a restart, on streams of %v events, %d rounds, on a database of their own",
		b.cfg.ColdEvents, b.cfg.ColdRounds)
	coldURL, err := b.db.Another(ctx, "cold")
	if err != nil {
		return err
	}
	if rep.Cold, err = apart.Cold(ctx, b.bin, coldURL, b.cfg.ColdEvents, b.cfg.ColdRounds); err != nil {
		return fmt.Errorf("cold: %w", err)
	}
	env := rep.Env
	env.Date, env.LoadBefore = time.Now().UTC(), environment.LoadAverage()
	if rep.Timers, err = b.measureTimers(ctx, env); err != nil {
		return err
	}
	env.Date, env.LoadBefore = time.Now().UTC(), environment.LoadAverage()
	if rep.Holds, err = b.measureHolds(ctx, env); err != nil {
		return err
	}
	env.Date, env.LoadBefore = time.Now().UTC(), environment.LoadAverage()
	if rep.Titles, err = b.measureTitles(ctx, env); err != nil {
		return err
	}
	env.Date, env.LoadBefore = time.Now().UTC(), environment.LoadAverage()
	if rep.Kiosks, err = b.measureKiosks(ctx, env); err != nil {
		return err
	}
	env.Date, env.LoadBefore = time.Now().UTC(), environment.LoadAverage()
	rep.Import, err = b.measureImport(ctx, env)
	return err
}
