package pgstore

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/storetest"
)

func TestPostgresSnapshots(t *testing.T) {
	t.Parallel()
	storetest.Snapshots(t, func(t *testing.T) storetest.SnapshotStore { return newPostgres(t, pgtest.NewPool(t)) }, forgetPostgres)
}

// forgetPostgres is a storetest.ForgetFunc: it deletes the events from the test's own database, which
// nothing but a restore of an older backup would do to the log.
func forgetPostgres(t *testing.T, s storetest.SnapshotStore, streamID string, keep int64) storetest.SnapshotStore {
	t.Helper()
	_, err := s.(*Postgres).pool.Exec(context.Background(), `DELETE FROM events WHERE stream_id = $1 AND version > $2`, streamID, keep)
	require.NoError(t, err)
	return s
}

// statementCounter is a pgx tracer that records the statements its connections send.
type statementCounter struct {
	mu  sync.Mutex
	sql []string
}

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sql = append(c.sql, data.SQL)
	return ctx
}

func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *statementCounter) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.sql
	c.sql = nil
	return out
}

// LoadStream reads the snapshot and the events after it in one statement: one round trip, one
// consistent read.
func TestPostgresLoadStreamIsOneStatement(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	config, err := pgxpool.ParseConfig(pgtest.NewDatabase(t))
	require.NoError(t, err)
	counter := &statementCounter{}
	config.ConnConfig.Tracer = counter
	pool, err := pgxpool.NewWithConfig(ctx, config)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	s := newPostgres(t, pool)

	written := storetest.AppendStream(t, s, "loan-1", 4)
	require.NoError(t, s.SaveSnapshot(ctx, storetest.SnapshotAt(written[1], 1)))
	require.NoError(t, pool.Ping(ctx)) // the pool has a connection: none is made during the load
	counter.take()

	got, tail, err := s.LoadStream(ctx, "loan-1", 1)
	require.NoError(t, err)
	require.NotNil(t, got)
	require.Equal(t, []int64{3, 4}, storetest.VersionsOf(tail))
	var statements []string
	for _, sql := range counter.take() {
		if sql != "SELECT pg_notify($1, $2)" { // the appends' notification goes out on its own, whenever it does
			statements = append(statements, sql)
		}
	}
	require.Equal(t, []string{loadStreamSQL}, statements)
}

func TestPostgresSnapshotsUnreachableIsUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, "postgres://library:secret-password@127.0.0.1:1/library?connect_timeout=2")
	require.NoError(t, err)
	defer pool.Close()
	s := newPostgres(t, pool)

	_, _, err = s.LoadStream(ctx, "s", 1)
	require.True(t, errs.Is(err, errs.Unavailable), "got %v", err)
	err = s.SaveSnapshot(ctx, eventstore.Snapshot{StreamID: "s", Version: 1, Position: 1})
	require.True(t, errs.Is(err, errs.Unavailable), "got %v", err)
	require.True(t, errs.Is(s.DeleteSnapshot(ctx, "s"), errs.Unavailable))
	_, err = s.ReadVersions(ctx, "s", 1, 2)
	require.True(t, errs.Is(err, errs.Unavailable), "got %v", err)
	require.NotContains(t, err.Error(), "secret-password")
}

// A cold load of a long stream reads its index from the snapshot on: the planner must never
// choose to scan the whole events table for the tail, whatever it guesses of the snapshot's
// version. (Bitmap scans are turned off, so that the only other way to read the tail is the
// table scan that a one-sided bound would choose once the stream is most of the table.)
func TestPostgresLoadStreamReadsTheIndex(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	ctx := context.Background()
	_, err := pool.Exec(ctx, `INSERT INTO events (stream_id, version, type, data, metadata)
		SELECT 'account-long', g, 'FineCharged', '{"amount":1}', '{}' FROM generate_series(1, 30000) g`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `INSERT INTO snapshots (stream_id, version, position, schema_version, state, "window")
		SELECT stream_id, version, position, 1, '', '' FROM events WHERE stream_id = 'account-long' AND version = 29990`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `ANALYZE events`)
	require.NoError(t, err)

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SET LOCAL enable_bitmapscan = off`)
	require.NoError(t, err)
	rows, err := tx.Query(ctx, `EXPLAIN `+loadStreamSQL, "account-long", 1)
	require.NoError(t, err)
	var lines []string
	for rows.Next() {
		var line string
		require.NoError(t, rows.Scan(&line))
		lines = append(lines, line)
	}
	require.NoError(t, rows.Err())
	require.NotContains(t, strings.Join(lines, "\n"), "Seq Scan on events", "the tail is read from the index")
}
