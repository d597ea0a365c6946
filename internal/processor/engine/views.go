package engine

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"library/internal/errs"
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
	k.runBuilds(builds, shutdown, abort, running)
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
func (k *keeper) runBuilds(builds []processor.Build, shutdown, abort context.Context, running *sync.WaitGroup) {
	want := k.toRun(builds)
	for number := range k.stops {
		if _, ok := want[number]; !ok {
			k.stopRunner(number)
		}
	}
	for number, b := range want {
		if k.stops[number] != nil {
			continue
		}
		p := k.proc
		p.Name = b.Name()
		r := k.g.newRunner(p)
		r.build = b
		ctx, stop := context.WithCancel(shutdown)
		k.stops[number] = stop
		k.mu.Lock()
		k.runners[number] = r
		k.mu.Unlock()
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

// runnerNamed is the runner of the build called name that this replica runs, or nil.
func (k *keeper) runnerNamed(name string) *runner {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, r := range k.runners {
		if r.proc.Name == name {
			return r
		}
	}
	return nil
}

// takeOver lets the newest build of the code's version take over, when this replica holds its
// lease and it has caught up with the log: it has no event left to read.
func (k *keeper) takeOver(ctx context.Context, builds []processor.Build) error {
	mine, ok := k.mine(builds)
	if !ok || mine.State == processor.BuildAnswering {
		return nil
	}
	if mine.State == processor.BuildRetired {
		for _, b := range builds {
			if b.State == processor.BuildAnswering && !processor.Outranks(mine, b) {
				return nil // a newer version answers; this one answers for its own release
			}
		}
	}
	if r := k.runnerNamed(mine.Name()); r == nil || !r.holdsLease() {
		return nil
	}
	pos, err := k.g.cfg.Checkpoints.Load(ctx, mine.Name())
	if err != nil {
		return err
	}
	left, err := k.g.cfg.Store.CountAfter(ctx, pos.Checkpoint, k.proc.Types...)
	if err != nil || left > 0 {
		return err
	}
	after, err := k.builds().TakeOver(ctx, mine)
	if err != nil || after.State == mine.State {
		return ignoreGone(err)
	}
	k.logger.Info("view: a build caught up with the log", "build", after.Name(), "version", after.Version, "state", after.State)
	k.poke() // run what the new states ask for at once
	return nil
}

func ignoreGone(err error) error {
	if errors.Is(err, processor.ErrBuildGone) {
		return nil
	}
	return err
}

// sayRead records which build this replica reads: at once when that changed, and every
// quarter of DropAfter, so that the build is not dropped while it does.
func (k *keeper) sayRead(ctx context.Context, builds []processor.Build) error {
	read, _ := processor.ReadBuild(builds, k.versions) // Number 0 for none
	if read.Number == k.read && time.Since(k.readAt) < k.every() {
		return nil
	}
	if err := k.builds().Reading(ctx, k.reader, k.proc.Name, read.Number); err != nil {
		return err
	}
	switch {
	case read.Number == k.read:
	case read.Number == 0:
		k.logger.Warn("view: no build that this replica's code reads has caught up; its reads answer 503 until one does")
	default:
		k.logger.Info("view: this replica's reads go to a build", "build", read.Name(), "version", read.Version)
	}
	k.read, k.readAt = read.Number, time.Now()
	return nil
}

// drop drops the retired builds that no replica reads, looking every quarter of DropAfter.
func (k *keeper) drop(ctx context.Context, builds []processor.Build) error {
	retired := false
	for _, b := range builds {
		retired = retired || b.State == processor.BuildRetired
	}
	if !retired || time.Since(k.droppedAt) < k.every() {
		return nil
	}
	k.droppedAt = time.Now()
	dropped, err := k.builds().DropBuilds(ctx, k.proc.Name, k.g.cfg.Options.DropAfter)
	for _, b := range dropped {
		k.logger.Info("view: a retired build that no replica reads was dropped", "build", b.Name(), "version", b.Version)
		k.poke()
	}
	return err
}

// rebuild starts a build of the view at the code's version beside the one that answers (a
// replay), and returns its name, or that of the one already building.
func (k *keeper) rebuild(ctx context.Context) (string, error) {
	builds, err := k.builds().ListBuilds(ctx, k.proc.Name)
	if err != nil {
		return "", err
	}
	for _, b := range builds {
		if b.State != processor.BuildRetired && b.Version > k.versions.Code {
			return "", errs.E(errs.NotLeaseHolder, "this replica runs version %d of the %s view, and version %d is there: "+
				"ask a replica of the newer release", k.versions.Code, k.proc.Name, b.Version)
		}
	}
	b, started, err := k.builds().StartBuild(ctx, k.proc.Name, k.versions.Code, true)
	if err != nil {
		return "", err
	}
	if started {
		k.logger.Info("view: a rebuild was asked for; the build that answers goes on answering until it takes over",
			"build", b.Name(), "version", b.Version)
	}
	k.poke()
	return b.Name(), nil
}
