package catalog_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/catalog"
	"library/internal/testkit/apitest"
	"library/internal/testkit/syncbuf"
)

// A catalog far behind the log (its builder's lease held while 30 books, each a title of its
// own, are added) catches up in bulk: its trigram indexes and the titles' B-trees dropped once
// it finds itself that far behind, made again, whole, once it has caught up, /status saying bulk until then; a search
// then finds every book and every title, through its index. A catch-up shorter than that (5
// books more) is written as usual.
func TestHTTPACatalogFarBehindCatchesUpInBulk(t *testing.T) {
	t.Parallel()
	env := newRebuildEnv(t)
	env.cfg.Tuning.CatalogBulkFrom = 20
	env.cfg.Tuning.Processors.BatchSize = 10
	builder := holdLease(t, env.url, "catalog@2") // this code's first build of its own
	logs := &syncbuf.Buffer{}
	cfg := env.cfg
	cfg.ReplicaID = "bulk"
	s := apitest.Launch(t, cfg, slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelInfo})))
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the service's log:\n%s", logs.String())
		}
	})
	a := s.API("postgres")
	last := addBooks(t, a, "far", 30)

	builder.release(t)
	apitest.Eventually(t, 30*time.Second, func() bool {
		b, ok := buildOf(t, a, "catalog@2")
		return ok && b.HoldsLease && b.Lag == 0 && !b.Bulk
	}, "the catalog catches up, and its indexes are whole")
	require.Equal(t, 1, said(logs, "writing a catch-up in bulk"), "far behind: in bulk")
	require.Equal(t, 1, said(logs, "caught up in bulk"))
	requireSearchIndexes(t, env, "view_catalog_2")
	require.Len(t, search(t, a, "/books", last), 30)
	require.Len(t, search(t, a, "/titles", last), 30)

	last = addBooks(t, a, "near", 5)
	require.Len(t, search(t, a, "/books", last), 35)
	require.Equal(t, 1, said(logs, "writing a catch-up in bulk"), "5 books behind is not far")
	requireSearchIndexes(t, env, "view_catalog_2")
}

// search is GET path?q=dune (every book AddBook adds is Dune's) once the catalog has read
// minPosition: the ids of the books or titles found.
func search(t *testing.T, a *apitest.API, path string, minPosition int64) []string {
	t.Helper()
	r := a.Get(t, fmt.Sprintf("%s?q=dune&limit=%d&minPosition=%d", path, catalog.MaxPageSize, minPosition))
	require.Equal(t, http.StatusOK, r.Status, "GET %s: %s", path, r.Body)
	var page map[string]any
	apitest.RequireJSON(t, r, &page)
	var ids []string
	for _, key := range []string{"books", "titles"} {
		items, _ := page[key].([]any)
		for _, item := range items {
			ids = append(ids, item.(map[string]any)["id"].(string))
		}
	}
	return ids
}

// requireSearchIndexes fails the test unless the build's tables in schema have their trigram
// indexes and the titles' B-trees, each valid.
func requireSearchIndexes(t *testing.T, env rebuildEnv, schema string) {
	t.Helper()
	for _, index := range []string{"catalog_books_search", "catalog_titles_search", "catalog_titles_order",
		"catalog_titles_available", "catalog_titles_isbn"} {
		var valid bool
		err := env.pool.QueryRow(context.Background(), `SELECT i.indisvalid FROM pg_index i
			WHERE i.indexrelid = to_regclass($1)`, schema+"."+index).Scan(&valid)
		require.NoError(t, err, "%s.%s", schema, index)
		require.True(t, valid, "%s.%s", schema, index)
	}
}

// said is how many lines of logs say msg.
func said(logs *syncbuf.Buffer, msg string) int {
	return strings.Count(logs.String(), `msg="`+msg)
}
