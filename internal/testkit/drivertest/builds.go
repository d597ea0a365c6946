package drivertest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/processor"
)

// BuildsStore keeps the builds of view models and the checkpoints of their processors, as both
// drivers do in one place.
type BuildsStore interface {
	processor.Builds
	processor.Checkpoints
}

// TestBuilds is the contract that every processor.Builds meets. newStore returns an empty store
// for one test, in which no view has a build yet: each subtest runs in parallel with its own.
func TestBuilds(t *testing.T, newStore func(t *testing.T) BuildsStore) {
	for _, c := range []struct {
		name string
		run  func(t *testing.T, newStore func(t *testing.T) BuildsStore)
	}{
		{"a view's first build answers at once", buildsAViewsFirstBuildAnswersAtOnce},
		{"one build builds at a time", buildsOneBuildBuildsAtATime},
		{"a build takes over once its checkpoint has reached the answering one's", buildsTakeOverWaitsForTheCheckpoint},
		{"a newer version replaces an older one building, and outranks it", buildsANewerVersionOutranks},
		{"a retired build is dropped once no reader reads it", buildsARetiredBuildIsDroppedOnceNoReaderReadsIt},
	} {
		t.Run(c.name, func(t *testing.T) { c.run(t, newStore) })
	}
}

func buildsAViewsFirstBuildAnswersAtOnce(t *testing.T, newStore func(t *testing.T) BuildsStore) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	b, started, err := s.StartBuild(ctx, "shelf", 1, false)
	require.NoError(t, err)
	require.True(t, started)
	require.Equal(t, processor.Build{View: "shelf", Number: 1, Version: 1, State: processor.BuildAnswering}, b)
	require.Equal(t, "shelf", b.Name(), "the first build runs under the view's own name")
	_, started, err = s.StartBuild(ctx, "shelf", 1, false)
	require.NoError(t, err)
	require.False(t, started, "a build of the version is there")
	require.Equal(t, []processor.Build{b}, ListBuilds(t, s, "shelf"))
	require.Empty(t, ListBuilds(t, s, "other"), "views are independent")
}

func buildsOneBuildBuildsAtATime(t *testing.T, newStore func(t *testing.T) BuildsStore) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	first := StartBuild(t, s, "shelf", 1, false)
	second := StartBuild(t, s, "shelf", 1, true)
	require.Equal(t, processor.Build{View: "shelf", Number: 2, Version: 1, State: processor.BuildBuilding}, second)
	require.Equal(t, "shelf@2", second.Name())
	again, started, err := s.StartBuild(ctx, "shelf", 1, true)
	require.NoError(t, err)
	require.False(t, started, "a replay while one builds is that one")
	require.Equal(t, second, again)
	require.Equal(t, []processor.Build{first, second}, ListBuilds(t, s, "shelf"))
}

func buildsTakeOverWaitsForTheCheckpoint(t *testing.T, newStore func(t *testing.T) BuildsStore) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	first := StartBuild(t, s, "shelf", 1, false)
	require.NoError(t, s.Save(ctx, first.Name(), processor.Position{}, Pos(3, 5, 5)))
	second := StartBuild(t, s, "shelf", 1, true)
	require.NoError(t, s.Save(ctx, second.Name(), processor.Position{}, Pos(0, 4, 4)))
	after, err := s.TakeOver(ctx, second)
	require.NoError(t, err)
	require.Equal(t, processor.BuildBuilding, after.State, "its reads would go back in the log")
	require.Equal(t, processor.BuildAnswering, ListBuilds(t, s, "shelf")[0].State)

	require.NoError(t, s.Save(ctx, second.Name(), Pos(0, 4, 4), Pos(0, 5, 5)))
	after, err = s.TakeOver(ctx, second)
	require.NoError(t, err)
	require.Equal(t, processor.BuildAnswering, after.State, "as far on, in a generation of its own")
	first.State, second.State = processor.BuildRetired, processor.BuildAnswering
	require.Equal(t, []processor.Build{first, second}, ListBuilds(t, s, "shelf"))
	after, err = s.TakeOver(ctx, second)
	require.NoError(t, err)
	require.Equal(t, second, after, "taking over again changes nothing")
}

func buildsANewerVersionOutranks(t *testing.T, newStore func(t *testing.T) BuildsStore) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	v1 := StartBuild(t, s, "shelf", 1, false)
	replay := StartBuild(t, s, "shelf", 1, true)
	v2 := StartBuild(t, s, "shelf", 2, false)
	require.Equal(t, processor.Build{View: "shelf", Number: 3, Version: 2, State: processor.BuildBuilding}, v2,
		"the older release's replay was dropped for it")
	_, err := s.TakeOver(ctx, replay)
	require.ErrorIs(t, err, processor.ErrBuildGone)
	_, started, err := s.StartBuild(ctx, "shelf", 1, true)
	require.NoError(t, err)
	require.False(t, started, "an older release can't replace a newer one's build")

	after, err := s.TakeOver(ctx, v2)
	require.NoError(t, err)
	require.Equal(t, processor.BuildAnswering, after.State)
	v1.State = processor.BuildRetired
	require.Equal(t, []processor.Build{v1, after}, ListBuilds(t, s, "shelf"))

	old := StartBuild(t, s, "shelf", 1, true) // an older release's replay, once v2 answers
	after, err = s.TakeOver(ctx, old)
	require.NoError(t, err)
	require.Equal(t, processor.BuildRetired, after.State, "caught up, for its own release, but outranked")
	read, ok := processor.ReadBuild(ListBuilds(t, s, "shelf"), processor.Versions{Code: 1, ReadsFrom: 1})
	require.True(t, ok)
	require.Equal(t, old.Number, read.Number, "the older release reads its own newest build")
	read, ok = processor.ReadBuild(ListBuilds(t, s, "shelf"), processor.Versions{Code: 2, ReadsFrom: 1})
	require.True(t, ok)
	require.Equal(t, v2.Number, read.Number, "a release that reads both reads its own version")
}

func buildsARetiredBuildIsDroppedOnceNoReaderReadsIt(t *testing.T, newStore func(t *testing.T) BuildsStore) {
	t.Parallel()
	ctx := context.Background()
	s := newStore(t)
	first := StartBuild(t, s, "shelf", 1, false)
	require.NoError(t, s.Save(ctx, first.Name(), processor.Position{}, Pos(0, 5, 5)))
	second := StartBuild(t, s, "shelf", 1, true)
	require.NoError(t, s.Save(ctx, second.Name(), processor.Position{}, Pos(0, 5, 5)))
	_, err := s.TakeOver(ctx, second)
	require.NoError(t, err)
	require.NoError(t, s.Reading(ctx, "replica-a", "shelf", first.Number))

	// While replica-a says it reads the first build, it stays, however long it was retired.
	// keep is long beside the time between its word and the drop, even on a loaded machine
	// under the race detector (at 100 ms, one run of twenty beside a full `make test` paused
	// that long).
	keep := time.Second
	for start := time.Now(); time.Since(start) < 2*keep; {
		require.NoError(t, s.Reading(ctx, "replica-a", "shelf", first.Number))
		dropped, err := s.DropBuilds(ctx, "shelf", keep)
		require.NoError(t, err)
		require.Empty(t, dropped, "a build that a replica reads")
	}
	require.NoError(t, s.Reading(ctx, "replica-a", "shelf", second.Number))
	Eventually(t, 5*time.Second, func() bool {
		dropped, err := s.DropBuilds(ctx, "shelf", keep)
		require.NoError(t, err)
		return len(dropped) == 1 && dropped[0].Number == first.Number
	}, "the first build is dropped once no replica reads it")
	second.State = processor.BuildAnswering
	require.Equal(t, []processor.Build{second}, ListBuilds(t, s, "shelf"))
	require.Equal(t, processor.Position{}, LoadPosition(t, s, first.Name()), "its checkpoint went with it")
	_, err = s.TakeOver(ctx, first)
	require.ErrorIs(t, err, processor.ErrBuildGone)
	third := StartBuild(t, s, "shelf", 1, true)
	require.Equal(t, 3, third.Number, "a number is never given twice")
}

// StartBuild starts a build of view at version, and fails the test when none starts.
func StartBuild(t testing.TB, s processor.Builds, view string, version int, again bool) processor.Build {
	t.Helper()
	b, started, err := s.StartBuild(context.Background(), view, version, again)
	require.NoError(t, err)
	require.True(t, started, "a build of %s at version %d starts", view, version)
	return b
}

// ListBuilds lists the builds of view.
func ListBuilds(t testing.TB, s processor.Builds, view string) []processor.Build {
	t.Helper()
	builds, err := s.ListBuilds(context.Background(), view)
	require.NoError(t, err)
	return builds
}

// Answering returns the build of view (the processor's name) that answers and its read model:
// what a test applies events to directly, without an engine. When the view has no build that
// answers, it starts the view's first, which answers at once.
func Answering(t testing.TB, s processor.Builds, name string, view processor.View) (processor.Build, processor.ViewModel) {
	t.Helper()
	b, ok := processor.ReadBuild(ListBuilds(t, s, name), view.Versions())
	if !ok {
		b = StartBuild(t, s, name, view.Versions().Code, false)
	}
	vm, err := view.Build(context.Background(), b)
	require.NoError(t, err)
	return b, vm
}

// Rebuild starts a build of view beside the one that answers, as a replay does, and returns it
// with its read model.
func Rebuild(t testing.TB, s processor.Builds, name string, view processor.View) (processor.Build, processor.ViewModel) {
	t.Helper()
	b := StartBuild(t, s, name, view.Versions().Code, true)
	vm, err := view.Build(context.Background(), b)
	require.NoError(t, err)
	return b, vm
}
