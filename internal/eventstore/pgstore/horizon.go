package pgstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"library/internal/eventstore"
)

// horizonSQL finds the oldest transaction still running in the cluster, whose id is the
// horizon, and the backend that runs it when this role may see it. A prepared transaction
// holds the horizon too, without a backend.
const horizonSQL = `
WITH horizon AS (
	SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin, pg_snapshot_xmax(pg_current_snapshot()) AS xmax
)
SELECT h.xmin::text, h.xmin < h.xmax, a.pid, coalesce(a.datname, ''), coalesce(a.application_name, ''), a.xact_start
FROM horizon h
LEFT JOIN pg_stat_activity a ON a.backend_xid = xid(h.xmin)
ORDER BY a.xact_start NULLS LAST
LIMIT 1`

// horizonWatch remembers when this process first saw the horizon at a transaction, for when
// PostgreSQL does not say when it began.
type horizonWatch struct {
	mu        sync.Mutex
	xmin      string
	firstSeen time.Time
}

func (w *horizonWatch) since(xmin string, now time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.xmin != xmin {
		w.xmin, w.firstSeen = xmin, now
	}
	return w.firstSeen
}

// Stalled reports whether the read horizon has been held back for eventstore.StallAfter or
// more, and by what.
func (p *Postgres) Stalled(ctx context.Context) (eventstore.Stall, bool, error) {
	var (
		xmin      string
		running   bool
		pid       *int32
		db, app   string
		xactStart *time.Time
	)
	err := p.pool.QueryRow(ctx, horizonSQL).Scan(&xmin, &running, &pid, &db, &app, &xactStart)
	if errors.Is(err, pgx.ErrNoRows) || (err == nil && !running) {
		return eventstore.Stall{}, false, nil
	}
	if err != nil {
		return eventstore.Stall{}, false, translate(ctx, err)
	}
	now := time.Now()
	s := eventstore.Stall{Since: p.horizon.since(xmin, now), Database: db, Application: app}
	if pid != nil {
		s.PID = int(*pid)
	}
	if xactStart != nil && xactStart.Before(s.Since) {
		s.Since = xactStart.UTC()
	}
	return s, now.Sub(s.Since) >= eventstore.StallAfter, nil
}
