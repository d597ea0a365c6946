package apart

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/workload"
)

// The cold-load measurement: an account's first read, and its first payment, by a service
// process that keeps nothing in memory, on streams of BENCH_COLD_EVENTS events (2, 1,000,
// 20,000 and 100,000 by default), on a database of their own. The streams are written straight
// into the events table, as the service writes a fine charged without an Idempotency-Key; a
// service process then reads each account once, which writes the long streams' snapshots as
// the service would, and each round restarts the process, times the first GET of every
// account, restarts it again and times the first payment into every account.
//
// The sizes and labels of the measurement:
const (
	coldFine       = 1000 // cents per fine
	coldReason     = "benchmark cold load"
	coldWarmMember = "bench-cold-warm" // read and paid into after each start, untimed, before the timed requests
	ColdWarmEvents = 2
	coldCatchUp    = 3 * time.Minute // the most to wait for the processors to read the streams
)

// coldInsert writes versions 1 to n of one account stream in one statement: FineCharged events
// with a keyless chargeFine's metadata (no command id; its name, payload fingerprint, request id
// and actor, with AUTH=off).
const coldInsert = `INSERT INTO events (stream_id, version, type, data, metadata)
SELECT $1, v, 'FineCharged',
	jsonb_build_object('amount', $3::bigint, 'reason', $4::text),
	jsonb_build_object('command', 'chargeFine', 'fingerprint', $5::text,
		'correlationId', $1::text || '-' || v, 'actor', jsonb_build_object('role', 'open'))
FROM generate_series(1, $2::bigint) AS v`

// fineFingerprint is the service's fingerprint of a chargeFine payload: the first 16 bytes of
// the SHA-256 of its JSON.
func fineFingerprint(amount int, reason string) string {
	sum := sha256.Sum256(fmt.Appendf(nil, `{"amount":%d,"reason":%q}`, amount, reason))
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// ColdPoint is one stream length's result.
type ColdPoint struct {
	Events    int
	FirstRead time.Duration // the read before the timed ones, which wrote the snapshot
	Snapshot  int64         // the version of the stream's snapshot after that read; 0: none
	GET, Pay  []time.Duration
	// Medians over the rounds, and their ratios over the shortest stream's.
	GETMedian, PayMedian time.Duration
	GETRatio, PayRatio   float64
}

// ColdResult is what the cold-load measurement found.
type ColdResult struct {
	Rounds int
	Seed   time.Duration // writing the streams
	Points []ColdPoint
}

func coldMember(events int) string { return fmt.Sprintf("bench-cold-%d", events) }

// Cold writes the streams on the empty database at databaseURL, has a service process
// read each once, then times `rounds` cold reads and cold payments of each.
func Cold(ctx context.Context, bin, databaseURL string, lengths []int, rounds int) (ColdResult, error) {
	res := ColdResult{Rounds: rounds}
	for _, n := range lengths {
		res.Points = append(res.Points, ColdPoint{Events: n})
	}
	c := &coldService{bin: bin, databaseURL: databaseURL}
	defer c.Stop(ctx)
	if err := c.start(ctx); err != nil { // it migrates the database
		return res, err
	}
	if err := seedCold(ctx, databaseURL, &res); err != nil {
		return res, err
	}
	if err := awaitProcessors(ctx, c.svc); err != nil {
		return res, err
	}
	if err := c.firstReads(ctx, &res); err != nil {
		return res, err
	}
	for round := range rounds {
		if err := c.timeRound(ctx, round, &res, "GET", c.get); err != nil {
			return res, err
		}
		if err := c.timeRound(ctx, round, &res, "payment", c.Pay); err != nil {
			return res, err
		}
	}
	res.summarize()
	return res, nil
}

// seedCold writes every stream, and the warm-up account's, one statement each, then has the
// server gather the events table's statistics.
func seedCold(ctx context.Context, databaseURL string, res *ColdResult) error {
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	fp := fineFingerprint(coldFine, coldReason)
	start := time.Now()
	write := func(member string, n int) error {
		if _, err := conn.Exec(ctx, coldInsert, "account-"+member, n, coldFine, coldReason, fp); err != nil {
			return fmt.Errorf("writing a stream of %d events: %w", n, err)
		}
		return nil
	}
	if err := write(coldWarmMember, ColdWarmEvents); err != nil {
		return err
	}
	for _, p := range res.Points {
		if err := write(coldMember(p.Events), p.Events); err != nil {
			return err
		}
	}
	// As autovacuum would soon after so many rows, and before the timed reads whatever its
	// timing: the planner then knows how the streams share the table.
	if _, err := conn.Exec(ctx, "ANALYZE events"); err != nil {
		return fmt.Errorf("analyzing the events table: %w", err)
	}
	res.Seed = time.Since(start)
	environment.Logf("cold: streams of %v events written in %s", EventsOf(res.Points), figures.FormatSeconds(res.Seed))
	return nil
}

// EventsOf is the stream lengths of points, in order.
func EventsOf(points []ColdPoint) []int {
	var out []int
	for _, p := range points {
		out = append(out, p.Events)
	}
	return out
}

// summarize sorts each point's times and takes their medians and ratios.
func (res *ColdResult) summarize() {
	for i := range res.Points {
		p := &res.Points[i]
		slices.Sort(p.GET)
		slices.Sort(p.Pay)
		p.GETMedian, p.PayMedian = figures.Percentile(p.GET, 0.5), figures.Percentile(p.Pay, 0.5)
		if first := res.Points[0]; first.GETMedian > 0 && first.PayMedian > 0 {
			p.GETRatio = p.GETMedian.Seconds() / first.GETMedian.Seconds()
			p.PayRatio = p.PayMedian.Seconds() / first.PayMedian.Seconds()
		}
	}
}

// coldService is the measurement's service process, started again for each round.
type coldService struct {
	bin, databaseURL string
	svc              *environment.Service
	api              *workload.Client
	keys             int // payments made, for their Idempotency-Keys
}

// start starts a process of the service.
func (c *coldService) start(ctx context.Context) error {
	svc, err := environment.StartService(ctx, c.bin, c.databaseURL, "REPLICA_ID=bench-cold")
	if err != nil {
		return fmt.Errorf("cold: %w", err)
	}
	c.svc, c.api = svc, workload.NewClient(svc.BaseURL, 1)
	return nil
}

// restart stops the process and starts another, which keeps nothing in memory; it returns once
// the new one holds every processor's lease with no lag, and has served an untimed read of the
// warm-up account and an untimed payment into it: the process has connected to the database,
// this program to it, and its first read and first append are behind it.
func (c *coldService) restart(ctx context.Context) error {
	c.Stop(ctx)
	if err := c.start(ctx); err != nil {
		return err
	}
	if err := awaitProcessors(ctx, c.svc); err != nil {
		return err
	}
	if err := c.get(ctx, coldWarmMember); err != nil {
		return err
	}
	return c.Pay(ctx, coldWarmMember)
}

func (c *coldService) Stop(ctx context.Context) {
	if c.svc == nil {
		return
	}
	c.api.HTTP.CloseIdleConnections()
	if err := c.svc.Stop(context.WithoutCancel(ctx)); err != nil {
		environment.Logf("stopping the cold-load service: %v", err)
	}
	c.svc = nil
}

// awaitProcessors polls /status until the service holds every processor's lease and each has
// read the whole log.
func awaitProcessors(ctx context.Context, svc *environment.Service) error {
	deadline := time.Now().Add(coldCatchUp)
	for {
		status, err := environment.FetchStatus(ctx, svc.BaseURL)
		idle := err == nil
		for _, name := range environment.Processors() {
			idle = idle && status[name].HoldsLease && status[name].Lag == 0
		}
		if idle {
			return nil
		}
		if time.Now().After(deadline) {
			if err != nil {
				return fmt.Errorf("cold: the processors did not catch up within %s: %w: %s", coldCatchUp, err, svc.Output())
			}
			return fmt.Errorf("cold: the processors did not catch up within %s (last status %+v): %s",
				coldCatchUp, status, svc.Output())
		}
		time.Sleep(50 * time.Millisecond) // polling /status, bounded by the deadline
	}
}

// firstReads reads each account once, which writes a snapshot of a long stream, and then finds
// the snapshots the database holds.
func (c *coldService) firstReads(ctx context.Context, res *ColdResult) error {
	for i := range res.Points {
		p := &res.Points[i]
		start := time.Now()
		if err := c.get(ctx, coldMember(p.Events)); err != nil {
			return err
		}
		p.FirstRead = time.Since(start)
	}
	conn, err := pgx.Connect(ctx, c.databaseURL)
	if err != nil {
		return fmt.Errorf("connecting: %w", err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	for i := range res.Points {
		p := &res.Points[i]
		err := conn.QueryRow(ctx, `SELECT version FROM snapshots WHERE stream_id = $1`, "account-"+coldMember(p.Events)).Scan(&p.Snapshot)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("cold: reading the snapshots: %w", err)
		}
		environment.Logf("cold: %d events: first read %s, snapshot at version %d", p.Events, figures.FormatLatency(p.FirstRead), p.Snapshot)
	}
	return nil
}

// timeRound restarts the process and times do on every stream once, starting at a stream that
// moves on by one each round, so that no stream is always first, each once the processors have
// read the log.
func (c *coldService) timeRound(ctx context.Context, round int, res *ColdResult, what string, do func(context.Context, string) error) error {
	if err := c.restart(ctx); err != nil {
		return err
	}
	n := len(res.Points)
	for i := range n {
		p := &res.Points[(i+round)%n]
		// The processors read what the request before wrote (a payment) before this one starts.
		if err := awaitProcessors(ctx, c.svc); err != nil {
			return err
		}
		start := time.Now()
		if err := do(ctx, coldMember(p.Events)); err != nil {
			return fmt.Errorf("cold %s on %d events, round %d: %w", what, p.Events, round+1, err)
		}
		d := time.Since(start)
		if what == "GET" {
			p.GET = append(p.GET, d)
		} else {
			p.Pay = append(p.Pay, d)
		}
	}
	return nil
}

// get reads the member's account, wanting 200.
func (c *coldService) get(ctx context.Context, member string) error {
	path := "/accounts/" + url.PathEscape(member)
	a, err := c.api.Request(ctx, http.MethodGet, path, "")
	if err != nil {
		return err
	}
	if a.Status != http.StatusOK {
		return fmt.Errorf("GET %s: %d %s", path, a.Status, a.Body)
	}
	return nil
}

// Pay pays a cent into the member's account with a fresh Idempotency-Key, wanting 201.
func (c *coldService) Pay(ctx context.Context, member string) error {
	c.keys++
	_, err := c.api.Pay(ctx, member, fmt.Sprintf("cold-pay-%d", c.keys))
	return err
}
