package pgstore

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"library/internal/eventstore"
)

// throughSQL is how far a read may look: the last event below the read horizon. It runs before
// the read, in the same round trip but its own snapshot, whose horizon is at most the read's.
// Every event below it is therefore below the read's horizon too, and one the read would have
// returned, were it of a type asked for: moving to it after a read that returned fewer events
// than it could skips none.
const throughSQL = `
SELECT transaction_id, position FROM events
WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
ORDER BY transaction_id DESC, position DESC LIMIT 1`

// readTypesSQL reads the events of types $3 after the checkpoint ($1, $2), below the read
// horizon, in the log's global order: one scan of events_type_order per type, each stopping at
// $4 events, merged; then the rows of the first $4 of them, by position.
//
// Each type's scan names its range in the index's own terms, from (type, checkpoint) to the
// type's last entry: the row comparison and type <= t.type together are type = t.type and
// (transaction_id, position) > ($1, $2). Written as that, the planner may take
// events_global_order instead and filter by type, which it prices by the types' average share:
// a scan for a type with few events after the checkpoint, or none, then reads every event
// after it (on a rebuild, the whole log, once for each such type, for every batch).
//
// The scans read keys only (an index-only scan, where the visibility map allows), and only the
// $4 events merged are read whole, each by its position: when several types are dense (a
// catalogue import's books, titles and copies), each scan finds $4 events, and reading them
// all whole, their metadata taken apart, to keep a third of them, cost a view catching up three
// times the read. Each is read in a LATERAL subquery with a LIMIT, which the planner can't
// flatten into a join: a join it may plan as a hash join over the whole log, once its estimate
// of the keys (a tenth of a type's events, in a generic plan) is large enough.
const readTypesSQL = readKeys + `
CROSS JOIN LATERAL (` + selectEvent + ` WHERE events.position = keys.position LIMIT 1) AS e
ORDER BY keys.transaction_id, keys.position`

// readTypesDataSQL is readTypesSQL for a read of data (dataColumns).
const readTypesDataSQL = readKeys + `
CROSS JOIN LATERAL (SELECT ` + dataColumns + ` FROM events WHERE events.position = keys.position LIMIT 1) AS e
ORDER BY keys.transaction_id, keys.position`

// readKeys are the keys of readTypesSQL's events: the merge of the scans by type.
const readKeys = readKeysHead + readKeysTail

const (
	readKeysHead = `
SELECT e.* FROM (
	SELECT k.transaction_id, k.position FROM unnest($3::text[]) AS t(type)
	CROSS JOIN LATERAL (SELECT transaction_id, position FROM events
		WHERE (type, transaction_id, position) > (t.type, $1::xid8, $2) AND type <= t.type
		  AND transaction_id < pg_snapshot_xmin(pg_current_snapshot())`
	readKeysTail = `
		ORDER BY type, transaction_id, position
		LIMIT $4) AS k
	ORDER BY k.transaction_id, k.position
	LIMIT $4) AS keys`
)

// readOlderSQL is readTypesSQL of the events written at a schema version below $5 alone: each
// type's scan looks at every event's metadata, in the table (no index-only scan), and passes
// over the newer there, so that none is read whole, nor sent.
const readOlderSQL = readKeysHead + `
		  AND coalesce((metadata->>'schema')::int, 1) < $5` + readKeysTail + `
CROSS JOIN LATERAL (` + selectEvent + ` WHERE events.position = keys.position LIMIT 1) AS e
ORDER BY keys.transaction_id, keys.position`

// ReadTypes implements eventstore.Store: a read with a limit looks at a window of the log
// first (types_window.go), and reads on by type after it when the window ended too soon.
func (p *Postgres) ReadTypes(ctx context.Context, after eventstore.Checkpoint, limit int, types []string) (eventstore.Page, error) {
	return p.readTypes(ctx, after, limit, types, false)
}

// ReadOlder implements eventstore.OlderReader: the scans by type of ReadTypes, with no window
// first (whose rows would be read whole), each passing over the events of schema version below
// or above.
func (p *Postgres) ReadOlder(ctx context.Context, after eventstore.Checkpoint, limit int, types []string, below int) (eventstore.Page, error) {
	if len(types) == 0 {
		return eventstore.Page{}, eventstore.ErrNoTypes
	}
	var atMost *int
	if limit > 0 {
		atMost = &limit
	}
	return p.readTypesOnce(ctx, after, atMost, types, readOf{below: below}, nil)
}

// ReadData implements eventstore.DataReader: ReadTypes, reading each event's data and schema
// version alone (dataColumns).
func (p *Postgres) ReadData(ctx context.Context, after eventstore.Checkpoint, limit int, types []string) (eventstore.Page, error) {
	return p.readTypes(ctx, after, limit, types, true)
}

// readTypes is ReadTypes, or ReadData when data is set.
func (p *Postgres) readTypes(ctx context.Context, after eventstore.Checkpoint, limit int, types []string, data bool) (eventstore.Page, error) {
	if len(types) == 0 {
		events, err := p.ReadAll(ctx, after, limit)
		if data {
			for i, e := range events {
				events[i] = eventstore.DataOnly(e)
			}
		}
		page := eventstore.Page{Events: events, Through: after}
		if len(events) > 0 {
			page.Through = events[len(events)-1].Checkpoint()
		}
		return page, err
	}
	if limit <= 0 {
		return p.readTypesOnce(ctx, after, nil, types, readOf{data: data}, nil)
	}
	w := &window{events: []eventstore.Event{}}
	page, err := p.readTypesOnce(ctx, after, &limit, types, readOf{data: data}, w)
	if err != nil || w.end == nil {
		return page, err
	}
	rest := limit - len(page.Events)
	more, err := p.readTypesOnce(ctx, *w.end, &rest, types, readOf{data: data}, nil)
	if err != nil {
		return eventstore.Page{}, err
	}
	more.Events = append(page.Events, more.Events...)
	return more, nil
}

// readOf is what a read of types reads of the events it returns: their data alone (data), or
// those below a schema version alone (below, above 0; never with data).
type readOf struct {
	data  bool
	below int
}

// readTypesOnce reads, in one round trip, how far the log may be read (throughSQL), then at
// most atMost (nil: all) events of types after after, as of says: those of the window w, when
// given (windowSQL), or else through the scans by type (readTypesSQL).
func (p *Postgres) readTypesOnce(ctx context.Context, after eventstore.Checkpoint, atMost *int, types []string, of readOf, w *window) (eventstore.Page, error) {
	batch := &pgx.Batch{}
	var through eventstore.Checkpoint
	var found bool
	batch.Queue(throughSQL).QueryRow(func(row pgx.Row) error {
		err := row.Scan(&through.TransactionID, &through.Position)
		found = err == nil
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		return err
	})
	var events []eventstore.Event
	if w != nil {
		queueWindow(ctx, batch, after, *atMost, types, of.data, w)
	} else {
		args := []any{after.TransactionID, after.Position, types, atMost}
		var read *pgx.QueuedQuery
		switch {
		case of.below > 0:
			read = batch.Queue(readOlderSQL, append(args, of.below)...)
		case of.data:
			read = batch.Queue(readTypesDataSQL, args...)
		default:
			read = batch.Queue(readTypesSQL, args...)
		}
		read.Query(func(rows pgx.Rows) error {
			var err error
			events, err = collect(ctx, rows, room(atMost), newDataScanner(of.data))
			return err
		})
	}
	if err := p.pool.SendBatch(ctx, batch).Close(); err != nil {
		return eventstore.Page{}, translate(ctx, err)
	}
	if w != nil {
		events = w.events
	}
	page := eventstore.Page{Events: events, Through: after}
	if n := len(events); n > 0 {
		page.Through = events[n-1].Checkpoint()
	}
	ended := w != nil && w.end != nil // the read goes on after the window: no further here
	if found && !ended && (atMost == nil || len(events) < *atMost) && page.Through.Before(through) {
		page.Through = through
	}
	return page, nil
}

// GrewAt is when the log last grew as far as this process has heard: its own appends, and
// the notifications of others' (zero: not yet).
func (p *Postgres) GrewAt() time.Time { return p.subscribers.GrewAt() }

// room is how many events a read of at most atMost (nil: all) makes room for.
func room(atMost *int) int {
	if atMost == nil {
		return 0
	}
	return *atMost
}
