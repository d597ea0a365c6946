package catalog_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/catalog"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/apitest"
	"library/internal/testkit/pgtest"
)

// rebuildEnv is a database of its own, on which a test starts replicas of the service.
type rebuildEnv struct {
	url  string
	pool *pgxpool.Pool
	cfg  app.Config
}

func newRebuildEnv(t *testing.T) rebuildEnv {
	t.Helper()
	url := pgtest.NewDatabase(t)
	return rebuildEnv{url: url, pool: pgtest.Connect(t, url), cfg: apitest.FastBackground(app.Config{DatabaseURL: url})}
}

// replica is a replica of the service that a test started.
type replica struct {
	*apitest.API
	stop func()
}

// start starts a replica whose catalog's code is of version (0: this code's).
func (e rebuildEnv) start(t *testing.T, id string, version int) replica {
	t.Helper()
	cfg := e.cfg
	cfg.ReplicaID, cfg.Tuning.CatalogVersion = id, version
	s := apitest.Launch(t, cfg, apitest.ServiceLogger(t, cfg))
	return replica{API: s.API("postgres"), stop: s.Stop}
}

// addBooks adds n books through a and returns the position of the last.
func addBooks(t *testing.T, a *apitest.API, prefix string, n int) int64 {
	t.Helper()
	var last int64
	for i := range n {
		last = apitest.AddBook(t, a, fmt.Sprintf("%s-%03d", prefix, i)).Position
	}
	return last
}

// readBooks is GET /books with every book on one page, once the catalog has read minPosition;
// anything but a 200 fails the test.
func readBooks(t *testing.T, a *apitest.API, minPosition int64) bookPage {
	t.Helper()
	r := a.Get(t, fmt.Sprintf("/books?limit=%d&minPosition=%d", catalog.MaxPageSize, minPosition))
	require.Equal(t, http.StatusOK, r.Status, "GET /books: %s", r.Body)
	var p bookPage
	apitest.RequireJSON(t, r, &p)
	return p
}

// buildStates are the catalog's builds as a's /status lists them: name, state, and whether a
// reads it, as "catalog answering reads".
func buildStates(t *testing.T, a *apitest.API) []string {
	t.Helper()
	var out []string
	for _, b := range apitest.Builds(t, a, catalog.Name) {
		line := b.Name + " " + string(b.State)
		if b.Reads {
			line += " reads"
		}
		out = append(out, line)
	}
	return out
}

// buildOf is the line of a's /status of the named build; ok is false when there is none.
func buildOf(t *testing.T, a *apitest.API, name string) (processor.Status, bool) {
	t.Helper()
	for _, b := range apitest.Builds(t, a, catalog.Name) {
		if b.Name == name {
			return b, true
		}
	}
	return processor.Status{}, false
}

// watchReads reads GET /books from a until done says so, and fails the test when a read is not
// answered, when its books are not want, or when its position goes back.
func watchReads(t *testing.T, a *apitest.API, want []string, done func() bool) {
	t.Helper()
	var position int64
	apitest.Eventually(t, 30*time.Second, func() bool {
		page := readBooks(t, a, 0)
		require.Equal(t, want, page.ids(), "the books, at every read")
		require.GreaterOrEqual(t, page.Position, position, "a read never goes back in the log")
		position = page.Position
		return done()
	}, "the rebuild to take over")
}

// heldLease is a processor's lease held by the test, as a replica would hold it: while it does,
// no replica of the service runs that processor.
type heldLease struct {
	conn *pgx.Conn
	key  int64
}

func holdLease(t *testing.T, url, name string) *heldLease {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(ctx)) })
	l := &heldLease{conn: conn, key: pgdriver.LockKey(name)}
	_, err = conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, l.key)
	require.NoError(t, err)
	return l
}

// release gives the lease up, as a replica that stops does.
func (l *heldLease) release(t *testing.T) {
	t.Helper()
	_, err := l.conn.Exec(context.Background(), `SELECT pg_advisory_unlock($1)`, l.key)
	require.NoError(t, err)
}

// kill ends the lease's session from the server's side, as it ends when its replica's process
// is killed: nobody gives the lease up, the server lets it go.
func (l *heldLease) kill(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	var ended bool
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT pg_terminate_backend($1)`, l.conn.PgConn().PID()).Scan(&ended))
	require.True(t, ended)
}

// pauseBuilds holds every change of view's builds (what pgdriver's lockViewSQL serializes) until
// the returned function is called: a build whose lease a replica takes waits before it makes its
// tables, its lease held. It holds no transaction open, so that the read horizon of the other
// tests on the cluster moves on.
func pauseBuilds(t *testing.T, url, view string) (resume func()) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(ctx)) })
	_, err = conn.Exec(ctx, `SELECT pg_advisory_lock(1447642455, hashtext($1))`, view)
	require.NoError(t, err)
	return func() {
		_, err := conn.Exec(ctx, `SELECT pg_advisory_unlock(1447642455, hashtext($1))`, view)
		require.NoError(t, err)
	}
}

// tableThere reports whether the table (schema.table) exists.
func tableThere(t *testing.T, pool *pgxpool.Pool, table string) bool {
	t.Helper()
	var there bool
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT to_regclass($1) IS NOT NULL`, table).Scan(&there))
	return there
}

// schemaThere reports whether the schema exists.
func schemaThere(t *testing.T, pool *pgxpool.Pool, schema string) bool {
	t.Helper()
	var there bool
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, schema).Scan(&there))
	return there
}

// eventsHandled is what a's /metrics says the named processor has handled in this replica.
func eventsHandled(t *testing.T, a *apitest.API, name string) int64 {
	t.Helper()
	resp, err := http.Get(a.Metrics + "/metrics")
	require.NoError(t, err)
	defer func() { _ = resp.Body.Close() }()
	prefix := `library_processor_events_handled_total{processor="` + name + `"} `
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if value, ok := strings.CutPrefix(lines.Text(), prefix); ok {
			n, err := strconv.ParseFloat(value, 64)
			require.NoError(t, err)
			return int64(n)
		}
	}
	require.NoError(t, lines.Err())
	return 0
}

func discardLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
