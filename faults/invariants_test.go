//go:build faults

package faults

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/notifications"
	"library/internal/testkit/smtptest"
)

// checkpoint is a processor's checkpoint row.
type checkpoint struct {
	generation, transaction uint64
	position                int64
}

func (c checkpoint) before(o checkpoint) bool {
	if c.generation != o.generation {
		return c.generation < o.generation
	}
	if c.transaction != o.transaction {
		return c.transaction < o.transaction
	}
	return c.position < o.position
}

// checkpointWatch reads every processor's checkpoint every few milliseconds while a test runs
// and remembers any that moved back. Reads that fail (the database is down) are skipped.
type checkpointWatch struct {
	stop context.CancelFunc
	done chan struct{}

	mu    sync.Mutex
	last  map[string]checkpoint
	back  []string
	reads int
}

func watchCheckpoints(pool *pgxpool.Pool) *checkpointWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &checkpointWatch{stop: cancel, done: make(chan struct{}), last: map[string]checkpoint{}}
	go func() {
		defer close(w.done)
		ticker := time.NewTicker(5 * time.Millisecond)
		defer ticker.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-ticker.C:
				w.read(ctx, pool)
			}
		}
	}()
	return w
}

func (w *checkpointWatch) read(ctx context.Context, pool *pgxpool.Pool) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	rows, err := pool.Query(ctx, `SELECT name, generation, transaction_id::text, position FROM processor_checkpoints`)
	if err != nil {
		return
	}
	defer rows.Close()
	for rows.Next() {
		var name, xid string
		var c checkpoint
		if rows.Scan(&name, &c.generation, &xid, &c.position) != nil {
			return
		}
		if c.transaction, err = strconv.ParseUint(xid, 10, 64); err != nil {
			return
		}
		w.mu.Lock()
		if last, ok := w.last[name]; ok && c.before(last) {
			w.back = append(w.back, fmt.Sprintf("%s from %+v to %+v", name, last, c))
		}
		w.last[name] = c
		w.reads++
		w.mu.Unlock()
	}
}

// check stops the watch and fails the test if a checkpoint moved back.
func (w *checkpointWatch) check(t *testing.T) {
	t.Helper()
	w.stop()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.back) > 0 {
		t.Errorf("checkpoints moved back: %v", w.back)
	}
	if w.reads == 0 {
		t.Errorf("the checkpoint watch read nothing")
	}
}

// paymentsRecordedOnce checks that each key has exactly one PaymentReceived event, and that
// the log holds no payment under any other key; it returns how many there are.
func paymentsRecordedOnce(t *testing.T, pool *pgxpool.Pool, keys []string) int {
	t.Helper()
	rows, err := pool.Query(context.Background(),
		`SELECT metadata->>'commandId', count(*) FROM events WHERE type = 'PaymentReceived' GROUP BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			t.Fatal(err)
		}
		counts[key] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	lost, twice := 0, 0
	for _, k := range keys {
		switch counts[k] {
		case 0:
			lost++
		case 1:
		default:
			twice++
		}
		delete(counts, k)
	}
	if lost > 0 || twice > 0 || len(counts) > 0 {
		t.Errorf("payments: %d keys lost, %d recorded more than once, %d unknown keys", lost, twice, len(counts))
	}
	return len(keys) - lost
}

// loanEmails waits until every loan in the log has had its email, and returns how many loans
// there are, how many messages the SMTP server accepted for them, and how many of those were
// sent more than once.
func loanEmails(t *testing.T, pool *pgxpool.Pool, smtp *smtptest.Server, within time.Duration) (loans, emails, duplicates int) {
	t.Helper()
	var positions []int64
	rows, err := pool.Query(context.Background(), `SELECT position FROM events WHERE type = 'BookLent' ORDER BY position`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		positions = append(positions, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	var missing []int64
	deadline := time.Now().Add(within)
	for {
		seen := map[int64]int{}
		for _, m := range smtp.Messages() {
			if p, ok := notifications.PositionOf(m.MessageID); ok {
				seen[p]++
			}
		}
		missing, emails, duplicates = missing[:0], 0, 0
		for _, p := range positions {
			n := seen[p]
			if n == 0 {
				missing = append(missing, p)
			}
			emails += n
			duplicates += max(0, n-1)
		}
		if len(missing) == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling for the last emails
	}
	if len(missing) > 0 {
		t.Errorf("%d of %d loans got no email after %s, the first at positions %v", len(missing), len(positions), within, missing[:min(10, len(missing))])
	}
	return len(positions), emails, duplicates
}

// nothingParked checks that no processor has parked an event.
func nothingParked(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), `SELECT count(*) FROM processor_parked`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%d events parked", n)
	}
}

// catalogCaughtUp waits until the catalog lists as lent every book that the log says is lent,
// so that the view model skipped no event. It reads the build of the catalog that answers
// (on a fresh database, catalog@2, whose tables are in a schema of their own).
func catalogCaughtUp(t *testing.T, pool *pgxpool.Pool, within time.Duration) {
	t.Helper()
	const answering = `
SELECT set_config('search_path', coalesce((SELECT schema_name || ', ' FROM view_builds WHERE view = 'catalog' AND state = 'answering'), '')
  || current_setting('search_path'), true)`
	const query = `
SELECT
  (SELECT count(*) FROM catalog_books WHERE loan_id IS NOT NULL),
  (SELECT count(DISTINCT stream_id) FROM events WHERE type = 'BookLent'),
  (SELECT count(*) FROM catalog_books),
  (SELECT count(*) FROM events WHERE type = 'BookAdded')`
	var lent, wantLent, books, wantBooks int
	deadline := time.Now().Add(within)
	for {
		err := pgx.BeginFunc(context.Background(), pool, func(tx pgx.Tx) error {
			if _, err := tx.Exec(context.Background(), answering); err != nil {
				return err
			}
			return tx.QueryRow(context.Background(), query).Scan(&lent, &wantLent, &books, &wantBooks)
		})
		if err != nil {
			t.Fatal(err)
		}
		if lent == wantLent && books == wantBooks {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("catalog: %d books, %d lent; the log has %d books, %d lent", books, lent, wantBooks, wantLent)
			return
		}
		time.Sleep(50 * time.Millisecond) // polling for the view model
	}
}
