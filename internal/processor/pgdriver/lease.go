package pgdriver

import (
	"context"
	"hash/fnv"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"library/internal/config"
	"library/internal/pgerr"
	"library/internal/processor"
)

// LeaseTiming sets how PostgreSQL leases are taken, checked and lost. See the package comment
// for how the numbers relate.
type LeaseTiming struct {
	// RetryInterval is how long a standby waits in the lock's queue before it asks again
	// (LEASE_RETRY_INTERVAL). The server grants a queued standby the lock as soon as it is
	// free, so this bounds how often a standby whose connection broke finds out.
	RetryInterval time.Duration
	// CheckInterval is how often the holder checks its lock connection.
	CheckInterval time.Duration
	// CheckTimeout bounds one check. A holder gives up at most CheckInterval+CheckTimeout
	// after its last good check.
	CheckTimeout time.Duration
	// SessionTimeout is how long the server keeps a silent lock session: its
	// idle_session_timeout and tcp_user_timeout. It is kept above CheckInterval+CheckTimeout so
	// that a cut-off holder always gives up before the server lets anyone else take the lock,
	// and above RetryInterval so that a waiting standby's session is never idle that long.
	SessionTimeout time.Duration
}

// Default lease timing.
const (
	DefaultLeaseRetryInterval  = config.DefaultLeaseRetryInterval
	DefaultLeaseCheckInterval  = time.Second
	DefaultLeaseCheckTimeout   = time.Second
	DefaultLeaseSessionTimeout = 5 * time.Second
)

func (t LeaseTiming) withDefaults() LeaseTiming {
	if t.RetryInterval <= 0 {
		t.RetryInterval = DefaultLeaseRetryInterval
	}
	if t.CheckInterval <= 0 {
		t.CheckInterval = DefaultLeaseCheckInterval
	}
	if t.CheckTimeout <= 0 {
		t.CheckTimeout = DefaultLeaseCheckTimeout
	}
	// Neither a holder between checks nor a standby between tries may look idle to the server.
	if least := max(t.CheckInterval+t.CheckTimeout, t.RetryInterval) + time.Second; t.SessionTimeout < least {
		t.SessionTimeout = max(least, DefaultLeaseSessionTimeout)
	}
	return t
}

// Leases are session advisory locks, one per processor name, each on a connection of
// its own that nothing else uses.
type Leases struct {
	connConfig *pgx.ConnConfig
	timing     LeaseTiming
	logger     *slog.Logger
}

var _ processor.Leases = (*Leases)(nil)

// NewLeases returns leases taken on connections made from connConfig (copied).
func NewLeases(connConfig *pgx.ConnConfig, timing LeaseTiming, logger *slog.Logger) *Leases {
	timing = timing.withDefaults()
	cfg := connConfig.Copy()
	ms := strconv.FormatInt(timing.SessionTimeout.Milliseconds(), 10)
	keepalive := strconv.FormatInt(max(1, int64(timing.SessionTimeout/time.Second)/4), 10)
	for param, value := range map[string]string{
		"application_name": "library-lease",
		// The server ends a lock session that has been silent this long, which releases its
		// locks even when the holder is cut off and can't say goodbye.
		"idle_session_timeout": ms,
		// And it drops the connection when what it sends goes unacknowledged this long, or
		// keepalive probes go unanswered (idle + 3 probes, an interval apart).
		"tcp_user_timeout":        ms,
		"tcp_keepalives_idle":     keepalive,
		"tcp_keepalives_interval": keepalive,
		"tcp_keepalives_count":    "3",
		// A standby queues for the lock this long at a time before it asks again.
		"lock_timeout": strconv.FormatInt(timing.RetryInterval.Milliseconds(), 10),
	} {
		cfg.RuntimeParams[param] = value
	}
	return &Leases{connConfig: cfg, timing: timing, logger: logger}
}

// LockKey is the advisory lock key of a processor's lease: a hash of its name, so that every
// replica computes the same key. In pg_locks it shows as classid (the high 32 bits) and objid
// (the low 32 bits) with objsubid 1.
func LockKey(name string) int64 {
	h := fnv.New64a()
	h.Write([]byte("library/processor/" + name))
	return int64(h.Sum64()) //nolint:gosec // a key, not a quantity: wrapping is fine
}

// Acquire implements processor.Leases. A standby waits for the lock in PostgreSQL's own lock
// queue, on a connection it keeps open, RetryInterval at a time (its lock_timeout): the server
// grants the lock the moment the holder unlocks or its session ends, whether it stopped or died.
func (l *Leases) Acquire(ctx context.Context, name string) (processor.Lease, error) {
	key := LockKey(name)
	var conn *pgx.Conn
	failures := 0
	for {
		if conn == nil {
			var err error
			if conn, err = l.connect(ctx); err != nil {
				conn = nil
				l.logFailure(ctx, name, "connect", err, &failures)
				if !sleep(ctx, l.timing.RetryInterval) {
					return nil, ctx.Err()
				}
				continue
			}
		}
		held, err := l.waitForLock(ctx, conn, key)
		switch {
		case held:
			return newPostgresLease(conn, name, key, l.timing, l.logger), nil
		case ctx.Err() != nil:
			closeConn(conn)
			return nil, ctx.Err()
		case err != nil:
			l.logFailure(ctx, name, "wait", err, &failures)
			closeConn(conn)
			conn = nil
			if !sleep(ctx, l.timing.RetryInterval) {
				return nil, ctx.Err()
			}
		default:
			failures = 0 // another replica holds it: queue again
		}
	}
}

func (l *Leases) connect(ctx context.Context) (*pgx.Conn, error) {
	connectCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return pgx.ConnectConfig(connectCtx, l.connConfig)
}

// lockNotAvailable is the SQLSTATE of a lock wait that ran out of lock_timeout.
const lockNotAvailable = "55P03"

// waitForLock queues for the lock for up to RetryInterval and reports whether it got it.
func (l *Leases) waitForLock(ctx context.Context, conn *pgx.Conn, key int64) (bool, error) {
	waitCtx, cancel := context.WithTimeout(ctx, l.timing.RetryInterval+l.timing.CheckTimeout)
	defer cancel()
	_, err := conn.Exec(waitCtx, `SELECT pg_advisory_lock($1)`, key)
	switch {
	case err == nil:
		return true, nil
	case pgerr.Code(err) == lockNotAvailable:
		return false, nil
	default:
		return false, err
	}
}

func (l *Leases) logFailure(ctx context.Context, name, step string, err error, failures *int) {
	if ctx.Err() != nil {
		return
	}
	*failures++
	level := slog.LevelDebug
	if *failures == 1 || *failures%20 == 0 { // once, then now and then: a standby retries often
		level = slog.LevelWarn
	}
	l.logger.Log(ctx, level, "lease: can't reach the database; retrying", "processor", name, "step", step,
		"error", translateLease(ctx, err), "failures", *failures)
}

func translateLease(ctx context.Context, err error) error {
	return pgerr.Translate(ctx, err, "the lease connection")
}

// sleep waits for d and reports true, or returns false as soon as ctx ends.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func closeConn(conn *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}

// postgresLease is a held advisory lock and the goroutine that checks its connection.
type postgresLease struct {
	conn   *pgx.Conn
	name   string
	key    int64
	timing LeaseTiming
	logger *slog.Logger

	lost     chan struct{}
	loseOnce sync.Once
	// lastGood is when the last check the server answered was sent (or the lock taken).
	lastGood atomic.Pointer[time.Time]
	stop     chan struct{}
	stopOnce sync.Once
	checked  chan struct{} // closed when the checker has stopped using conn
	// abandoned is set when Release gave up waiting for a check that did not end: the checker
	// then closes conn itself when that check returns.
	abandoned atomic.Bool
}

func newPostgresLease(conn *pgx.Conn, name string, key int64, timing LeaseTiming, logger *slog.Logger) *postgresLease {
	l := &postgresLease{
		conn: conn, name: name, key: key, timing: timing, logger: logger,
		lost: make(chan struct{}), stop: make(chan struct{}), checked: make(chan struct{}),
	}
	taken := time.Now()
	l.lastGood.Store(&taken)
	go l.check()
	return l
}

// Fresh implements processor.Lease. The server keeps the session, and so the lock, for at least
// SessionTimeout after the last check it answered; the lease is trusted for CheckTimeout less
// than that. While checks pass, that is never reached; it matters when the checker itself
// could not run (a paused process).
func (l *postgresLease) Fresh() bool {
	select {
	case <-l.lost:
		return false
	default:
	}
	return time.Since(*l.lastGood.Load()) < l.timing.SessionTimeout-l.timing.CheckTimeout
}

func (l *postgresLease) Lost() <-chan struct{} { return l.lost }

func (l *postgresLease) lose() { l.loseOnce.Do(func() { close(l.lost) }) }

// check runs a trivial query on the lock connection every CheckInterval. The session is alive
// exactly while the lock is held, so a failed or slow check means the lock may be gone or soon
// will be: the lease is lost at once.
func (l *postgresLease) check() {
	defer close(l.checked)
	defer func() {
		if l.abandoned.Load() {
			closeConn(l.conn)
		}
	}()
	ticker := time.NewTicker(l.timing.CheckInterval)
	defer ticker.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-ticker.C:
		}
		sent := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), l.timing.CheckTimeout)
		_, err := l.conn.Exec(ctx, "SELECT 1")
		cancel()
		if err == nil {
			l.lastGood.Store(&sent)
		} else {
			l.logger.Warn("lease lost: the lock connection failed its check", "processor", l.name,
				"error", translateLease(context.Background(), err))
			l.lose()
			closeConn(l.conn)
			return
		}
	}
}

// Release unlocks, which hands the lock to the first standby in the queue, then closes the
// connection. If the connection is gone, the server has released the lock already, or will
// when it notices. It waits for a check in progress for no longer than the check may take (and
// a second): a check that does not end is left to close the connection itself, and the server
// ends the silent session within SessionTimeout, so Release never blocks a shutdown.
func (l *postgresLease) Release() {
	l.stopOnce.Do(func() {
		close(l.stop)
		l.lose()
		select {
		case <-l.checked:
		case <-time.After(l.timing.CheckTimeout + time.Second):
			l.abandoned.Store(true)
			l.logger.Warn("lease: a check of the lock connection did not end; leaving the connection to close",
				"processor", l.name)
			return
		}
		if l.conn.IsClosed() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), l.timing.CheckTimeout)
		defer cancel()
		if _, err := l.conn.Exec(ctx, `SELECT pg_advisory_unlock($1)`, l.key); err != nil {
			l.logger.Debug("lease: unlock failed; closing the session releases the lock", "processor", l.name,
				"error", translateLease(ctx, err))
		}
		closeConn(l.conn)
	})
}
