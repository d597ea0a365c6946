package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"library/internal/processor"
)

// keeper keeps one view model's builds in this replica (package processor says what builds
// promise): it starts a build of its code's version when the view has none, runs the builds its
// code writes (each under a lease of its own, by a runner of its own), lets a build that it runs
// take over once it has caught up, says which build this replica reads, and drops the builds
// that no replica reads any more.
type keeper struct {
	g        *Group
	proc     processor.Processor // the view; its builds run under names of their own
	versions processor.Versions
	reader   string
	logger   *slog.Logger
	wake     chan struct{}

	mu      sync.Mutex
	runners map[int]*runner // the builds this replica runs, by number
	current int             // the newest of them that has caught up: what the view's name stands for

	// The keeper's own goroutine's:
	stops     map[int]context.CancelFunc // what stops each runner
	read      int                        // the build this replica last said it reads; 0: none
	readAt    time.Time                  // when it last said so
	droppedAt time.Time                  // when it last looked for builds to drop
}

func newKeeper(g *Group, p processor.Processor, reader string) *keeper {
	return &keeper{g: g, proc: p, versions: p.View.Versions(), reader: reader, logger: g.cfg.Logger.With("view", p.Name),
		wake: make(chan struct{}, 1), runners: map[int]*runner{}, stops: map[int]context.CancelFunc{}}
}

func (k *keeper) builds() processor.Builds { return k.g.cfg.Builds }

func (k *keeper) poke() {
	select {
	case k.wake <- struct{}{}:
	default:
	}
}

// every is how often the keeper says which build it reads, and looks for builds to drop.
func (k *keeper) every() time.Duration {
	return max(k.g.cfg.Options.DropAfter/4, k.g.cfg.Options.PollInterval)
}

// run tends the view's builds every PollInterval, or at once when poked, until shutdown ends;
// then it stops the builds' runners, waits for them, and forgets what this replica read.
func (k *keeper) run(shutdown, abort context.Context) {
	var running sync.WaitGroup
	defer func() {
		for number := range k.stops {
			k.stopRunner(number)
		}
		running.Wait()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(shutdown), time.Second)
		defer cancel()
		_ = k.builds().Reading(ctx, k.reader, k.proc.Name, 0) // else it lapses after DropAfter
	}()
	failures := 0
	for {
		wait := k.g.cfg.Options.PollInterval
		if err := k.tend(shutdown, abort, &running); err != nil && shutdown.Err() == nil {
			failures++
			wait = processor.StoreBackoff(failures)
			k.logger.Warn("view builds: failed; trying again", "error", err, "failures", failures)
		} else {
			failures = 0
		}
		timer := time.NewTimer(wait)
		select {
		case <-shutdown.Done():
			timer.Stop()
			return
		case <-k.wake:
		case <-timer.C:
		}
		timer.Stop()
	}
}

// tend does what the view's builds, as the store lists them now, ask of this replica.
func (k *keeper) tend(shutdown, abort context.Context, running *sync.WaitGroup) error {
	ctx, cancel := context.WithTimeout(shutdown, k.g.cfg.Options.StepTimeout)
	defer cancel()
	builds, err := k.list(ctx)
	if err != nil {
		return err
	}
	k.runBuilds(shutdown, abort, builds, running)
	return errors.Join(k.takeOver(ctx, builds), k.sayRead(ctx, builds), k.drop(ctx, builds))
}

// list lists the view's builds, after starting one of the code's version when there is none
// (and no newer release is building one).
func (k *keeper) list(ctx context.Context) ([]processor.Build, error) {
	builds, err := k.builds().ListBuilds(ctx, k.proc.Name)
	if err != nil || !k.wantsBuild(builds) {
		return builds, err
	}
	b, started, err := k.builds().StartBuild(ctx, k.proc.Name, k.versions.Code, false)
	if err != nil {
		return nil, err
	}
	if started {
		k.logger.Info("view: a build of this version starts", "build", b.Name(), "version", b.Version, "state", b.State)
	}
	return k.builds().ListBuilds(ctx, k.proc.Name)
}

func (k *keeper) wantsBuild(builds []processor.Build) bool {
	for _, b := range builds {
		if b.Version == k.versions.Code || (b.State == processor.BuildBuilding && b.Version > k.versions.Code) {
			return false
		}
	}
	return true
}

// mine is the newest build of the code's version.
func (k *keeper) mine(builds []processor.Build) (processor.Build, bool) {
	var mine processor.Build
	for _, b := range builds {
		if b.Version == k.versions.Code && b.Number > mine.Number {
			mine = b
		}
	}
	return mine, mine.Number > 0
}

// toRun are the builds this replica runs: those of its code's version that are building, and
// the newest of them that has caught up (older ones wait to be dropped).
func (k *keeper) toRun(builds []processor.Build) map[int]processor.Build {
	want := map[int]processor.Build{}
	var newest processor.Build
	for _, b := range builds {
		switch {
		case b.Version != k.versions.Code:
		case b.State == processor.BuildBuilding:
			want[b.Number] = b
		case b.Number > newest.Number:
			newest = b
		}
	}
	if newest.Number > 0 {
		want[newest.Number] = newest
	}
	return want
}

// runBuilds starts a runner for each build to run that has none, and stops the others.
func (k *keeper) runBuilds(shutdown, abort context.Context, builds []processor.Build, running *sync.WaitGroup) {
	want := k.toRun(builds)
	for number := range k.stops {
		if _, ok := want[number]; !ok {
			k.stopRunner(number)
		}
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.current = 0
	for number, b := range want {
		if b.CaughtUp() {
			k.current = number
		}
		if r := k.runners[number]; r != nil {
			r.catchingUp.Store(b.State == processor.BuildBuilding)
			continue
		}
		p := k.proc
		p.Name = b.Name()
		r := k.g.newRunner(p)
		r.build = b
		r.catchingUp.Store(b.State == processor.BuildBuilding)
		ctx, stop := context.WithCancel(shutdown)
		k.stops[number], k.runners[number] = stop, r
		running.Go(func() {
			defer stop()
			r.run(ctx, abort)
		})
	}
}

// stopRunner lets a build's runner finish its batch and release the build's lease.
func (k *keeper) stopRunner(number int) {
	k.stops[number]()
	delete(k.stops, number)
	k.mu.Lock()
	delete(k.runners, number)
	k.mu.Unlock()
}

// runnerNamed is the runner of the build called name that this replica runs, or nil. The view's
// own name stands for the newest build of this replica's version that has caught up, once the
// view's first build has been replaced.
func (k *keeper) runnerNamed(name string) *runner {
	k.mu.Lock()
	defer k.mu.Unlock()
	if r := k.runners[k.current]; name == k.proc.Name && r != nil {
		return r
	}
	for _, r := range k.runners {
		if r.proc.Name == name {
			return r
		}
	}
	return nil
}

// runnerOf is the runner of build number that this replica runs, or nil.
func (k *keeper) runnerOf(number int) *runner {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.runners[number]
}
