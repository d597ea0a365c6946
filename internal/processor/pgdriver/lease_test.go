package pgdriver

import (
	"context"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"library/internal/processor"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// testTiming is short, so that takeovers happen in a fraction of a second. SessionTimeout is
// left to its default (5 s): only the partition test waits for it, and sets its own.
func testTiming() LeaseTiming {
	return LeaseTiming{RetryInterval: 50 * time.Millisecond, CheckInterval: 100 * time.Millisecond, CheckTimeout: 200 * time.Millisecond}
}

// replica is one replica's leases on the database behind cfg.
func replica(cfg *pgx.ConnConfig, timing LeaseTiming) *Leases {
	return NewLeases(cfg, timing, discardLogger())
}

// acquire takes a lease that must be free, released when the test ends.
func acquire(t *testing.T, leases processor.Leases, name string) processor.Lease {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	lease, err := leases.Acquire(ctx, name)
	require.NoError(t, err)
	t.Cleanup(lease.Release)
	return lease
}

// waiter is an Acquire running in the background: a standby.
type waiter struct {
	done  chan struct{} // closed when Acquire has returned
	lease processor.Lease
	err   error
	at    time.Time
	// holderLostFirst reports whether, when this waiter got the lease, the lease it waited on
	// had already been given up by its holder.
	holderLostFirst bool
}

// standby starts an Acquire in the background; holderLost, when set, is the Lost channel of
// the lease it waits for. The Acquire is cancelled and its lease released when the test ends.
func standby(t *testing.T, leases processor.Leases, name string, holderLost <-chan struct{}) *waiter {
	ctx, cancel := context.WithCancel(context.Background())
	w := &waiter{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.lease, w.err = leases.Acquire(ctx, name)
		w.at = time.Now()
		w.holderLostFirst = holderLost != nil && drivertest.IsClosed(holderLost)
	}()
	t.Cleanup(func() {
		cancel()
		<-w.done
		if w.lease != nil {
			w.lease.Release()
		}
	})
	return w
}

func (w *waiter) acquired() bool {
	select {
	case <-w.done:
		return w.err == nil
	default:
		return false
	}
}

// leaseBackends counts this database's lease sessions; with trying set, only those whose last
// statement was a try for the lock (standbys that are listening and waiting).
func leaseBackends(t *testing.T, pool *pgxpool.Pool, trying bool) int {
	t.Helper()
	var n int
	require.NoError(t, pool.QueryRow(context.Background(), `
SELECT count(*) FROM pg_stat_activity
WHERE application_name = 'library-lease' AND datname = current_database()
  AND (NOT $1 OR query LIKE '%pg_advisory_lock%')`, trying).Scan(&n))
	return n
}

// holderPID is the backend that holds the advisory lock of name. A bigint advisory key shows
// in pg_locks as classid (high 32 bits), objid (low 32 bits) and objsubid 1.
func holderPID(t *testing.T, pool *pgxpool.Pool, name string) int32 {
	t.Helper()
	key := uint64(LockKey(name))
	var pids []int32
	rows, err := pool.Query(context.Background(), `
SELECT l.pid FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
WHERE l.locktype = 'advisory' AND l.granted AND a.application_name = 'library-lease'
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid = $1 AND l.objid = $2 AND l.objsubid = 1`, uint32(key>>32), uint32(key))
	require.NoError(t, err)
	pids, err = pgx.CollectRows(rows, pgx.RowTo[int32])
	require.NoError(t, err)
	require.Len(t, pids, 1, "exactly one session holds the lock")
	return pids[0]
}

func TestLeaseTimingKeepsSessionTimeoutAboveChecks(t *testing.T) {
	t.Parallel()
	d := LeaseTiming{}.withDefaults()
	require.Equal(t, LeaseTiming{RetryInterval: DefaultLeaseRetryInterval, CheckInterval: DefaultLeaseCheckInterval,
		CheckTimeout: DefaultLeaseCheckTimeout, SessionTimeout: DefaultLeaseSessionTimeout}, d)
	// A session timeout that a holder between checks (or a standby between tries) could
	// outlast is raised: the server must never drop a live holder.
	for _, timing := range []LeaseTiming{
		{CheckInterval: 3 * time.Second, CheckTimeout: 3 * time.Second, SessionTimeout: 2 * time.Second},
		{RetryInterval: 9 * time.Second, SessionTimeout: 6 * time.Second},
	} {
		got := timing.withDefaults()
		require.Greater(t, got.SessionTimeout, got.CheckInterval+got.CheckTimeout, "%+v", timing)
		require.Greater(t, got.SessionTimeout, got.RetryInterval, "%+v", timing)
	}
	short := LeaseTiming{RetryInterval: 50 * time.Millisecond, CheckInterval: 200 * time.Millisecond, CheckTimeout: 200 * time.Millisecond, SessionTimeout: 1500 * time.Millisecond}
	require.Equal(t, short, short.withDefaults(), "a timing that is consistent is kept")
	require.NotEqual(t, LockKey("emails"), LockKey("catalog"))
}

// A lease session carries the settings that let the server end it on its own.
func TestPostgresLeaseSessionSettings(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	leases := replica(pool.Config().ConnConfig, LeaseTiming{RetryInterval: 50 * time.Millisecond,
		CheckInterval: 200 * time.Millisecond, CheckTimeout: 200 * time.Millisecond, SessionTimeout: 1500 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := leases.connect(ctx) // the connection Acquire would use
	require.NoError(t, err)
	defer closeConn(conn)
	rows, err := conn.Query(ctx, `SELECT name, setting FROM pg_settings WHERE name IN
  ('application_name', 'idle_session_timeout', 'tcp_user_timeout', 'tcp_keepalives_idle', 'tcp_keepalives_interval', 'tcp_keepalives_count',
   'lock_timeout')`)
	require.NoError(t, err)
	settings := map[string]string{}
	for rows.Next() {
		var name, setting string
		require.NoError(t, rows.Scan(&name, &setting))
		settings[name] = setting
	}
	require.NoError(t, rows.Err())
	require.Equal(t, map[string]string{
		"application_name":     "library-lease",
		"idle_session_timeout": "1500", // ms
		"tcp_user_timeout":     "1500", // ms
		// Keepalives only apply to TCP sessions; the test server is reached over TCP.
		"tcp_keepalives_idle": "1", "tcp_keepalives_interval": "1", "tcp_keepalives_count": "3",
		"lock_timeout": "50", // ms: how long a standby queues for the lock at a time
	}, settings)
}

// Two replicas: one holds a name at a time, whichever of its sessions asks; other names are
// free.
func TestPostgresLeasesOneHolderAtATime(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	a, b := replica(pool.Config().ConnConfig, testTiming()), replica(pool.Config().ConnConfig, testTiming())

	held := acquire(t, a, "emails")
	for _, leases := range []*Leases{b, a} { // a second Acquire in the holder's replica waits too
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		_, err := leases.Acquire(ctx, "emails")
		cancel()
		require.ErrorIs(t, err, context.DeadlineExceeded)
	}
	require.False(t, drivertest.IsClosed(held.Lost()), "the holder kept its lease throughout")
	acquire(t, b, "catalog") // another name is free
	drivertest.Eventually(t, 10*time.Second, func() bool { return leaseBackends(t, pool, false) == 2 },
		"the two holders' sessions are left; the waiters closed theirs")
}

// Replicas take and give back one lease many times: never are two holding it at once.
func TestPostgresLeasesContended(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	replicas := []*Leases{replica(pool.Config().ConnConfig, testTiming()), replica(pool.Config().ConnConfig, testTiming())}
	const perReplica, rounds = 3, 4
	var holders, most, total atomic.Int64
	var wg sync.WaitGroup
	for _, leases := range replicas {
		for range perReplica {
			wg.Go(func() {
				for range rounds {
					ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
					lease, err := leases.Acquire(ctx, "contended")
					cancel()
					if err != nil {
						t.Error(err)
						return
					}
					n := holders.Add(1)
					raiseTo(&most, n)
					time.Sleep(time.Millisecond) // hold it a moment, so that the others are waiting
					total.Add(1)
					holders.Add(-1)
					lease.Release()
				}
			})
		}
	}
	wg.Wait()
	require.Equal(t, int64(1), most.Load(), "two sessions held the lease at once")
	require.Equal(t, int64(len(replicas)*perReplica*rounds), total.Load())
}

// A release hands the lock to the standby queued for it at once. The standby here queues 2 s
// at a time; the test asserts the takeover and logs how long it took.
func TestPostgresLeaseReleaseWakesStandby(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	slow := LeaseTiming{RetryInterval: 2 * time.Second, CheckInterval: 100 * time.Millisecond, CheckTimeout: time.Second}
	holder := acquire(t, replica(pool.Config().ConnConfig, testTiming()), "emails")
	w := standby(t, replica(pool.Config().ConnConfig, slow), "emails", holder.Lost())
	// Wait until the standby is queued for the lock.
	drivertest.Eventually(t, 10*time.Second, func() bool { return leaseBackends(t, pool, true) == 1 }, "the standby queues for the lock")
	require.False(t, w.acquired())

	released := time.Now()
	holder.Release()
	drivertest.Eventually(t, 10*time.Second, w.acquired, "the standby takes the released lease")
	took := w.at.Sub(released)
	t.Logf("standby took over %v after the release (its retry interval is %v)", took, slow.RetryInterval)
	require.Less(t, took, slow.RetryInterval, "granted from the queue, not found free on a later try")
	require.False(t, drivertest.IsClosed(w.lease.Lost()))
}

// The holder's lock session is killed on the server: the holder finds out at its next check,
// and a standby takes the lock, which the server released with the session.
func TestPostgresLeaseLostWhenSessionTerminated(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	timing := testTiming()
	holder := acquire(t, replica(pool.Config().ConnConfig, timing), "emails")
	w := standby(t, replica(pool.Config().ConnConfig, timing), "emails", holder.Lost())
	// At least: on a loaded machine a standby's wait can run past its deadline, and the session
	// it closes may still show beside the one it opens.
	drivertest.Eventually(t, 30*time.Second, func() bool { return leaseBackends(t, pool, false) >= 2 }, "holder and standby sessions")

	pid := holderPID(t, pool, "emails")
	var terminated bool
	require.NoError(t, pool.QueryRow(context.Background(), `SELECT pg_terminate_backend($1)`, pid).Scan(&terminated))
	require.True(t, terminated)
	killed := time.Now()

	bound := timing.CheckInterval + timing.CheckTimeout + 2*time.Second // margin for a loaded machine
	drivertest.Eventually(t, bound, func() bool { return drivertest.IsClosed(holder.Lost()) }, "the holder notices its session is gone")
	lostAfter := time.Since(killed)
	drivertest.Eventually(t, 10*time.Second, w.acquired, "the standby takes the lock the server released")
	t.Logf("holder lost its lease %v after the kill; standby acquired %v after (holder gave up first: %v)",
		lostAfter, w.at.Sub(killed), w.holderLostFirst)
	require.NotEqual(t, pid, holderPID(t, pool, "emails"), "the standby's session holds it now")
}

// The database becomes unreachable for the holder through a proxy that closes its
// connections (pgtest.Proxy.Cut): the holder's next check fails. The server sees the close too
// and ends the session at once, so a standby may take the lock before the holder's next check:
// no order is asserted here (see TestPostgresLeasePartitionedHolderGivesUpFirst).
func TestPostgresLeaseLostWhenConnectionCut(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	timing := testTiming()
	proxy, proxied := pgtest.NewProxy(t, pool.Config().ConnConfig.ConnString())
	holderCfg, err := pgx.ParseConfig(proxied)
	require.NoError(t, err)
	holder := acquire(t, replica(holderCfg, timing), "emails")
	w := standby(t, replica(pool.Config().ConnConfig, timing), "emails", holder.Lost())
	drivertest.Eventually(t, 10*time.Second, func() bool { return leaseBackends(t, pool, true) == 1 }, "the standby tries the lock")

	proxy.Cut()
	cut := time.Now()
	bound := timing.CheckInterval + timing.CheckTimeout + 2*time.Second
	drivertest.Eventually(t, bound, func() bool { return drivertest.IsClosed(holder.Lost()) }, "the cut-off holder gives up")
	lostAfter := time.Since(cut)
	drivertest.Eventually(t, 10*time.Second, w.acquired, "the standby takes the lock")
	t.Logf("holder lost its lease %v after the cut; standby acquired %v after (holder gave up first: %v)",
		lostAfter, w.at.Sub(cut), w.holderLostFirst)
}

// Acquire keeps trying while the database can't be reached, and gets the lease once it can.
func TestPostgresLeaseAcquireWaitsOutAnOutage(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	proxy, proxied := pgtest.NewProxy(t, pool.Config().ConnConfig.ConnString())
	cfg, err := pgx.ParseConfig(proxied)
	require.NoError(t, err)
	var dials atomic.Int32
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials.Add(1)
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	proxy.Cut()
	w := standby(t, replica(cfg, testTiming()), "emails", nil)
	// It can't connect: the proxy turns everyone away. Let it fail a few tries.
	drivertest.Eventually(t, 10*time.Second, func() bool { return dials.Load() >= 3 }, "Acquire tries again and again")
	require.False(t, w.acquired())
	proxy.Restore()
	drivertest.Eventually(t, 10*time.Second, w.acquired, "Acquire gets the lease once the database is back")
}

// The holder is partitioned from the database: nothing it sends arrives, nothing is closed.
// It gives up within CheckInterval+CheckTimeout; the server, hearing nothing, ends the session
// after SessionTimeout and only then can a standby take the lock. So the holder has given up
// before anybody else holds the lease.
func TestPostgresLeasePartitionedHolderGivesUpFirst(t *testing.T) {
	t.Parallel()
	pool := pgtest.NewPool(t)
	timing := LeaseTiming{RetryInterval: 50 * time.Millisecond, CheckInterval: 200 * time.Millisecond,
		CheckTimeout: 200 * time.Millisecond, SessionTimeout: 1500 * time.Millisecond}
	hole, proxied := pgtest.NewBlackhole(t, pool.Config().ConnConfig.ConnString())
	holderCfg, err := pgx.ParseConfig(proxied)
	require.NoError(t, err)
	holder := acquire(t, replica(holderCfg, timing), "emails")
	w := standby(t, replica(pool.Config().ConnConfig, timing), "emails", holder.Lost())
	drivertest.Eventually(t, 10*time.Second, func() bool { return leaseBackends(t, pool, true) == 1 }, "the standby tries the lock")

	hole.Freeze()
	frozen := time.Now()
	drivertest.Eventually(t, timing.CheckInterval+timing.CheckTimeout+2*time.Second, func() bool { return drivertest.IsClosed(holder.Lost()) },
		"the partitioned holder gives up")
	lostAfter := time.Since(frozen)
	drivertest.Eventually(t, timing.SessionTimeout+5*time.Second, w.acquired, "the server ends the silent session and a standby takes the lock")
	acquiredAfter := w.at.Sub(frozen)
	t.Logf("holder lost its lease %v after the partition; standby acquired %v after", lostAfter, acquiredAfter)
	require.True(t, w.holderLostFirst, "the standby got the lock while the partitioned holder still trusted its lease")
	// The server heard from the holder about one CheckInterval before the partition at most (more
	// only if the holder's checks ran late), so it let the lock go about SessionTimeout later,
	// not at once as it would on a closed connection. Half is a bound a loaded machine keeps.
	require.Greater(t, acquiredAfter, timing.SessionTimeout/2, "the lock was released long before the session timeout: by what?")
}
