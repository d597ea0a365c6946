package workload

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// The row labels of the append limits: the measurements the service's appends are judged
// against.
const (
	AppendSimple   = "append (simple)"
	AppendPrepared = "append (prepared)"
)

// AppendLimit is PostgreSQL's durable limit for one single-row insert per transaction: each
// operation is one autocommit INSERT of a payment's event, with straight pgx. Each worker owns
// its streams (stream i of a cell belongs to worker i mod concurrency) and appends to them at
// increasing versions, so nothing conflicts and nothing is read. With simple, the statement
// goes in the simple query protocol, with the values in its text, as pgbench does by default;
// otherwise pgx prepares it once per connection and sends only the values. The pool has a
// connection per worker: the server, not the pool, sets the limit.
type AppendLimit struct {
	CellPool
	Streams int

	next []int // per worker: how many operations it has done in this cell
}

// Name implements Measurement: the rows' label.
func (a *AppendLimit) Name() string {
	if a.Simple {
		return AppendSimple
	}
	return AppendPrepared
}

// Setup implements Measurement.
func (a *AppendLimit) Setup(context.Context) error { return nil }

// Prepare implements Measurement.
func (a *AppendLimit) Prepare(ctx context.Context, concurrency int) (Operation, error) {
	if err := a.open(ctx, concurrency); err != nil {
		return nil, err
	}
	a.next = make([]int, concurrency)
	mode := "prepared"
	if a.Simple {
		mode = "simple"
	}
	return func(ctx context.Context, worker int) error {
		n := a.next[worker]
		a.next[worker]++
		// Round robin over the worker's own streams, one version further each time round.
		owned := (a.Streams - worker + concurrency - 1) / concurrency
		stream := fmt.Sprintf("append-%s-c%d-%d", mode, concurrency, worker+(n%owned)*concurrency)
		version := n/owned + 1
		key := fmt.Sprintf("append-%s-c%d-w%d-%d", mode, concurrency, worker, n)
		metadata := fmt.Sprintf(`{"commandId":%q,"command":"pay","fingerprint":"0123456789abcdef0123456789abcdef"}`, key)
		if _, err := a.pool.Exec(ctx, baselineAppend, stream, version, "PaymentReceived", `{"amount":1}`, metadata); err != nil {
			return fmt.Errorf("append: %w", err)
		}
		return nil
	}, nil
}

// CellPool is a database limit's own connections, one per worker, for one cell only: opened
// when the cell is prepared and closed as soon as it is measured, so that the server's
// max_connections need cover one cell's and the services', not every limit's at once.
type CellPool struct {
	DatabaseURL string
	// Simple: the simple query protocol, rather than pgx's cached prepared statements.
	Simple bool

	pool *pgxpool.Pool
}

// open connects conns connections before the cell, so that it does not time their
// connecting, and checks that the service has migrated the database.
func (p *CellPool) open(ctx context.Context, conns int) error {
	p.EndCell()
	cfg, err := pgxpool.ParseConfig(p.DatabaseURL)
	if err != nil {
		return fmt.Errorf("database URL: %w", err)
	}
	cfg.MaxConns = int32(conns)
	cfg.MinConns = int32(conns)
	if p.Simple {
		cfg.ConnConfig.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	if err := connectAll(ctx, pool, conns); err != nil {
		pool.Close()
		return err
	}
	p.pool = pool
	return nil
}

// connectAll holds conns connections of pool at once, so that each is connected, then returns
// them to it.
func connectAll(ctx context.Context, pool *pgxpool.Pool, conns int) error {
	held := make([]*pgxpool.Conn, 0, conns)
	// Before the caller closes the pool on an error: closing waits for every connection.
	defer func() {
		for _, c := range held {
			c.Release()
		}
	}()
	for range conns {
		c, err := pool.Acquire(ctx)
		if err != nil {
			return fmt.Errorf("connecting: %w", err)
		}
		held = append(held, c)
	}
	// The service has migrated the database by the time it is ready; check that it has.
	if _, err := held[0].Exec(ctx, "SELECT 1 FROM events LIMIT 1"); err != nil {
		return fmt.Errorf("the events table: %w", err)
	}
	return nil
}

// EndCell closes the cell's connections.
func (p *CellPool) EndCell() {
	if p.pool != nil {
		p.pool.Close()
		p.pool = nil
	}
}

// Close implements Measurement for the measurements that hold a CellPool.
func (p *CellPool) Close() { p.EndCell() }
