package pgdriver

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// A holder whose checker cannot run (a paused process, a starved goroutine) stops trusting its
// lease once the server may have ended the session: Fresh turns false SessionTimeout less
// CheckTimeout after the last good check, although nothing has said the lease is lost. The
// checker here is stalled by an interval of an hour.
func TestPostgresLeaseGoesStaleWhenItsCheckerStalls(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	require.NoError(t, err)
	key := LockKey("stalled")
	_, err = conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, key)
	require.NoError(t, err)

	stalled := LeaseTiming{CheckInterval: time.Hour, CheckTimeout: 100 * time.Millisecond, SessionTimeout: 600 * time.Millisecond}
	taken := time.Now()
	lease := newPostgresLease(conn, "stalled", key, stalled, discardLogger())
	t.Cleanup(lease.Release)
	require.True(t, lease.Fresh(), "fresh when just taken")

	drivertest.Eventually(t, 10*time.Second, func() bool { return !lease.Fresh() }, "the lease to go stale with its checker stalled")
	require.GreaterOrEqual(t, time.Since(taken), stalled.SessionTimeout-stalled.CheckTimeout,
		"trusted for SessionTimeout less CheckTimeout after it was taken")
	require.False(t, drivertest.IsClosed(lease.Lost()), "stale by its age alone: nothing said it was lost")
}

// Release returns within the bound of a check even when a check never ends, so that a stuck
// lease connection can't hold a shutdown (or a test's cleanup).
func TestPostgresLeaseReleaseDoesNotWaitForAStuckCheck(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgtest.NewDatabase(t))
	require.NoError(t, err)
	timing := LeaseTiming{CheckInterval: time.Hour, CheckTimeout: 100 * time.Millisecond, SessionTimeout: 600 * time.Millisecond}
	lease := &postgresLease{conn: conn, name: "stuck", key: LockKey("stuck"), timing: timing, logger: discardLogger(),
		lost: make(chan struct{}), stop: make(chan struct{}), checked: make(chan struct{})}
	// No checker runs, and checked never closes: a check stuck for good.

	released := make(chan struct{})
	go func() {
		lease.Release()
		close(released)
	}()
	select {
	case <-released:
	case <-ctx.Done():
		t.Fatal("Release waited for a check that never ends")
	}
	require.True(t, lease.abandoned.Load(), "the connection is left to the checker")
	require.True(t, drivertest.IsClosed(lease.Lost()))
	closeConn(conn)
}
