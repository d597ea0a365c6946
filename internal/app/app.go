// Package app wires the service together from a Config: the event store (in memory, or
// PostgreSQL with its migrations), the feature services, the background processors (catalog,
// loans, holds, loan emails, late fines, the hold shelf, the adoption of books added before
// titles, due dates moved off closed days), the adapters through which each sees only what it needs of the services
// (elsewhere.go; package shelves joins copies to their titles), and the HTTP server, with the web app (package web)
// beside the API unless Config.WebUI is off. It is the production wiring, used by cmd/library
// and by tests that need the whole service.
//
// Shutdown runs in a fixed order when Run's context ends: readiness turns off; the HTTP server
// serves for ShutdownDelay, then stops taking connections and drains the requests in flight,
// while the processors finish the batch in hand and release their leases (at once, so that a
// standby takes over without waiting for the drain); then the store's listeners stop, and the
// database pool closes last, once both are done.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/accounts"
	"library/internal/accounts/accountsapi"
	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/books"
	"library/internal/books/booksapi"
	"library/internal/calendar"
	"library/internal/catalog"
	"library/internal/catalog/cataloghttp"
	"library/internal/circulation"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/holds/holdshttp"
	"library/internal/httpapi"
	"library/internal/loans"
	"library/internal/loans/loanshttp"
	"library/internal/metrics"
	"library/internal/openapi"
	"library/internal/processor/engine"
	"library/internal/processor/processorhttp"
	"library/internal/reservations"
	"library/internal/secrethash"
	"library/internal/shelves"
	"library/internal/telemetry"
	"library/internal/terminals"
	"library/internal/titles"
	"library/internal/titles/titlesapi"
	"library/internal/tracing"
	"library/migrations"
	"library/web"
)

// App is the running service.
type App struct {
	cfg      Config
	logger   *slog.Logger
	pool     *pgxpool.Pool // nil in memory
	pgStore  *pgstore.Postgres
	store    eventstore.Store
	log      logStore // the store, as commands use it: with snapshots and members' data keys
	server   *http.Server
	listener net.Listener
	// processors run the background work: catalog, outbox, saga.
	processors *engine.Group
	// metrics are this App's own, served at /metrics on METRICS_ADDR.
	metrics *metrics.Metrics
	// metricsListener is METRICS_ADDR's, nil when it is unset.
	metricsListener net.Listener
	// verifier checks sign-in tokens; nil with sign-in off.
	verifier *auth.Verifier
	// calendar is the library's days, which its routes set and the due-dates saga reads.
	calendar *calendar.Service
	// kiosks is the SIP2 listener, when SIP_ADDR is set.
	kiosks   kiosks
	draining atomic.Bool
	// schemaReady is set once the database schema has been seen at the latest migration.
	schemaReady atomic.Bool
}

// New builds the service and opens its listener, so that a bad address fails here, before
// Run. With a database, pending migrations are applied first unless cfg.MigrateOnStart is false.
func New(ctx context.Context, cfg Config, logger *slog.Logger) (*App, error) {
	cfg, err := cfg.Complete()
	if err != nil {
		return nil, err
	}
	if err := cfg.Check(); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, logger: logger, metrics: metrics.New(logger)}
	if cfg.DatabaseURL == "" {
		memory := eventstore.NewMemory(cfg.Tuning.Now)
		a.store, a.log = memory, memory
		logger.Info("store: in memory; nothing is kept when the process stops")
	} else {
		if err := a.openPostgres(ctx); err != nil {
			return nil, err
		}
	}

	keyring, err := a.personalData()
	if err != nil {
		a.closeStore()
		return nil, err
	}
	repoOpts := aggregate.Options{CommandIDsPerStream: cfg.CommandIDsPerStream, Observer: a.metrics.Commands(),
		Cipher: keyring, FingerprintKey: a.log.FingerprintKey,
		Tracer:     tracing.Tracer(cfg.Tuning.TracerProvider, "library/internal/aggregate"),
		CacheBytes: cfg.AggregateCacheBytes, SnapshotEvery: cfg.SnapshotEvery, Logger: logger}
	hashes := secrethash.NewGate(0) // PINs and terminals' passwords, hashed a core's worth at a time
	accountService := a.accountService(repoOpts, hashes)
	desk := a.desk(repoOpts)
	titleService := titles.NewService(a.log, repoOpts, cfg.Tuning.Now, reservations.NewService(a.log, repoOpts)).
		WithHolds(titles.HoldPolicy{MaxQueue: cfg.HoldsMax}, accountService).
		WithTitleRules(circulation.TitleHolds{Groups: accountService, Desk: desk.Desk})
	bookService := books.NewService(a.log, repoOpts, cfg.Tuning.Now, books.Policy{LoanPeriod: cfg.LoanPeriod, MaxRenewals: cfg.RenewalsMax, Desk: desk.Desk,
		Holds: books.HoldPolicy{MaxQueue: cfg.HoldsMax, Pickup: cfg.HoldPickup}}, accountService).WithTitles(shelves.Shelves{Titles: titleService}).
		WithLosses(accountService)
	pay, err := a.payments()
	if err != nil {
		a.closeStore()
		return nil, err
	}
	processors, views, members, err := a.background(bookService, accountService, titleService, a.checkoutsSaga(pay, accountService)...)
	if err != nil {
		a.closeStore()
		return nil, err
	}
	a.processors = processors
	guard, verifier := a.signIn()
	a.verifier = verifier
	modules := append(a.modules(bookService, accountService, titleService, pay, processors, views, members), a.libraryDays(desk)...)
	handler := httpapi.New(
		httpapi.Options{
			Logger: logger, Ready: a.ready, RequestTimeout: cfg.RequestTimeout, Guard: guard,
			Observe: a.metrics.ObserveRequest, CORSOrigins: cfg.CORSOrigins, TracerProvider: cfg.Tuning.TracerProvider,
			Limits: edgeLimits(cfg), TrustedProxies: cfg.TrustedProxies,
		},
		modules...,
	)
	a.server = a.httpServer(handler)
	listener, err := new(net.ListenConfig).Listen(ctx, "tcp", cfg.HTTPAddr)
	if err != nil {
		a.closeStore()
		return nil, fmt.Errorf("listen on HTTP_ADDR %s: %w", cfg.HTTPAddr, err)
	}
	a.listener = listener
	terminalService := terminals.NewService(a.log, repoOpts, cfg.Tuning.Now).WithGate(hashes)
	if err := a.listenKiosks(ctx, kioskServices(accountService, bookService, titleService, terminalService, views)); err != nil {
		_ = listener.Close()
		a.closeStore()
		return nil, err
	}
	if err := a.listenMetrics(ctx); err != nil {
		_ = listener.Close()
		_ = a.stopKiosks()
		a.closeStore()
		return nil, err
	}
	return a, nil
}

// modules are the service's routes, each feature's on what New built for it.
func (a *App) modules(bookService *books.Service, accountService *accounts.Service, titleService *titles.Service,
	pay *accountsapi.Payments, processors *engine.Group, views views, members elsewhere) []httpapi.Module {
	cfg := a.cfg
	modules := []httpapi.Module{
		booksapi.Routes{Service: bookService},
		titlesapi.Routes{Service: titleService, Copies: bookService, Holders: shelves.Holds{Titles: titleService, Books: bookService}},
		cataloghttp.Routes{Query: catalog.Query{Catalog: views.catalog, Log: a.store, Wait: cfg.Tuning.CatalogWait, Waits: catalog.NewWaitLimit(cfg.CatalogMaxWaits)},
			Copies: bookService},
		loanshttp.Routes{View: views.loans, Policy: loans.Policy{MaxRenewals: cfg.RenewalsMax, Now: cfg.Tuning.Now}},
		holdshttp.Routes{View: views.holds},
		accountsapi.Routes{Service: accountService, Elsewhere: members, Payments: pay},
		processorhttp.Routes{Group: processors, Replica: cfg.ReplicaID},
		openapi.Routes{},
		signInRoutes{cfg: cfg},
	}
	if cfg.WebUI {
		modules = append(modules, webRoutes{})
	}
	return modules
}

func (a *App) openPostgres(ctx context.Context) error {
	poolConfig, err := poolConfig(a.cfg)
	if err != nil {
		return err
	}
	if a.cfg.Tuning.TracerProvider != nil {
		poolConfig.ConnConfig.Tracer = telemetry.QueryTracer(a.cfg.Tuning.TracerProvider)
	}
	pool, err := pgxpool.NewWithConfig(ctx, poolConfig)
	if err != nil {
		return fmt.Errorf("DATABASE_URL: %w", err)
	}
	if err := migrations.CheckServer(ctx, pool); err != nil {
		pool.Close()
		return err
	}
	a.pool = pool
	a.pgStore = pgstore.New(pool, a.logger)
	a.store, a.log = a.pgStore, a.pgStore
	host := poolConfig.ConnConfig.Host
	a.logger.Info("store: PostgreSQL", "host", host, "database", poolConfig.ConnConfig.Database)
	if a.cfg.MigrateOnStart {
		if err := Migrate(ctx, pool, a.logger, "up", io.Discard); err != nil {
			pool.Close()
			return fmt.Errorf("applying the database's migrations at start (MIGRATE_ON_START): %w", err)
		}
	}
	return nil
}

// webRoutes serve the web app: its page at / and its files under web.Prefix, paths that no API
// route uses, with the API's middleware (request ids, logs, metrics) and its 404 problem.
type webRoutes struct{}

func (webRoutes) Routes(r chi.Router) {
	h := web.Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		httpapi.WriteError(w, r, errs.E(errs.NotFound, "there is nothing at this path"))
	}))
	r.Get("/", h.ServeHTTP)
	r.Get(web.Prefix+"*", h.ServeHTTP)
}

// Addr is the address the HTTP server listens on.
func (a *App) Addr() string { return a.listener.Addr().String() }

// Run serves until ctx ends, then shuts down in order. It returns nil after a clean shutdown.
func (a *App) Run(ctx context.Context) error {
	serveErr := make(chan error, 1)
	go func() { serveErr <- a.server.Serve(a.listener) }()
	if a.cfg.PprofAddr != "" {
		if err := a.servePprof(ctx, a.cfg.PprofAddr); err != nil {
			a.logger.Warn("PPROF_ADDR: not serving Go profiles", "error", err)
		}
	}
	a.processors.Start(context.WithoutCancel(ctx))
	a.serveKiosks(ctx)
	a.serveMetrics(ctx)
	a.startSignIn(ctx)
	// Last, so that what the start had to say (sign-in off, say) is in the log before it.
	a.logger.Info("serving", "addr", a.Addr())

	select {
	case err := <-serveErr:
		err = errors.Join(fmt.Errorf("http server: %w", err), a.stopKiosks(), a.stopProcessors())
		a.closeStore()
		return err
	case <-ctx.Done():
	}

	a.draining.Store(true)
	// Background work stops alongside the HTTP drain: the batch in hand finishes and the
	// leases go at once, so a standby takes over while this replica still drains requests.
	processorsStopped := make(chan error, 1)
	go func() { processorsStopped <- a.stopProcessors() }()
	if a.cfg.ShutdownDelay > 0 {
		a.logger.Info("shutting down: readiness off; serving a little longer", "delay", a.cfg.ShutdownDelay.String())
		time.Sleep(a.cfg.ShutdownDelay) // load balancers take a moment to see readiness go
	}
	a.logger.Info("shutting down: draining requests")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
	defer cancel()
	var err error
	if shutdownErr := a.server.Shutdown(shutdownCtx); shutdownErr != nil {
		err = fmt.Errorf("drain HTTP requests: %w", shutdownErr)
	}
	if serveErr := <-serveErr; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	err = errors.Join(err, a.stopKiosks(), <-processorsStopped)
	a.closeStore()
	a.logger.Info("stopped")
	return err
}

// stopProcessors lets each processor finish the batch in hand and releases its lease, so that
// a standby takes over at once.
func (a *App) stopProcessors() error {
	a.logger.Info("shutting down: finishing background batches and releasing leases")
	ctx, cancel := context.WithTimeout(context.Background(), a.cfg.ShutdownTimeout)
	defer cancel()
	if err := a.processors.Stop(ctx); err != nil {
		return fmt.Errorf("stop background work: %w", err)
	}
	return nil
}

func (a *App) closeStore() {
	if a.pgStore != nil {
		a.pgStore.Close()
	}
	if a.pool != nil {
		a.pool.Close()
	}
}

// ready is the readiness check: not while shutting down, only while the store answers and
// takes writes, and only once the schema is at the latest migration.
func (a *App) ready(ctx context.Context) error {
	if a.draining.Load() {
		return errs.E(errs.Unavailable, "shutting down")
	}
	if err := a.store.Ping(ctx); err != nil {
		return err
	}
	if a.verifier != nil {
		if err := a.verifier.Ready(); err != nil {
			return errs.Wrap(errs.Unavailable, err, "the OpenID provider at AUTH_ISSUER (%s) can't be reached yet", a.cfg.AuthIssuer)
		}
	}
	if a.pool == nil || a.schemaReady.Load() {
		return nil
	}
	latest, err := migrations.Latest()
	if err != nil {
		return err
	}
	current, err := migrations.Current(ctx, a.pool)
	if err != nil {
		return errs.Wrap(errs.Unavailable, err, "the schema version cannot be read")
	}
	if current < latest {
		return errs.E(errs.Unavailable, "the database schema is at version %d of %d: run `library migrate up`", current, latest)
	}
	a.schemaReady.Store(true)
	return nil
}
