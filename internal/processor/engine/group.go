package engine

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/tracing"
)

// Config is what a Group runs on.
type Config struct {
	Store       eventstore.Store
	Checkpoints processor.Checkpoints
	Leases      processor.Leases
	Logger      *slog.Logger
	Options     processor.Options
	// Tracer makes a span of every attempt at an outbox's or a saga's event, linked to the
	// span of the command that wrote the event. Default: one that records nothing.
	Tracer trace.Tracer
	// Builds keeps the builds of the view models. Default: Checkpoints, when it keeps them too
	// (the memory and PostgreSQL drivers do).
	Builds processor.Builds
	// Replica names this process among the readers of the views' builds (with a random part
	// of its own, so that two processes given one name are told apart).
	Replica string
}

// Group runs a replica's processors, each under its own lease, and answers for them: status,
// replay and retry-parked. A view model runs as a keeper (views.go), which runs its builds.
type Group struct {
	cfg     Config
	order   []string // the names of the processors, as given
	runners []*runner
	byName  map[string]*runner // the outboxes and sagas
	keepers map[string]*keeper // the view models, by the view's name

	shutdown context.CancelFunc // finish what is in hand, start nothing new
	abort    context.CancelFunc // abandon what is in hand
	running  sync.WaitGroup
}

// NewGroup checks the processors and returns a Group that runs them once started.
func NewGroup(cfg Config, processors ...processor.Processor) (*Group, error) {
	cfg.Options = cfg.Options.WithDefaults()
	if cfg.Tracer == nil {
		cfg.Tracer = tracing.Tracer(nil, "library/internal/processor")
	}
	if cfg.Builds == nil {
		cfg.Builds, _ = cfg.Checkpoints.(processor.Builds)
	}
	g := &Group{cfg: cfg, byName: map[string]*runner{}, keepers: map[string]*keeper{}}
	reader := readerName(cfg.Replica)
	for _, p := range processors {
		if err := g.check(p); err != nil {
			return nil, err
		}
		g.order = append(g.order, p.Name)
		if p.Kind == processor.KindViewModel {
			g.keepers[p.Name] = newKeeper(g, p, reader)
			continue
		}
		r := g.newRunner(p)
		g.runners = append(g.runners, r)
		g.byName[p.Name] = r
	}
	return g, nil
}

// check refuses a processor the group can't run.
func (g *Group) check(p processor.Processor) error {
	switch {
	case p.Name == "" || strings.Contains(p.Name, "@"):
		return fmt.Errorf("processor: a processor needs a name, without @ (%q)", p.Name)
	case g.byName[p.Name] != nil || g.keepers[p.Name] != nil:
		return fmt.Errorf("processor: two processors are called %q", p.Name)
	case p.Kind == processor.KindViewModel && (p.View == nil || p.Handler != nil):
		return fmt.Errorf("processor %s: a view model needs a View and no Handler", p.Name)
	case (p.Kind == processor.KindOutbox || p.Kind == processor.KindSaga) && (p.Handler == nil || p.View != nil):
		return fmt.Errorf("processor %s: an outbox or saga needs a Handler and no View", p.Name)
	case p.Kind != processor.KindViewModel && p.Kind != processor.KindOutbox && p.Kind != processor.KindSaga:
		return fmt.Errorf("processor %s: unknown kind %q", p.Name, p.Kind)
	case p.InFlight < 0 || (p.Kind == processor.KindViewModel && p.InFlight > 1):
		return fmt.Errorf("processor %s: InFlight %d: want 0 or more, and at most 1 for a view model", p.Name, p.InFlight)
	case p.Kind == processor.KindViewModel && g.cfg.Builds == nil:
		return fmt.Errorf("processor %s: a view model needs Config.Builds", p.Name)
	case p.Kind == processor.KindViewModel:
		if err := p.View.Versions().Check(); err != nil {
			return fmt.Errorf("processor %s: %w", p.Name, err)
		}
	}
	return nil
}

// newRunner makes the runner of an outbox, a saga or a view's build.
func (g *Group) newRunner(p processor.Processor) *runner {
	cfg := g.cfg
	return &runner{
		proc: p, store: cfg.Store, checkpoints: cfg.Checkpoints, leases: cfg.Leases,
		opts: cfg.Options, logger: cfg.Logger, tracer: cfg.Tracer, wake: make(chan struct{}, 1),
	}
}

// readerName is replica with a random part: how this process names itself among the readers of
// the views' builds.
func readerName(replica string) string {
	return fmt.Sprintf("%s/%016x", replica, rand.Uint64()) //nolint:gosec // a name, not a secret
}

// Start runs every processor in the background until ctx ends or Stop is called.
func (g *Group) Start(ctx context.Context) {
	shutdown, cancelShutdown := context.WithCancel(ctx)
	abort, cancelAbort := context.WithCancel(context.WithoutCancel(ctx))
	g.shutdown, g.abort = cancelShutdown, cancelAbort
	for _, r := range g.runners {
		g.running.Go(func() { r.run(shutdown, abort) })
	}
	for _, k := range g.keepers {
		g.running.Go(func() { k.run(shutdown, abort) })
	}
}

// Stop lets each processor finish the events in hand, without starting others, then releases
// its lease, so that a standby takes over at once. If ctx ends first, the events in hand are
// abandoned (the next holder handles them again) and Stop returns ctx's error.
func (g *Group) Stop(ctx context.Context) error {
	if g.shutdown == nil {
		return nil // never started
	}
	g.shutdown()
	done := make(chan struct{})
	go func() {
		g.running.Wait()
		close(done)
	}()
	select {
	case <-done:
		g.abort()
		return nil
	case <-ctx.Done():
		g.abort()
		<-done
		return ctx.Err()
	}
}

// HoldsLease reports whether this replica holds the named processor's lease: an outbox's, a
// saga's, or a view's build's (by the build's name).
func (g *Group) HoldsLease(name string) bool {
	r := g.runnerNamed(name)
	return r != nil && r.holdsLease()
}

// runnerNamed is the runner of the named outbox or saga, or of the view's build of that name
// that this replica runs; nil for none.
func (g *Group) runnerNamed(name string) *runner {
	if r := g.byName[name]; r != nil {
		return r
	}
	if k := g.keeperOf(name); k != nil {
		return k.runnerNamed(name)
	}
	return nil
}

// keeperOf is the keeper of the view that name is the view's or one of its builds' name, or nil.
func (g *Group) keeperOf(name string) *keeper {
	view, _, _ := strings.Cut(name, "@")
	k := g.keepers[view]
	if k == nil || !processor.IsBuildOf(name, view) {
		return nil
	}
	return k
}

func (g *Group) holder(name string) (*runner, error) {
	if g.byName[name] == nil && g.keeperOf(name) == nil {
		return nil, errs.E(errs.NotFound, "there is no processor called %s", name)
	}
	r := g.runnerNamed(name)
	if r == nil || !r.holdsLease() {
		return nil, errs.E(errs.NotLeaseHolder, "this replica does not hold the lease of %s; ask the replica whose status says holdsLease: true", name)
	}
	return r, nil
}

// Replay makes the named processor start again from the start of the log. A saga runs its
// commands again (they are idempotent): only its lease holder does it, between batches. A view
// (named by its name or a build's) is rebuilt beside the build that answers, which goes on
// answering until the new one takes over: any replica whose code is the view's newest version
// starts it, and build is the new build's name (or that of the one already building). An
// outbox refuses, since sent mail can't be unsent.
func (g *Group) Replay(ctx context.Context, name string) (build string, err error) {
	if k := g.keeperOf(name); k != nil {
		return k.rebuild(ctx)
	}
	r, err := g.holder(name)
	if err != nil {
		return "", err
	}
	if r.proc.Kind == processor.KindOutbox {
		return "", errs.E(errs.NotReplayable, "%s is an outbox: what it sent can't be unsent, so it can't be replayed; use retry-parked for what it could not send", name)
	}
	r.replayWanted.Store(true)
	r.poke()
	return "", nil
}

// RetryParked turns the named processor's parked events into deferred ones, due at once, with
// all their attempts, and returns how many; the holder tries them again at once.
func (g *Group) RetryParked(ctx context.Context, name string) (int, error) {
	r, err := g.holder(name)
	if err != nil {
		return 0, err
	}
	n, err := g.cfg.Checkpoints.Requeue(ctx, r.proc.Name, time.Now())
	if err != nil {
		return 0, err
	}
	r.requeueWaiting.Store(true)
	r.poke()
	return n, nil
}

// MaxParkedShown bounds what Parked returns.
const MaxParkedShown = 1000

// Parked returns the named processor's parked events (the first MaxParkedShown, in log order),
// with the reason and attempts of each. Any replica can answer: they are in the shared store.
func (g *Group) Parked(ctx context.Context, name string) ([]processor.Parked, error) {
	if g.byName[name] == nil && g.keeperOf(name) == nil {
		return nil, errs.E(errs.NotFound, "there is no processor called %s", name)
	}
	return g.cfg.Checkpoints.ListParked(ctx, name, MaxParkedShown)
}

// Types are the event types the group's processors read, each once: what other processes
// need to be told of (pgstore.Postgres.TellOnly). Nil when one of them reads every type.
func (g *Group) Types() []string {
	types := []string{}
	for _, name := range g.order {
		var p processor.Processor
		if r := g.byName[name]; r != nil {
			p = r.proc
		} else {
			p = g.keepers[name].proc
		}
		if len(p.Types) == 0 {
			return nil
		}
		for _, t := range p.Types {
			types = eventstore.AddType(types, t)
		}
	}
	return types
}
