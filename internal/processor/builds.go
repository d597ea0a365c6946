package processor

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"library/internal/errs"
)

// BuildState is where a build of a view model is in its life.
type BuildState string

// The states of a build.
const (
	// BuildBuilding: read from the start of the log, not read by anyone yet.
	BuildBuilding BuildState = "building"
	// BuildAnswering: the newest build to have caught up with the log: the replicas whose code
	// reads its version read it.
	BuildAnswering BuildState = "answering"
	// BuildRetired: it caught up once, and a newer build answers now. Replicas whose code can't
	// read the answering build's version (those of an older release, during a rolling upgrade)
	// still read it; it is dropped once none does.
	BuildRetired BuildState = "retired"
)

// Build is one build of a view model: its tables, filled from the start of the log by the code
// of one version of the view, under a processor of its own (Name: its lease, its checkpoint).
type Build struct {
	View string
	// Number counts the view's builds: 1, 2, ...
	Number int
	// Version is the version of the view's code that builds it.
	Version int
	State   BuildState
}

// Name is the build's processor name: its lease and its checkpoint. The first build of a view
// is named after the view (it is the view as it was before views were built in versions);
// the next ones are view@2, view@3, ...
func (b Build) Name() string {
	if b.Number == 1 {
		return b.View
	}
	return b.View + "@" + strconv.Itoa(b.Number)
}

// CaughtUp reports whether the build has caught up with the log once: it answers, or answered.
func (b Build) CaughtUp() bool { return b.State == BuildAnswering || b.State == BuildRetired }

// IsBuildOf reports whether name is the name of a build of view: the view's own name, or
// view@n.
func IsBuildOf(name, view string) bool {
	if name == view {
		return true
	}
	n, ok := strings.CutPrefix(name, view+"@")
	if !ok {
		return false
	}
	number, err := strconv.Atoi(n)
	return err == nil && number > 1 && strconv.Itoa(number) == n
}

// Versions are which versions of a view model a replica's code writes and reads.
type Versions struct {
	// Code is the version of the view's code: the version of the builds it makes and keeps up
	// to date. A view's code bumps it whenever the shape of its tables, or what it writes in
	// them, changes.
	Code int
	// ReadsFrom is the oldest version whose tables its reads can read: Code, unless the
	// version bump left the tables' shape as the reads see it (a change of what is written,
	// say), in which case the reads of the new code can go on reading the old build until the
	// new one takes over.
	ReadsFrom int
}

// Reads reports whether the reads of a replica with these versions can read a build of version.
func (v Versions) Reads(version int) bool { return version >= v.ReadsFrom && version <= v.Code }

// Check refuses versions that can't be: Code from 1, ReadsFrom from 1 up to Code.
func (v Versions) Check() error {
	if v.Code < 1 || v.ReadsFrom < 1 || v.ReadsFrom > v.Code {
		return fmt.Errorf("view versions %+v: want 1 <= ReadsFrom <= Code", v)
	}
	return nil
}

// ReadBuild is the build that reads of a view go to, on a replica whose code has versions v:
// of the builds that have caught up whose version it reads, the one that outranks the others
// (the newest of the newest version); ok is false when there is none (a replica of a newer
// release whose version is still building, and that can't read the older one).
func ReadBuild(builds []Build, v Versions) (read Build, ok bool) {
	for _, b := range builds {
		if b.CaughtUp() && v.Reads(b.Version) && (!ok || Outranks(b, read)) {
			read, ok = b, true
		}
	}
	return read, ok
}

// Outranks reports whether build a outranks build b as the one to answer: a is of a newer
// version, or of the same version and newer.
func Outranks(a, b Build) bool {
	return a.Version > b.Version || (a.Version == b.Version && a.Number > b.Number)
}

// ErrBuildGone is what a write to a build that was dropped meanwhile returns: another build
// replaced it, and nothing was written.
var ErrBuildGone = errors.New("processor: the view's build was dropped")

// Builds keeps the builds of the view models where every replica sees them: which builds each
// view has, at which version, and which one answers. It also keeps which build each replica
// reads, so that a build is dropped only once no replica reads it. Package processor's comment
// says what the builds promise.
type Builds interface {
	// ListBuilds returns the builds of a view, by number.
	ListBuilds(ctx context.Context, view string) ([]Build, error)
	// StartBuild records a new build of view at version, to be built from the start of the
	// log, and returns it with started true. While a build of the view is building, it starts
	// none and returns that one instead, unless that one is of an older version: then it drops
	// it (a newer release's build replaces it) and starts its own. Unless again (a replay), it
	// also starts none while a build at version exists, and returns the zero Build. A view's
	// first build to start while none has caught up answers at once: there is nothing older to
	// answer instead.
	StartBuild(ctx context.Context, view string, version int, again bool) (b Build, started bool, err error)
	// TakeOver is called by the holder of build b's lease once b has caught up with the log,
	// and returns b as it is after. b takes over, answering, and the build that answered is
	// retired, in one step, when b is of a newer version than that one, or of the same version
	// and newer; but not before b's checkpoint has reached the answering build's, so that reads
	// never go back in the log: until then it changes nothing. A building b that a build of a
	// newer version outranks is retired instead (it has caught up, for the replicas of its own
	// release). ErrBuildGone when b was dropped.
	TakeOver(ctx context.Context, b Build) (Build, error)
	// DropBuilds drops the builds of view that were retired at least keep ago and that no
	// replica has said it reads in the last keep: their tables, their checkpoints, their rows.
	// It returns the builds it dropped.
	DropBuilds(ctx context.Context, view string, keep time.Duration) ([]Build, error)
	// Reading records, now, that reader (one replica's process) reads build number of view; 0
	// forgets what it read.
	Reading(ctx context.Context, reader, view string, number int) error
}

// NoBuildToRead is what a read of view answers while no build its replica can read has caught
// up: on a replica of a newer release whose tables have a new shape, until its build takes over.
func NoBuildToRead(view string) error {
	return errs.E(errs.Unavailable, "the %s view of this release is still being built (GET /status shows how far): "+
		"replicas of the previous release answer until it takes over; try again shortly", view)
}
