package main

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

// The fine each account starts with, in cents: payments of one cent always have something to
// pay.
const (
	startingFine  = 100000000
	paymentBody   = `{"amount":1}`
	replaysPerKey = 50 // at most this many recent keys per account are replayed
)

// apiClient speaks to the service over real sockets, keeping connections alive.
type apiClient struct {
	baseURL string
	http    *http.Client
	bearer  string // an access token, sent as Authorization: Bearer when set
}

func newAPIClient(baseURL string, conns int) *apiClient {
	transport := &http.Transport{
		MaxIdleConns:        conns * 2,
		MaxIdleConnsPerHost: conns * 2,
		IdleConnTimeout:     time.Minute,
	}
	return &apiClient{baseURL: baseURL, http: &http.Client{Transport: transport, Timeout: 30 * time.Second}}
}

// as is the client sending token as Authorization: Bearer, on the same connections.
func (c *apiClient) as(token string) *apiClient {
	signed := *c
	signed.bearer = token
	return &signed
}

// authorize adds the client's token, if it has one, to req.
func (c *apiClient) authorize(req *http.Request) {
	if c.bearer != "" {
		req.Header.Set("Authorization", "Bearer "+c.bearer)
	}
}

// answer is what a POST or a PUT got back.
type answer struct {
	status   int
	replayed bool
	body     []byte
}

func (c *apiClient) post(ctx context.Context, path, key, body string) (answer, error) {
	return c.send(ctx, http.MethodPost, path, key, body)
}

// send sends a JSON body with method to path, with key as its Idempotency-Key unless it is "".
func (c *apiClient) send(ctx context.Context, method, path, key, body string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	c.authorize(req)
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return answer{}, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return answer{status: resp.StatusCode, replayed: resp.Header.Get("Idempotent-Replayed") == "true", body: b}, nil
}

// pay posts a one-cent payment and wants 201.
func (c *apiClient) pay(ctx context.Context, account, key string) (answer, error) {
	path := "/accounts/" + url.PathEscape(account) + "/payments"
	a, err := c.post(ctx, path, key, paymentBody)
	if err != nil {
		return a, err
	}
	if a.status != http.StatusCreated {
		return a, fmt.Errorf("POST %s: %d %s", path, a.status, bytes.TrimSpace(a.body))
	}
	return a, nil
}

// fine charges the starting fine to each account, a few at a time.
func (c *apiClient) fine(ctx context.Context, accounts []string) error {
	const parallel = 8
	body := fmt.Sprintf(`{"amount":%d,"reason":"benchmark"}`, startingFine)
	errs := make(chan error, len(accounts))
	sem := make(chan struct{}, parallel)
	var wg sync.WaitGroup
	for _, acc := range accounts {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			path := "/accounts/" + url.PathEscape(acc) + "/fines"
			a, err := c.post(ctx, path, "", body)
			if err == nil && a.status != http.StatusCreated {
				err = fmt.Errorf("POST %s: %d %s", path, a.status, bytes.TrimSpace(a.body))
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

func accountName(i int) string { return fmt.Sprintf("bench-%d", i) }

// payment is one recorded payment, to be sent again by replays.
type payment struct {
	account, key string
	body         []byte
}

// commands pays one cent into the accounts with fresh Idempotency-Keys, each worker into its
// own accounts (account i belongs to worker i mod concurrency), and remembers what it sent.
type commands struct {
	api      *apiClient
	callers  []*apiClient // per worker, each with a token of its own (signin.go); nil: api for all
	accounts int
	keys     string // begins each Idempotency-Key, so that another run's keys are fresh too

	concurrency int
	sent        [][]payment // per worker, in the order sent
}

func (m *commands) name() string { return "commands" }

func (m *commands) setup(ctx context.Context) error {
	names := make([]string, m.accounts)
	for i := range names {
		names[i] = accountName(i)
	}
	return m.api.fine(ctx, names)
}

func (m *commands) close() {}

func (m *commands) prepare(_ context.Context, concurrency int) (operation, error) {
	if m.callers != nil && len(m.callers) < concurrency {
		return nil, fmt.Errorf("%d workers, but tokens for %d", concurrency, len(m.callers))
	}
	m.concurrency = concurrency
	m.sent = make([][]payment, concurrency)
	counts := make([]int, concurrency)
	owned := func(worker int) int { return (m.accounts - worker + concurrency - 1) / concurrency }
	return func(ctx context.Context, worker int) error {
		n := counts[worker]
		counts[worker]++
		account := accountName(worker + (n%owned(worker))*concurrency)
		key := fmt.Sprintf("%scmd-c%d-w%d-%d", m.keys, concurrency, worker, n)
		a, err := m.client(worker).pay(ctx, account, key)
		if err != nil {
			return err
		}
		m.sent[worker] = append(m.sent[worker], payment{account: account, key: key, body: a.body})
		return nil
	}, nil
}

// client is the worker's: its own when the workers have tokens, api otherwise.
func (m *commands) client(worker int) *apiClient {
	if m.callers != nil {
		return m.callers[worker]
	}
	return m.api
}

// replays sends the payments of commands, at the same concurrency, again with their keys: each
// must be answered 201 with Idempotent-Replayed: true and the first answer's body. Only the
// most recent keys of each account are replayed, well inside COMMAND_IDS_PER_STREAM.
type replays struct {
	api      *apiClient
	commands *commands
}

func (m *replays) name() string                { return "replays" }
func (m *replays) setup(context.Context) error { return nil }
func (m *replays) close()                      {}

func (m *replays) prepare(_ context.Context, concurrency int) (operation, error) {
	if m.commands.concurrency != concurrency {
		return nil, fmt.Errorf("no payments to replay: commands must run at concurrency %d first", concurrency)
	}
	sent := make([][]payment, concurrency)
	for w, ps := range m.commands.sent {
		if len(ps) == 0 {
			return nil, fmt.Errorf("worker %d of commands recorded no payment to replay", w)
		}
		owned := (m.commands.accounts - w + concurrency - 1) / concurrency
		sent[w] = ps[max(0, len(ps)-owned*replaysPerKey):]
	}
	counts := make([]int, concurrency)
	return func(ctx context.Context, worker int) error {
		p := sent[worker][counts[worker]%len(sent[worker])]
		counts[worker]++
		a, err := m.api.pay(ctx, p.account, p.key)
		if err != nil {
			return err
		}
		if !a.replayed {
			return fmt.Errorf("key %s on %s: not answered with Idempotent-Replayed: true", p.key, p.account)
		}
		if !bytes.Equal(a.body, p.body) {
			return fmt.Errorf("key %s on %s: the replay's body differs from the first answer", p.key, p.account)
		}
		return nil
	}, nil
}

// contention has every worker pay into one account: the service settles the conflicts by
// loading and deciding again. Each concurrency level gets a fresh account, so that every cell
// starts from a stream of one event (the stream grows during the cell, and every command reads
// all of it).
type contention struct {
	api *apiClient
}

func (m *contention) name() string                { return "contention" }
func (m *contention) setup(context.Context) error { return nil }
func (m *contention) close()                      {}

func (m *contention) prepare(ctx context.Context, concurrency int) (operation, error) {
	account := fmt.Sprintf("bench-hot-c%d", concurrency)
	if err := m.api.fine(ctx, []string{account}); err != nil {
		return nil, err
	}
	counts := make([]int, concurrency)
	return func(ctx context.Context, worker int) error {
		key := fmt.Sprintf("hot-c%d-w%d-%d", concurrency, worker, counts[worker])
		counts[worker]++
		_, err := m.api.pay(ctx, account, key)
		return err
	}, nil
}
