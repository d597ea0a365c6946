package pgdriver

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"library/internal/errs"
	"library/internal/processor"
)

// The statements of the timers, in processor_timers (migrations/00011_timers.sql). Every "now"
// is the database's, and durations travel as microseconds.
const (
	// scheduleTimerSQL puts a timer under its key, with a version never used before, and its
	// attempts at none.
	scheduleTimerSQL = `
INSERT INTO processor_timers AS t (processor, key, due_at, fire_at, data, version)
VALUES ($1, $2, $3, $3, $4, nextval('processor_timer_versions'))
ON CONFLICT (processor, key) DO UPDATE
SET due_at = excluded.due_at, fire_at = excluded.fire_at, data = excluded.data,
    attempts = 0, last_error = '', version = excluded.version`
	cancelTimerSQL = `DELETE FROM processor_timers WHERE processor = $1 AND key = $2`
	// finishTimersSQL forgets fired timers, keys $2 at versions $3, each unless it was
	// scheduled again meanwhile.
	finishTimersSQL = `
DELETE FROM processor_timers
WHERE processor = $1 AND (key, version) IN (SELECT * FROM unnest($2::text[], $3::bigint[]))`
	// finishAsyncSQL lets the transaction that forgets fired timers commit without waiting for
	// its WAL to reach the disk: a forgetting lost in a crash of the server fires those timers
	// again, and their work is recognised by its ids (see processor.Timers). Their fires' own
	// changes go with it, all or nothing, as the transaction does.
	finishAsyncSQL = `SET LOCAL synchronous_commit = off`
	retryTimerSQL  = `
UPDATE processor_timers
SET attempts = attempts + 1, last_error = $4, fire_at = now() + $5 * interval '1 microsecond'
WHERE processor = $1 AND key = $2 AND version = $3`
	dueTimersSQL = `
SELECT key, due_at, data, attempts, last_error, version,
       (extract(epoch FROM now() - due_at) * 1000000)::bigint
FROM processor_timers WHERE processor = $1 AND fire_at <= now()
ORDER BY fire_at, due_at, key COLLATE "C" LIMIT $2`
	timerStatsSQL = `
SELECT count(*), count(*) FILTER (WHERE attempts > 0), min(fire_at),
       (extract(epoch FROM min(fire_at) - now()) * 1000000)::bigint,
       (extract(epoch FROM greatest(now() - min(due_at), interval '0')) * 1000000)::bigint
FROM processor_timers WHERE processor = $1`
)

// applyTimers writes timer changes in order, in one round trip, inside tx.
func applyTimers(ctx context.Context, tx pgx.Tx, name string, changes []processor.TimerChange) error {
	batch := &pgx.Batch{}
	queueTimerChanges(batch, name, changes)
	return tx.SendBatch(ctx, batch).Close()
}

// queueTimerChanges queues the statements that write changes, in order.
func queueTimerChanges(batch *pgx.Batch, name string, changes []processor.TimerChange) {
	for _, c := range changes {
		if c.Cancel {
			batch.Queue(cancelTimerSQL, name, c.Key)
			continue
		}
		data := string(c.Data)
		if data == "" {
			data = "null"
		}
		batch.Queue(scheduleTimerSQL, name, c.Key, c.At, data)
	}
}

// inTx runs fn in a transaction, rolled back when fn fails. fn's errors are the driver's, but
// for ErrFenced and the service's own, which it passes through.
func (c *Checkpoints) inTx(ctx context.Context, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginFunc(ctx, c.pool, fn)
	var own *errs.Error
	if errors.Is(err, processor.ErrFenced) || errors.As(err, &own) {
		return err
	}
	return translate(ctx, err)
}

// DueTimers implements processor.Timers.
func (c *Checkpoints) DueTimers(ctx context.Context, name string, limit int) ([]processor.DueTimer, error) {
	rows, err := c.pool.Query(ctx, dueTimersSQL, name, limitOrAll(limit))
	if err != nil {
		return nil, translate(ctx, err)
	}
	due, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (processor.DueTimer, error) {
		var t processor.DueTimer
		var late int64
		err := row.Scan(&t.Key, &t.At, &t.Data, &t.Attempts, &t.LastError, &t.Version, &late)
		t.At, t.Late = t.At.UTC(), time.Duration(late)*time.Microsecond
		return t, err
	})
	return due, translate(ctx, err)
}

// UntilNextTimer implements processor.Timers.
func (c *Checkpoints) UntilNextTimer(ctx context.Context, name string) (time.Duration, bool, error) {
	stats, err := c.TimerStats(ctx, name)
	return stats.UntilNext, stats.Waiting > 0, err
}

// FinishTimers implements processor.Timers: in one transaction, committed without waiting for
// the disk, that forgets each run of fired timers without changes in one statement, and writes
// each fire's changes after it.
func (c *Checkpoints) FinishTimers(ctx context.Context, name string, fired ...processor.FiredTimer) error {
	if len(fired) == 0 {
		return nil
	}
	batch := &pgx.Batch{}
	batch.Queue(finishAsyncSQL)
	var keys []string
	var versions []int64
	for _, f := range fired {
		keys, versions = append(keys, f.Key), append(versions, f.Version)
		if len(f.Changes) > 0 {
			batch.Queue(finishTimersSQL, name, keys, versions)
			keys, versions = nil, nil
			queueTimerChanges(batch, name, f.Changes)
		}
	}
	if len(keys) > 0 {
		batch.Queue(finishTimersSQL, name, keys, versions)
	}
	return c.inTx(ctx, func(tx pgx.Tx) error { return tx.SendBatch(ctx, batch).Close() })
}

// RetryTimer implements processor.Timers.
func (c *Checkpoints) RetryTimer(ctx context.Context, name string, fired processor.DueTimer, reason string, after time.Duration) error {
	_, err := c.pool.Exec(ctx, retryTimerSQL, name, fired.Key, fired.Version, processor.TruncateReason(reason), after.Microseconds())
	return translate(ctx, err)
}

// TimerStats implements processor.Timers.
func (c *Checkpoints) TimerStats(ctx context.Context, name string) (processor.TimerStats, error) {
	var s processor.TimerStats
	var next *time.Time
	var until, overdue *int64
	err := c.pool.QueryRow(ctx, timerStatsSQL, name).Scan(&s.Waiting, &s.Failing, &next, &until, &overdue)
	if err != nil {
		return processor.TimerStats{}, translate(ctx, err)
	}
	if next != nil {
		s.NextDue = next.UTC()
	}
	s.UntilNext, s.OldestOverdue = micros(until), micros(overdue)
	return s, nil
}

// micros is a duration the database gave in microseconds; 0 for NULL.
func micros(n *int64) time.Duration {
	if n == nil {
		return 0
	}
	return time.Duration(*n) * time.Microsecond
}
