package catalog_test

// The catalog rebuilt beside the build that answers, on PostgreSQL, through the service: for a
// new version of its code, for a replay, on two replicas, and with its builder killed mid-way.
// While the new build builds, GET /books answers from the old one, and never goes back in the
// log; the new one takes over once it has caught up, and the old one's tables are dropped.

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/catalog"
	"library/internal/catalog/catalogpg"
	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/apitest"
	"library/internal/testkit/drivertest"
)

// A release whose catalog is of a new version, started beside a replica of the release before:
// the new version builds in a schema of its own while both replicas read the old build, which
// the old release keeps up to date; it takes over once caught up, the old release goes on
// reading the old build while it runs, and once it stops the old tables are dropped.
func TestHTTPANewVersionOfTheCatalogIsBuiltBesideTheOld(t *testing.T) {
	t.Parallel()
	env := newRebuildEnv(t)
	old := env.start(t, "release-1", 1)
	last := addBooks(t, old.API, "old", 12)
	before := readBooks(t, old.API, last).ids()

	builder := holdLease(t, env.url, "catalog@2") // the new build waits for the test to let go
	next := env.start(t, "release-2", 2)
	for _, a := range []*apitest.API{old.API, next.API} {
		apitest.Eventually(t, 10*time.Second, func() bool { return len(buildStates(t, a)) == 2 }, "the new version's build")
		require.Equal(t, []string{"catalog answering reads", "catalog@2 building"}, buildStates(t, a))
	}
	b2, _ := buildOf(t, next.API, "catalog@2")
	require.Equal(t, 2, b2.Version)
	require.Positive(t, b2.Lag)
	for range 5 {
		require.Equal(t, before, readBooks(t, next.API, last).ids(), "the new release reads the old build")
	}
	added := apitest.AddBook(t, next.API, "old-999").Position
	before = readBooks(t, next.API, added).ids() // the old release keeps the old build up to date
	require.Len(t, before, 13)

	builder.release(t)
	watchReads(t, next.API, before, func() bool {
		b, _ := buildOf(t, next.API, "catalog@2")
		return b.State == processor.BuildAnswering
	})
	require.Equal(t, []string{"catalog retired", "catalog@2 answering reads"}, buildStates(t, next.API))
	require.Equal(t, []string{"catalog retired reads", "catalog@2 answering"}, buildStates(t, old.API),
		"the old release reads its own build while it runs")
	require.Equal(t, before, readBooks(t, old.API, added).ids())
	require.True(t, tableThere(t, env.pool, "public.catalog_books"))

	old.stop()
	apitest.Rebuilt(t, next.API, catalog.Name, "catalog@2")
	require.False(t, tableThere(t, env.pool, "public.catalog_books"), "the first build's tables are dropped")
	require.True(t, tableThere(t, env.pool, "view_catalog_2.catalog_books"))
	require.Equal(t, before, readBooks(t, next.API, added).ids())
}

// POST /admin/processors/catalog/replay builds the catalog again beside the build that answers,
// which goes on answering, and is kept up to date, until the new build takes over; /status
// lists both meanwhile. A second replay builds another in a schema of its own and drops the
// one before. (A fresh database's catalog is the migrations' first build, of version 1, which
// this release replaces with its own first: catalog@2.)
func TestHTTPReplayOfTheCatalogBuildsBesideIt(t *testing.T) {
	t.Parallel()
	env := newRebuildEnv(t)
	a := env.start(t, "only", 0).API
	apitest.Rebuilt(t, a, catalog.Name, "catalog@2")
	last := addBooks(t, a, "book", 12)
	apitest.Lend(t, a, "book-003", "loan-1", "alice")
	require.Len(t, readBooks(t, a, last).ids(), 12)

	builder := holdLease(t, env.url, "catalog@3")
	require.Equal(t, "catalog@3", apitest.ReplayView(t, a, "catalog"))
	apitest.Eventually(t, 10*time.Second, func() bool { return len(buildStates(t, a)) == 2 }, "the new build in /status")
	require.Equal(t, []string{"catalog@2 answering reads", "catalog@3 building"}, buildStates(t, a))
	first, _ := buildOf(t, a, "catalog@2")
	second, _ := buildOf(t, a, "catalog@3")
	require.True(t, first.HoldsLease)
	require.False(t, second.HoldsLease, "the test holds its lease")
	require.Equal(t, []int{catalog.Version, catalog.Version}, []int{first.Version, second.Version})
	require.Zero(t, second.Checkpoint)
	require.Positive(t, second.Lag)
	require.Equal(t, "catalog@3", apitest.ReplayView(t, a, "catalog"), "one build builds at a time")

	added := apitest.AddBook(t, a, "book-999").Position
	before := readBooks(t, a, added).ids() // the build that answers is kept up to date
	require.Len(t, before, 13)
	builder.release(t)
	watchReads(t, a, before, func() bool {
		b, _ := buildOf(t, a, "catalog@3")
		return b.State == processor.BuildAnswering
	})
	apitest.Rebuilt(t, a, catalog.Name, "catalog@3")
	require.False(t, schemaThere(t, env.pool, "view_catalog_2"))
	require.True(t, tableThere(t, env.pool, "view_catalog_3.catalog_books"))
	require.Equal(t, before, readBooks(t, a, added).ids())

	fourth := apitest.ReplayView(t, a, "catalog@3")
	require.Equal(t, "catalog@4", fourth)
	watchReads(t, a, before, func() bool { return len(apitest.Builds(t, a, catalog.Name)) == 1 })
	apitest.Rebuilt(t, a, catalog.Name, fourth)
	require.False(t, schemaThere(t, env.pool, "view_catalog_3"), "the build before's schema is dropped")
	require.True(t, tableThere(t, env.pool, "view_catalog_4.catalog_books"))
}

// Two replicas: a replay asked of either starts one build, which one replica builds while the
// other waits for its lease; both see it take over, and both read it.
func TestHTTPTwoReplicasBuildTheCatalogOnce(t *testing.T) {
	t.Parallel()
	env := newRebuildEnv(t)
	replicas := []*apitest.API{env.start(t, "one", 0).API, env.start(t, "two", 0).API}
	for _, a := range replicas {
		apitest.Rebuilt(t, a, catalog.Name, "catalog@2") // this release's first build
	}
	last := addBooks(t, replicas[0], "book", 10)
	before := readBooks(t, replicas[1], last).ids()

	builder := holdLease(t, env.url, "catalog@3")
	require.Equal(t, "catalog@3", apitest.ReplayView(t, replicas[1], "catalog"))
	require.Equal(t, "catalog@3", apitest.ReplayView(t, replicas[0], "catalog"))
	for _, a := range replicas {
		apitest.Eventually(t, 10*time.Second, func() bool { return len(buildStates(t, a)) == 2 }, "the new build in /status")
	}
	resume := pauseBuilds(t, env.url, catalog.Name) // the builder waits, its lease held
	builder.release(t)
	holders := func() (n int) {
		for _, a := range replicas {
			if b, _ := buildOf(t, a, "catalog@3"); b.HoldsLease {
				n++
			}
		}
		return n
	}
	apitest.Eventually(t, 10*time.Second, func() bool { return holders() > 0 }, "a replica to take the build's lease")
	for range 5 {
		require.Equal(t, 1, holders(), "one replica builds")
		for _, a := range replicas {
			b, _ := buildOf(t, a, "catalog@3")
			require.Equal(t, processor.BuildBuilding, b.State)
		}
	}
	resume()
	for _, a := range replicas {
		apitest.Rebuilt(t, a, catalog.Name, "catalog@3")
		require.Equal(t, []string{"catalog@3 answering reads"}, buildStates(t, a), "the takeover, seen by both")
		require.Equal(t, before, readBooks(t, a, last).ids())
	}
	require.Equal(t, 1, holders())
}

// A replica that dies in the middle of a build (here the test, building as a replica does,
// whose session the server ends): another replica takes the build's lease and carries on from
// the build's checkpoint, reading only what came after it.
func TestHTTPABuildCarriesOnAfterItsBuilderDies(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	env := newRebuildEnv(t)
	replicas := []*apitest.API{env.start(t, "one", 0).API, env.start(t, "two", 0).API}
	apitest.Rebuilt(t, replicas[0], catalog.Name, "catalog@2") // this release's first build
	last := addBooks(t, replicas[0], "book", 20)
	before := readBooks(t, replicas[0], last).ids()

	dying := holdLease(t, env.url, "catalog@3")
	require.Equal(t, "catalog@3", apitest.ReplayView(t, replicas[0], "catalog"))
	checkpoints := pgdriver.NewCheckpoints(env.pool)
	builds := drivertest.ListBuilds(t, checkpoints, catalog.Name)
	require.Len(t, builds, 2)
	view := catalogpg.New(env.pool, checkpoints)
	model, err := view.Build(ctx, builds[1])
	require.NoError(t, err)
	store := pgstore.New(env.pool, discardLogger())
	types := catalog.Processor(view).Types
	page, err := store.ReadTypes(ctx, eventstore.Checkpoint{}, 8, types)
	require.NoError(t, err)
	require.Len(t, page.Events, 8)
	mid := processor.Position{Checkpoint: page.Events[len(page.Events)-1].Checkpoint()}
	require.NoError(t, model.Apply(ctx, processor.Position{}, mid, page.Events))
	dying.kill(t, env.pool)

	for _, a := range replicas {
		apitest.Rebuilt(t, a, catalog.Name, "catalog@3")
		require.Equal(t, before, readBooks(t, a, last).ids())
	}
	rest, err := store.CountAfter(ctx, mid.Checkpoint, types...)
	require.NoError(t, err)
	handled := eventsHandled(t, replicas[0], "catalog@3") + eventsHandled(t, replicas[1], "catalog@3")
	require.Equal(t, rest, handled, "the build carried on from its checkpoint")
}
