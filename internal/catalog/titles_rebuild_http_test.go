package catalog_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/catalog"
	"library/internal/processor"
	"library/internal/testkit/apitest"
)

// An upgrade from a release whose catalog keeps no titles (version 1) to this one, on
// PostgreSQL: while the new release's build of the catalog builds beside the old one, GET
// /titles is 503 NotCaughtUp with Retry-After, at once, on both releases, and GET /books
// answers from the old build; once the new build takes over, GET /titles answers on the new
// release, with the titles and counts the old release's commands made.
func TestHTTPTitlesAnswerOnceTheirBuildTakesOver(t *testing.T) {
	t.Parallel()
	env := newRebuildEnv(t)
	env.cfg.Tuning.CatalogWait = time.Minute // a read that waited for minPosition would take that long
	old := env.start(t, "release-1", 1)
	call(t, old.API, http.MethodPost, "/titles", apitest.Obj{"id": "dune", "title": "Dune", "authors": []string{"Frank Herbert"}})
	call(t, old.API, http.MethodPost, "/titles", apitest.Obj{"id": "emma", "title": "Emma", "authors": []string{"Jane Austen"}})
	for i := range 3 {
		call(t, old.API, http.MethodPost, "/titles/dune/copies", apitest.Obj{"id": fmt.Sprint("dune-", i), "barcode": fmt.Sprint("D", i)})
	}
	last := call(t, old.API, http.MethodPost, "/books/dune-0/loans", apitest.Obj{"loanId": "l1", "memberId": "alice"})
	books := readBooks(t, old.API, last).ids()
	require.Equal(t, []string{"dune-0", "dune-1", "dune-2"}, books)
	requireNoTitles(t, old.API, last)

	builder := holdLease(t, env.url, "catalog@2") // the new build waits for the test to let go
	next := env.start(t, "release-2", 0)
	apitest.Eventually(t, 10*time.Second, func() bool { return len(buildStates(t, next.API)) == 2 }, "the new version's build")
	require.Equal(t, []string{"catalog answering reads", "catalog@2 building"}, buildStates(t, next.API))
	for range 3 {
		requireNoTitles(t, next.API, last)
		requireNoTitles(t, old.API, last)
		require.Equal(t, books, readBooks(t, next.API, last).ids(), "GET /books answers from the old build")
	}

	builder.release(t)
	apitest.Eventually(t, 30*time.Second, func() bool {
		b, _ := buildOf(t, next.API, "catalog@2")
		return b.State == processor.BuildAnswering
	}, "the new build to take over")
	l := getTitles(t, next.API, url.Values{"minPosition": {fmt.Sprint(last)}})
	require.Equal(t, []string{"dune", "emma"}, l.ids())
	require.Equal(t, apiTitleCount{Total: 3, Available: 2}, l.Titles[0].Counts)
	require.Equal(t, countsOf(t, next.API, "dune"), l.Titles[0].Counts)
	require.Equal(t, books, readBooks(t, next.API, last).ids())
	requireNoTitles(t, old.API, last) // the old release reads its own build while it runs

	old.stop()
	apitest.Rebuilt(t, next.API, catalog.Name, "catalog@2")
	require.Equal(t, []string{"dune", "emma"}, getTitles(t, next.API, url.Values{}).ids())
}

// requireNoTitles checks that a's GET /titles, with minPosition too, is 503 NotCaughtUp with
// Retry-After, at once.
func requireNoTitles(t *testing.T, a *apitest.API, minPosition int64) {
	t.Helper()
	for _, path := range []string{"/titles", fmt.Sprintf("/titles?q=dune&minPosition=%d", minPosition)} {
		start := time.Now()
		r := a.Get(t, path)
		apitest.RequireProblem(t, r, http.StatusServiceUnavailable, "NotCaughtUp")
		require.Equal(t, "1", r.Header.Get("Retry-After"), path)
		require.Less(t, time.Since(start), 20*time.Second, "%s: at once, not after the wait for minPosition (a minute)", path)
	}
}
