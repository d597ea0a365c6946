package workload

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// A Measurement is one row group of the table: something done again and again by each of
// `concurrency` workers. The measurements that are not throughput at a concurrency (outbox
// latency, takeover, growth, memory) run after these: see the packages measure and apart.
type Measurement interface {
	// Name is the measurement's row label.
	Name() string
	// Setup runs once, before any cell.
	Setup(ctx context.Context) error
	// Prepare readies one cell and returns the operation its workers run.
	Prepare(ctx context.Context, concurrency int) (Operation, error)
	// Close releases what Setup took.
	Close()
}

// A CellEnder is a measurement that holds something for one cell only, to be released as soon
// as the cell is measured: the database limits' own connections (see CellPool).
type CellEnder interface{ EndCell() }

// An Operation is one unit of work by worker number `worker` (0 to concurrency-1). An error
// counts as a failed operation, not as the end of the run.
type Operation func(ctx context.Context, worker int) error

// The fine each account starts with, in cents: payments of one cent always have something to
// pay.
const (
	StartingFine  = 100000000
	paymentBody   = `{"amount":1}`
	replaysPerKey = 50 // at most this many recent keys per account are replayed
)

// Client speaks to the service over real sockets, keeping connections alive.
type Client struct {
	BaseURL string
	HTTP    *http.Client
	bearer  string // an access token, sent as Authorization: Bearer when set
}

// NewClient is a client of the service at baseURL that keeps up to 2×conns connections open.
func NewClient(baseURL string, conns int) *Client {
	transport := &http.Transport{
		MaxIdleConns:        conns * 2,
		MaxIdleConnsPerHost: conns * 2,
		IdleConnTimeout:     time.Minute,
	}
	return &Client{BaseURL: baseURL, HTTP: &http.Client{Transport: transport, Timeout: 30 * time.Second}}
}

// as is the client sending token as Authorization: Bearer, on the same connections.
func (c *Client) as(token string) *Client {
	signed := *c
	signed.bearer = token
	return &signed
}

// authorize adds the client's token, if it has one, to req.
func (c *Client) authorize(req *http.Request) {
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
}

// Answer is what a POST or a PUT got back.
type Answer struct {
	Status   int
	replayed bool
	Body     []byte
}

func (c *Client) post(ctx context.Context, path, key, body string) (Answer, error) {
	return c.send(ctx, http.MethodPost, path, key, body)
}

// send sends a JSON body with method to path, with key as its Idempotency-Key unless it is "".
func (c *Client) send(ctx context.Context, method, path, key, body string) (Answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.BaseURL+path, strings.NewReader(body))
	if err != nil {
		return Answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	c.authorize(req)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return Answer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Answer{}, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return Answer{Status: resp.StatusCode, replayed: resp.Header.Get("Idempotent-Replayed") == "true", Body: b}, nil
}

// Pay posts a one-cent payment and wants 201.
func (c *Client) Pay(ctx context.Context, account, key string) (Answer, error) {
	path := "/accounts/" + url.PathEscape(account) + "/payments"
	a, err := c.post(ctx, path, key, paymentBody)
	if err != nil {
		return a, err
	}
	if a.Status != http.StatusCreated {
		return a, fmt.Errorf("POST %s: %d %s", path, a.Status, bytes.TrimSpace(a.Body))
	}
	return a, nil
}

// Fine charges the starting fine to each account, a few at a time.
func (c *Client) Fine(ctx context.Context, accounts []string) error {
	const parallel = 8
	body := fmt.Sprintf(`{"amount":%d,"reason":"benchmark"}`, StartingFine)
	errs := make(chan error, len(accounts))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, acc := range accounts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			path := "/accounts/" + url.PathEscape(acc) + "/fines"
			a, err := c.post(ctx, path, "", body)
			if err == nil && a.Status != http.StatusCreated {
				err = fmt.Errorf("POST %s: %d %s", path, a.Status, bytes.TrimSpace(a.Body))
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// AccountName is the member ID of the benchmark's account number i.
func AccountName(i int) string { return fmt.Sprintf("bench-%d", i) }

// payment is one recorded payment, to be sent again by replays.
type payment struct {
	account, key string
	body         []byte
}

// Commands pays one cent into the accounts with fresh Idempotency-Keys, each worker into its
// own accounts (account i belongs to worker i mod concurrency), and remembers what it sent.
type Commands struct {
	API      *Client
	callers  []*Client // per worker, each with a token of its own (signin.go); nil: api for all
	Accounts int
	Keys     string // begins each Idempotency-Key, so that another run's keys are fresh too

	concurrency int
	sent        [][]payment // per worker, in the order sent
}

// Name implements Measurement: the rows' label.
func (m *Commands) Name() string { return "commands" }

// Setup implements Measurement.
func (m *Commands) Setup(ctx context.Context) error {
	names := make([]string, m.Accounts)
	for i := range names {
		names[i] = AccountName(i)
	}
	return m.API.Fine(ctx, names)
}

// Close implements Measurement.
func (m *Commands) Close() {}

// Prepare implements Measurement.
func (m *Commands) Prepare(_ context.Context, concurrency int) (Operation, error) {
	if m.callers != nil && len(m.callers) < concurrency {
		return nil, fmt.Errorf("%d workers, but tokens for %d", concurrency, len(m.callers))
	}
	m.concurrency = concurrency
	m.sent = make([][]payment, concurrency)
	counts := make([]int, concurrency)
	owned := func(worker int) int { return (m.Accounts - worker + concurrency - 1) / concurrency }
	return func(ctx context.Context, worker int) error {
		n := counts[worker]
		counts[worker]++
		account := AccountName(worker + (n%owned(worker))*concurrency)
		key := fmt.Sprintf("%scmd-c%d-w%d-%d", m.Keys, concurrency, worker, n)
		a, err := m.client(worker).Pay(ctx, account, key)
		if err != nil {
			return err
		}
		m.sent[worker] = append(m.sent[worker], payment{account: account, key: key, body: a.Body})
		return nil
	}, nil
}

// client is the worker's: its own when the workers have tokens, api otherwise.
func (m *Commands) client(worker int) *Client {
	if m.callers != nil {
		return m.callers[worker]
	}
	return m.API
}

// Replays sends the payments of commands, at the same concurrency, again with their keys: each
// must be answered 201 with Idempotent-Replayed: true and the first answer's body. Only the
// most recent keys of each account are replayed, well inside COMMAND_IDS_PER_STREAM.
type Replays struct {
	API      *Client
	Commands *Commands
}

// Name implements Measurement: the rows' label.
func (m *Replays) Name() string { return "replays" }

// Setup implements Measurement.
func (m *Replays) Setup(context.Context) error { return nil }

// Close implements Measurement.
func (m *Replays) Close() {}

// Prepare implements Measurement.
func (m *Replays) Prepare(_ context.Context, concurrency int) (Operation, error) {
	if m.Commands.concurrency != concurrency {
		return nil, fmt.Errorf("no payments to replay: commands must run at concurrency %d first", concurrency)
	}
	sent := make([][]payment, concurrency)
	for w, ps := range m.Commands.sent {
		if len(ps) == 0 {
			return nil, fmt.Errorf("worker %d of commands recorded no payment to replay", w)
		}
		owned := (m.Commands.Accounts - w + concurrency - 1) / concurrency
		sent[w] = ps[max(0, len(ps)-owned*replaysPerKey):]
	}
	counts := make([]int, concurrency)
	return func(ctx context.Context, worker int) error {
		p := sent[worker][counts[worker]%len(sent[worker])]
		counts[worker]++
		a, err := m.API.Pay(ctx, p.account, p.key)
		if err != nil {
			return err
		}
		if !a.replayed {
			return fmt.Errorf("key %s on %s: not answered with Idempotent-Replayed: true", p.key, p.account)
		}
		if !bytes.Equal(a.Body, p.body) {
			return fmt.Errorf("key %s on %s: the replay's body differs from the first Answer", p.key, p.account)
		}
		return nil
	}, nil
}

// Contention has every worker pay into one account: the service settles the conflicts by
// loading and deciding again. Each concurrency level gets a fresh account, so that every cell
// starts from a stream of one event (the stream grows during the cell, and every command reads
// all of it).
type Contention struct {
	API *Client
}

// Name implements Measurement: the rows' label.
func (m *Contention) Name() string { return "contention" }

// Setup implements Measurement.
func (m *Contention) Setup(context.Context) error { return nil }

// Close implements Measurement.
func (m *Contention) Close() {}

// Prepare implements Measurement.
func (m *Contention) Prepare(ctx context.Context, concurrency int) (Operation, error) {
	account := fmt.Sprintf("bench-hot-c%d", concurrency)
	if err := m.API.Fine(ctx, []string{account}); err != nil {
		return nil, err
	}
	counts := make([]int, concurrency)
	return func(ctx context.Context, worker int) error {
		key := fmt.Sprintf("hot-c%d-w%d-%d", concurrency, worker, counts[worker])
		counts[worker]++
		_, err := m.API.Pay(ctx, account, key)
		return err
	}, nil
}
