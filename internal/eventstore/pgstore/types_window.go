package pgstore

import (
	"context"
	"slices"

	"github.com/jackc/pgx/v5"

	"library/internal/eventstore"
)

// A read of some types (ReadTypes) looks first at the next events of the log, of any type, in
// one scan of events_global_order: windowScale times as many as it may return, fewer when the
// read horizon comes first. Where the types asked for are most of the log (a view catching up
// with an import reads titles, copies and books), that finds them at a third of the cost of
// the scans by type, which merge keys and then read each event by its position. Where they are
// few, it finds fewer than asked for before the window ends, and the scans by type go on from
// there (readTypesSQL): the window's cost is then spent for little, once a read.

// windowScale is how many events of any type a read looks at, for each it may return.
const windowScale = 3

// windowSQL returns the events of types $3 among the first $5 events of any type after the
// checkpoint ($1, $2), below the read horizon, in the log's global order, stopping once it has
// $4 of them and one more row: each with its number in the window, n. The $5-th event comes
// whatever its type, so that the caller knows the window ended there rather than at the
// horizon.
const windowSQL = `
SELECT w.n, ` + eventColumns + windowFrom

// windowDataSQL is windowSQL for a read of data (dataColumns).
const windowDataSQL = `
SELECT w.n, ` + dataColumns + windowFrom

const windowFrom = ` FROM (
	SELECT *, row_number() OVER (ORDER BY transaction_id, position) AS n FROM events
	WHERE (transaction_id, position) > ($1::xid8, $2) AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())
	ORDER BY transaction_id, position
	LIMIT $5) AS w
WHERE w.type = ANY($3) OR w.n = $5
LIMIT $4 + 1`

// window is what a read of the window found.
type window struct {
	events []eventstore.Event // at most the limit, of the types asked for
	// end is the window's last event, when the window ended before the read horizon and
	// before the limit was reached: the read goes on after it.
	end *eventstore.Checkpoint
}

// queueWindow adds the read of the window after after to batch: of data alone, when data is
// set.
func queueWindow(ctx context.Context, batch *pgx.Batch, after eventstore.Checkpoint, limit int, types []string, data bool, w *window) {
	size := int64(windowScale) * int64(limit)
	args := []any{after.TransactionID, after.Position, types, limit, size}
	var read *pgx.QueuedQuery
	if data {
		read = batch.Queue(windowDataSQL, args...)
	} else {
		read = batch.Queue(windowSQL, args...)
	}
	read.Query(func(rows pgx.Rows) error {
		defer rows.Close()
		var last eventstore.Checkpoint
		var n int64
		s := newDataScanner(data, &n)
		for rows.Next() && len(w.events) < limit {
			e, err := s.next(rows)
			if err != nil {
				return translate(ctx, err)
			}
			last = e.Checkpoint()
			if !slices.Contains(types, e.Type) {
				continue // the window's end, of another type
			}
			if cap(w.events) == 0 { // room for the events, made at the first
				w.events = make([]eventstore.Event, 0, min(limit, maxRoom))
			}
			w.events = append(w.events, e)
		}
		if err := rows.Err(); err != nil {
			return translate(ctx, err)
		}
		if n == size && len(w.events) < limit {
			w.end = &last
		}
		return nil
	})
}
