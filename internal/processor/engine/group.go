package engine

import (
	"context"
	"fmt"
	"log/slog"
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
}

// Group runs a replica's processors, each under its own lease, and answers for them: status,
// replay and retry-parked.
type Group struct {
	cfg     Config
	runners []*runner
	byName  map[string]*runner

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
	g := &Group{cfg: cfg, byName: map[string]*runner{}}
	for _, p := range processors {
		switch {
		case p.Name == "":
			return nil, fmt.Errorf("processor: a processor needs a name")
		case g.byName[p.Name] != nil:
			return nil, fmt.Errorf("processor: two processors are called %q", p.Name)
		case p.Kind == processor.KindViewModel && (p.ViewModel == nil || p.Handler != nil):
			return nil, fmt.Errorf("processor %s: a view model needs a ViewModel and no Handler", p.Name)
		case (p.Kind == processor.KindOutbox || p.Kind == processor.KindSaga) && (p.Handler == nil || p.ViewModel != nil):
			return nil, fmt.Errorf("processor %s: an outbox or saga needs a Handler and no ViewModel", p.Name)
		case p.Kind != processor.KindViewModel && p.Kind != processor.KindOutbox && p.Kind != processor.KindSaga:
			return nil, fmt.Errorf("processor %s: unknown kind %q", p.Name, p.Kind)
		case p.InFlight < 0 || (p.Kind == processor.KindViewModel && p.InFlight > 1):
			return nil, fmt.Errorf("processor %s: InFlight %d: want 0 or more, and at most 1 for a view model", p.Name, p.InFlight)
		}
		r := &runner{
			proc: p, store: cfg.Store, checkpoints: cfg.Checkpoints, leases: cfg.Leases,
			opts: cfg.Options, logger: cfg.Logger, tracer: cfg.Tracer, wake: make(chan struct{}, 1),
		}
		g.runners = append(g.runners, r)
		g.byName[p.Name] = r
	}
	return g, nil
}

// Start runs every processor in the background until ctx ends or Stop is called.
func (g *Group) Start(ctx context.Context) {
	shutdown, cancelShutdown := context.WithCancel(ctx)
	abort, cancelAbort := context.WithCancel(context.WithoutCancel(ctx))
	g.shutdown, g.abort = cancelShutdown, cancelAbort
	for _, r := range g.runners {
		g.running.Go(func() { r.run(shutdown, abort) })
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

// HoldsLease reports whether this replica holds the named processor's lease.
func (g *Group) HoldsLease(name string) bool {
	r := g.byName[name]
	return r != nil && r.holdsLease()
}

func (g *Group) holder(name string) (*runner, error) {
	r := g.byName[name]
	if r == nil {
		return nil, errs.E(errs.NotFound, "there is no processor called %s", name)
	}
	if !r.holdsLease() {
		return nil, errs.E(errs.NotLeaseHolder, "this replica does not hold the lease of %s; ask the replica whose status says holdsLease: true", name)
	}
	return r, nil
}

// Replay makes the named processor start again from the start of the log: a view model is
// rebuilt, a saga runs its commands again (they are idempotent). Only the lease holder does it,
// between batches; an outbox refuses, since sent mail can't be unsent.
func (g *Group) Replay(_ context.Context, name string) error {
	r, err := g.holder(name)
	if err != nil {
		return err
	}
	if r.proc.Kind == processor.KindOutbox {
		return errs.E(errs.NotReplayable, "%s is an outbox: what it sent can't be unsent, so it can't be replayed; use retry-parked for what it could not send", name)
	}
	r.replayWanted.Store(true)
	r.poke()
	return nil
}

// RetryParked turns the named processor's parked events into deferred ones, due at once, with
// all their attempts, and returns how many; the holder tries them again at once.
func (g *Group) RetryParked(ctx context.Context, name string) (int, error) {
	r, err := g.holder(name)
	if err != nil {
		return 0, err
	}
	n, err := g.cfg.Checkpoints.Requeue(ctx, name, time.Now())
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
	if g.byName[name] == nil {
		return nil, errs.E(errs.NotFound, "there is no processor called %s", name)
	}
	return g.cfg.Checkpoints.ListParked(ctx, name, MaxParkedShown)
}

// Types are the event types the group's processors read, each once: what other processes
// need to be told of (pgstore.Postgres.TellOnly). Nil when one of them reads every type.
func (g *Group) Types() []string {
	types := []string{}
	for _, r := range g.runners {
		if len(r.proc.Types) == 0 {
			return nil
		}
		for _, t := range r.proc.Types {
			types = eventstore.AddType(types, t)
		}
	}
	return types
}
