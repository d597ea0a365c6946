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
	// finishTimerSQL forgets a fired timer, unless it was scheduled again meanwhile.
	finishTimerSQL = `DELETE FROM processor_timers WHERE processor = $1 AND key = $2 AND version = $3`
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
	return tx.SendBatch(ctx, batch).Close()
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

// FinishTimer implements processor.Timers.
func (c *Checkpoints) FinishTimer(ctx context.Context, name string, fired processor.DueTimer, changes ...processor.TimerChange) error {
	if len(changes) == 0 {
		_, err := c.pool.Exec(ctx, finishTimerSQL, name, fired.Key, fired.Version)
		return translate(ctx, err)
	}
	return c.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, finishTimerSQL, name, fired.Key, fired.Version); err != nil {
			return err
		}
		return applyTimers(ctx, tx, name, changes)
	})
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
