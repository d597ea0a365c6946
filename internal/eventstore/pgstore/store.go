package pgstore

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/errs"
	"library/internal/eventstore"
)

// Postgres is an eventstore.Store on PostgreSQL. Its schema is created by the migrations in
// /migrations.
type Postgres struct {
	pool   *pgxpool.Pool
	logger *slog.Logger

	subscribers   eventstore.Wakeups
	stopListening context.CancelFunc // guarded by the subscribers' lock
	listeners     sync.WaitGroup

	horizon   horizonWatch
	committer *committer

	appended      chan struct{} // holds one pending notification for other processes
	appendedMu    sync.Mutex
	appendedTypes []string // the types appended since the last notification was sent
	told          toldTypes
	stopNotifying context.CancelFunc
	notifierDone  chan struct{}
}

var (
	_ eventstore.Store      = (*Postgres)(nil)
	_ eventstore.DataReader = (*Postgres)(nil)
)

// New returns a store that works through pool. Close it before closing the pool, which stays
// the caller's.
func New(pool *pgxpool.Pool, logger *slog.Logger) *Postgres {
	ctx, cancel := context.WithCancel(context.Background())
	p := &Postgres{
		pool:          pool,
		logger:        logger,
		appended:      make(chan struct{}, 1),
		stopNotifying: cancel,
		notifierDone:  make(chan struct{}),
	}
	p.committer = newCommitter(pool, defaultBatches)
	p.subscribers.OnFirst = p.startListener
	p.subscribers.OnLast = p.stopListener
	go p.notify(ctx)
	return p
}

// querier is what appendEvents needs: a pool, or a transaction in tests that hold one open.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

// Append implements eventstore.Store.
func (p *Postgres) Append(ctx context.Context, streamID string, expectedVersion int64, events []eventstore.NewEvent) ([]eventstore.Event, error) {
	if err := eventstore.ValidateAppend(streamID, expectedVersion, events); err != nil {
		return nil, err
	}
	req := &appendRequest{streamID: streamID, expectedVersion: expectedVersion, events: events, told: &p.told}
	recorded, err := p.committer.append(ctx, req)
	if err != nil {
		return nil, err
	}
	if req.tell {
		p.subscribers.Wake(uniqueTypes(events)...) // others were told by the append itself
		return recorded, nil
	}
	p.appendedNow(events)
	return recorded, nil
}

// selectEvent reads the metadata's fields as text: PostgreSQL finds them in its binary jsonb
// for less than it costs to decode the JSON here, on every read of every reader. The data comes
// as text too, taken as it is: jsonb is valid JSON, and checking it again on every read of a
// stream costs more than the read.
const selectEvent = `SELECT ` + eventColumns + ` FROM events`

// eventColumns are the columns of an event that selectEvent reads, in the order of
// eventTargets.
const eventColumns = `stream_id, version, position, transaction_id, type, data::text,
	coalesce(metadata->>'commandId', ''), coalesce(metadata->>'command', ''),
	coalesce(metadata->>'fingerprint', ''), coalesce(metadata->>'correlationId', ''),
	coalesce(metadata->>'traceparent', ''), coalesce(metadata#>>'{actor,sub}', ''),
	coalesce(metadata#>>'{actor,role}', ''), coalesce(metadata#>>'{actor,iss}', ''),
	coalesce((metadata->>'schema')::int, 0), recorded_at`

// dataColumns are what a read of data (eventstore.DataReader) returns of an event, in the
// order of newDataScanner's targets: eventColumns without the command's metadata, whose extraction from
// the jsonb is a third of the cost of reading an event.
const dataColumns = `stream_id, version, position, transaction_id, type, data::text,
	coalesce((metadata->>'schema')::int, 0), recorded_at`

// ReadStream implements eventstore.Store.
func (p *Postgres) ReadStream(ctx context.Context, streamID string, afterVersion int64) ([]eventstore.Event, error) {
	rows, err := p.pool.Query(ctx, selectEvent+` WHERE stream_id = $1 AND version > $2 ORDER BY version`, streamID, afterVersion)
	if err != nil {
		return nil, translate(ctx, err)
	}
	return collectEvents(ctx, rows, 0)
}

// readAllSQL reads only below the horizon of the oldest running transaction, so that no event
// can later commit behind the checkpoint it returns (see the package comment).
const readAllSQL = selectEvent + `
WHERE transaction_id < pg_snapshot_xmin(pg_current_snapshot())
  AND (transaction_id, position) > ($1::xid8, $2)
ORDER BY transaction_id, position
LIMIT $3`

// ReadAll implements eventstore.Store.
func (p *Postgres) ReadAll(ctx context.Context, after eventstore.Checkpoint, limit int) ([]eventstore.Event, error) {
	var atMost *int // NULL: no limit
	if limit > 0 {
		atMost = &limit
	}
	rows, err := p.pool.Query(ctx, readAllSQL, after.TransactionID, after.Position, atMost)
	if err != nil {
		return nil, translate(ctx, err)
	}
	return collectEvents(ctx, rows, limit)
}

// collectEvents reads rows of eventColumns to their end. At the first row it makes room for
// room events (the query's limit; 0: none known), so that a read of a full batch grows its
// slice once, and a read of nothing allocates nothing.
func collectEvents(ctx context.Context, rows pgx.Rows, room int) ([]eventstore.Event, error) {
	return collect(ctx, rows, room, newEventScanner())
}

// collect is collectEvents with the scanner s.
func collect(ctx context.Context, rows pgx.Rows, room int, s *eventScanner) ([]eventstore.Event, error) {
	defer rows.Close()
	events := []eventstore.Event{}
	for rows.Next() {
		e, err := s.next(rows)
		if err != nil {
			return nil, translate(ctx, err)
		}
		if len(events) == 0 {
			events = make([]eventstore.Event, 0, max(min(room, maxRoom), 1))
		}
		events = append(events, e)
	}
	if err := rows.Err(); err != nil {
		return nil, translate(ctx, err)
	}
	return events, nil
}

// maxRoom is the most events a read makes room for before it has read them: a batch of a
// processor catching up (processor.Options.CatchUpBatchSize, 5,000 by default) and more.
const maxRoom = 8192

// eventScanner scans rows of lead columns and then eventColumns into one Event it reuses, so
// that a query makes its scan targets once, not once a row. Each event it returns holds
// strings and data of its own.
type eventScanner struct {
	e       eventstore.Event
	data    []byte
	targets []any
}

func newEventScanner(lead ...any) *eventScanner {
	s := &eventScanner{}
	s.targets = eventTargets(&s.e, &s.data, lead...)
	return s
}

// newDataScanner is newEventScanner for rows of dataColumns, when data is set.
func newDataScanner(data bool, lead ...any) *eventScanner {
	if !data {
		return newEventScanner(lead...)
	}
	s := &eventScanner{}
	e := &s.e
	s.targets = append(lead, &e.StreamID, &e.Version, &e.Position, &e.TransactionID, &e.Type, &s.data,
		&e.Metadata.Schema, &e.RecordedAt)
	return s
}

// next scans the current row.
func (s *eventScanner) next(rows pgx.Rows) (eventstore.Event, error) {
	s.e, s.data = eventstore.Event{}, nil
	if err := rows.Scan(s.targets...); err != nil {
		return eventstore.Event{}, err
	}
	s.e.Data, s.e.RecordedAt = s.data, s.e.RecordedAt.UTC()
	return s.e, nil
}

// eventTargets returns where a row's columns scan to: those of lead, then eventColumns into e,
// but for the data, which goes into data.
func eventTargets(e *eventstore.Event, data *[]byte, lead ...any) []any {
	m := &e.Metadata
	return append(lead, &e.StreamID, &e.Version, &e.Position, &e.TransactionID, &e.Type, data,
		&m.CommandID, &m.Command, &m.Fingerprint, &m.CorrelationID, &m.TraceParent,
		&m.Actor.Subject, &m.Actor.Role, &m.Actor.Issuer, &m.Schema, &e.RecordedAt)
}

// Ping implements eventstore.Store: the server answers and takes writes (it is not a standby
// or read-only).
func (p *Postgres) Ping(ctx context.Context) error {
	var writable bool
	err := p.pool.QueryRow(ctx, `SELECT NOT pg_is_in_recovery() AND current_setting('transaction_read_only') = 'off'`).Scan(&writable)
	if err != nil {
		return translate(ctx, err)
	}
	if !writable {
		return errs.E(errs.Unavailable, "the database is read-only")
	}
	return nil
}

// Head implements eventstore.Store.
func (p *Postgres) Head(ctx context.Context) (eventstore.Checkpoint, error) {
	var c eventstore.Checkpoint
	err := p.pool.QueryRow(ctx, `SELECT transaction_id, position FROM events ORDER BY transaction_id DESC, position DESC LIMIT 1`).
		Scan(&c.TransactionID, &c.Position)
	if errors.Is(err, pgx.ErrNoRows) {
		return eventstore.Checkpoint{}, nil
	}
	if err != nil {
		return eventstore.Checkpoint{}, translate(ctx, err)
	}
	return c, nil
}

// Locate implements eventstore.Store.
func (p *Postgres) Locate(ctx context.Context, position int64) (eventstore.Checkpoint, error) {
	c := eventstore.Checkpoint{Position: position}
	err := p.pool.QueryRow(ctx, `SELECT transaction_id FROM events WHERE position = $1`, position).Scan(&c.TransactionID)
	if errors.Is(err, pgx.ErrNoRows) {
		return eventstore.Checkpoint{}, errs.E(errs.NotFound, "there is no event at position %d", position)
	}
	if err != nil {
		return eventstore.Checkpoint{}, translate(ctx, err)
	}
	return c, nil
}

// LastPosition implements eventstore.Store: one look at the end of the primary key's index.
func (p *Postgres) LastPosition(ctx context.Context) (int64, error) {
	var last int64
	if err := p.pool.QueryRow(ctx, `SELECT coalesce(max(position), 0) FROM events`).Scan(&last); err != nil {
		return 0, translate(ctx, err)
	}
	return last, nil
}

// countAfterSQL counts the events after the checkpoint ($1, $2), in events_global_order, up
// to $3 of them (NULL: all). The ORDER BY is the index's: with a limit and no order, the
// planner may scan the table instead, filtering each row, which reads it whole when few events
// are left to count.
const countAfterSQL = `
SELECT count(*) FROM (SELECT FROM events WHERE (transaction_id, position) > ($1::xid8, $2)
	ORDER BY transaction_id, position LIMIT $3) AS e`

// countTypesAfterSQL counts the events of types $3 after the checkpoint ($1, $2), up to $4 of
// them (NULL: all): one range of events_type_order per type, as readTypesSQL reads it, counted
// from the index (where the visibility map allows) rather than by visiting every event after
// the checkpoint to look at its type. The ORDER BY is the index's, as in readTypesSQL: with a
// limit and no order, the planner prices a scan of the table filtered by type by the types'
// average share, and takes it; for a type with no event after the checkpoint (most of a view's
// types, after an import) that scan reads the whole log to count none, at every view's check
// whether it has caught up and at every /status.
const countTypesAfterSQL = `
SELECT count(*) FROM (
	SELECT FROM unnest($3::text[]) AS t(type)
	CROSS JOIN LATERAL (SELECT FROM events
		WHERE (type, transaction_id, position) > (t.type, $1::xid8, $2) AND type <= t.type
		ORDER BY type, transaction_id, position LIMIT $4) AS e
	LIMIT $4) AS c`

// CountAfter implements eventstore.Store.
func (p *Postgres) CountAfter(ctx context.Context, after eventstore.Checkpoint, types ...string) (int64, error) {
	return p.CountAfterUpTo(ctx, after, 0, types...)
}

// CountAfterUpTo implements eventstore.Store.
func (p *Postgres) CountAfterUpTo(ctx context.Context, after eventstore.Checkpoint, atMost int64, types ...string) (int64, error) {
	var limit *int64 // NULL: no limit
	if atMost > 0 {
		limit = &atMost
	}
	var n int64
	var err error
	if len(types) == 0 {
		err = p.pool.QueryRow(ctx, countAfterSQL, after.TransactionID, after.Position, limit).Scan(&n)
	} else {
		err = p.pool.QueryRow(ctx, countTypesAfterSQL, after.TransactionID, after.Position, types, limit).Scan(&n)
	}
	if err != nil {
		return 0, translate(ctx, err)
	}
	return n, nil
}

// installationSQL makes the installation's id if there is none yet, and returns it. When two
// replicas make it at once, one insert wins and the other finds nothing to return in its
// snapshot: it asks again.
const installationSQL = `
WITH made AS (INSERT INTO installation DEFAULT VALUES ON CONFLICT (one) DO NOTHING RETURNING id)
SELECT id::text FROM made UNION ALL SELECT id::text FROM installation LIMIT 1`

// Installation implements eventstore.Store: the id is made by the first call on a database,
// and kept in its installation table.
func (p *Postgres) Installation(ctx context.Context) (string, error) {
	for {
		var id string
		err := p.pool.QueryRow(ctx, installationSQL).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) && ctx.Err() == nil {
			continue // another replica made it meanwhile
		}
		if err != nil {
			return "", translate(ctx, err)
		}
		return id, nil
	}
}

// Close stops sending and receiving notifications and waits for both to finish. Subscribers
// get no more wake-ups. Close does not close the pool.
func (p *Postgres) Close() {
	p.stopNotifying()
	<-p.notifierDone
	p.subscribers.Locked(p.stopListener)
	p.listeners.Wait()
}
