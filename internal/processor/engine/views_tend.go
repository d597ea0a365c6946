package engine

import (
	"context"
	"errors"
	"library/internal/errs"
	"library/internal/processor"
	"time"
)

// What a keeper does, at each look, with the builds of its view: let its build take over,
// say which build this replica reads, drop the builds no replica reads; and a replay.

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
	if r := k.runnerOf(mine.Number); r == nil || !r.holdsLease() || r.readFull.Load() {
		return nil // not this replica's to say, or far behind: counting what is left would cost the log a scan
	}
	pos, err := k.g.cfg.Checkpoints.Load(ctx, mine.Name())
	if err != nil {
		return err
	}
	left, err := k.g.cfg.Store.CountAfterUpTo(ctx, pos.Checkpoint, 1, k.proc.Types...)
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
	switch read.Number {
	case k.read:
	case 0:
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
