// Package hooks delivers signed webhooks, as Stripe does, for devpay.
//
// What it promises:
//
//   - Every job sent is delivered to every URL set at the time, as a POST of its payload
//     with Content-Type application/json and Stripe-Signature (Sign) made at each attempt.
//   - A delivery answered other than 2xx, or not at all, is tried again after
//     Options.RetryFirst, then twice as long each time, up to Options.Attempts tries.
//   - Each URL gets its jobs one at a time, in the order they were sent, unless they were
//     sent together: then each copy to each URL goes on its own, at once.
//   - Every attempt that ended is kept (Deliveries), in the order they ended; an attempt cut
//     short by Close or by its URL being removed is not.
//   - The webhook secret is never logged, nor a URL's query or password. All methods are safe
//     for concurrent use, and no goroutine outlives Close.
package hooks

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Delivery is one attempt to deliver an event to a URL.
type Delivery struct {
	EventID   string `json:"event"`
	Type      string `json:"type"`
	SessionID string `json:"session"`
	URL       string `json:"url"`
	// Attempt is 1 for the first try of this copy of the event, 2 for its first retry...
	Attempt int `json:"attempt"`
	// StatusCode is the answer's, or 0 when there was none (Error says why).
	StatusCode int       `json:"status"`
	Error      string    `json:"error,omitempty"`
	At         time.Time `json:"at"`
}

// OK says whether the receiver took the event: a 2xx answer.
func (d Delivery) OK() bool { return d.StatusCode >= 200 && d.StatusCode < 300 }

// Job is an event to deliver.
type Job struct {
	EventID, EventType, SessionID string
	Payload                       []byte
}

// Options configure a Dispatcher. Secret is required.
type Options struct {
	// Secret signs the payloads.
	Secret string
	// RetryFirst is the wait before the second try; each later wait doubles. Default 1 s.
	RetryFirst time.Duration
	// Attempts is how many times a delivery is tried. Default 6.
	Attempts int
	// Timeout bounds each attempt. Default 10 s.
	Timeout time.Duration
	// Now stamps the signatures and the attempts. Default time.Now.
	Now func() time.Time
	// Logger receives the attempts' outcomes. Default slog.Default().
	Logger *slog.Logger
}

// Dispatcher delivers events to the webhook URLs: one worker per URL takes its jobs in order,
// and jobs sent together each run on their own.
type Dispatcher struct {
	secret   string
	now      func() time.Time
	first    time.Duration
	attempts int
	log      *slog.Logger
	client   *http.Client
	ctx      context.Context // ended by close
	cancel   context.CancelFunc
	wg       sync.WaitGroup

	mu      sync.Mutex
	closed  bool
	queues  map[string]*queue
	order   []string // the URLs, as set
	done    []Delivery
	waiting int // jobs queued or under way
}

// queue is one URL's jobs, taken in order by its worker until the URL is removed.
type queue struct {
	url    string
	jobs   []Job
	wake   chan struct{} // has a value when jobs may have been added
	ctx    context.Context
	cancel context.CancelFunc
}

// New makes a Dispatcher with no URL: SetURLs gives it some.
func New(opts Options) *Dispatcher {
	if opts.RetryFirst <= 0 {
		opts.RetryFirst = time.Second
	}
	if opts.Attempts <= 0 {
		opts.Attempts = 6
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Dispatcher{
		secret: opts.Secret, now: opts.Now, first: opts.RetryFirst, attempts: opts.Attempts, log: opts.Logger,
		client: &http.Client{Timeout: opts.Timeout, Transport: http.DefaultTransport.(*http.Transport).Clone()},
		ctx:    ctx, cancel: cancel, queues: map[string]*queue{},
	}
}

// Close ends every delivery, those under way included, and waits for them.
func (d *Dispatcher) Close() {
	d.mu.Lock()
	d.closed = true
	d.mu.Unlock()
	d.cancel()
	d.wg.Wait()
	d.client.CloseIdleConnections()
}

// SetURLs replaces the URLs. A URL kept keeps its jobs; a URL removed loses them.
func (d *Dispatcher) SetURLs(urls []string) error {
	var want []string
	for _, raw := range urls {
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("devpay: webhook URL %q is not an http or https URL", raw)
		}
		if !slices.Contains(want, raw) {
			want = append(want, raw)
		}
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	for u, q := range d.queues {
		if !slices.Contains(want, u) {
			d.waiting -= len(q.jobs)
			q.cancel()
			delete(d.queues, u)
		}
	}
	for _, u := range want {
		if _, ok := d.queues[u]; !ok {
			ctx, cancel := context.WithCancel(d.ctx)
			q := &queue{url: u, wake: make(chan struct{}, 1), ctx: ctx, cancel: cancel}
			d.queues[u] = q
			d.wg.Add(1)
			go d.work(q)
		}
	}
	d.order = want
	return nil
}

// URLs are the URLs, as set.
func (d *Dispatcher) URLs() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string{}, d.order...)
}

// Send delivers copies of a job to every URL: in each URL's queue, or each on its own.
func (d *Dispatcher) Send(j Job, copies int, together bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for _, u := range d.order {
		q := d.queues[u]
		for range copies {
			d.waiting++
			if together {
				d.wg.Add(1)
				go func() {
					defer d.wg.Done()
					d.deliver(q.ctx, u, j)
					d.finished()
				}()
				continue
			}
			q.jobs = append(q.jobs, j)
		}
		select {
		case q.wake <- struct{}{}:
		default:
		}
	}
}

// work delivers a queue's jobs one at a time until its URL is removed or the server closes.
func (d *Dispatcher) work(q *queue) {
	defer d.wg.Done()
	for {
		d.mu.Lock()
		if q.ctx.Err() != nil {
			d.mu.Unlock()
			return
		}
		if len(q.jobs) == 0 {
			d.mu.Unlock()
			select {
			case <-q.wake:
				continue
			case <-q.ctx.Done():
				return
			}
		}
		j := q.jobs[0]
		q.jobs = q.jobs[1:]
		d.mu.Unlock()
		d.deliver(q.ctx, q.url, j)
		d.finished()
	}
}

func (d *Dispatcher) finished() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.waiting--
}

// Pending is how many deliveries are waiting or under way.
func (d *Dispatcher) Pending() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.waiting
}

// Deliveries are the attempts that ended, in the order they ended.
func (d *Dispatcher) Deliveries() []Delivery {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.done)
}

// deliver tries a job until the receiver takes it, waiting RetryFirst and then twice as long
// each time, up to Attempts tries, or until ctx ends. An attempt cut short by ctx is not kept.
func (d *Dispatcher) deliver(ctx context.Context, target string, j Job) {
	wait := d.first
	for attempt := 1; ; attempt++ {
		status, err := d.post(ctx, target, j.Payload)
		if ctx.Err() != nil {
			return
		}
		rec := Delivery{EventID: j.EventID, Type: j.EventType, SessionID: j.SessionID, URL: target,
			Attempt: attempt, StatusCode: status, At: d.now()}
		if err != nil {
			rec.Error = err.Error()
		}
		d.mu.Lock()
		d.done = append(d.done, rec)
		d.mu.Unlock()
		if rec.OK() {
			d.log.Info("devpay: webhook delivered", "event", j.EventID, "type", j.EventType, "url", redacted(target), "attempt", attempt)
			return
		}
		if attempt >= d.attempts {
			d.log.Warn("devpay: webhook given up", "event", j.EventID, "type", j.EventType, "url", redacted(target),
				"attempts", attempt, "status", status, "error", rec.Error)
			return
		}
		d.log.Info("devpay: webhook to retry", "event", j.EventID, "url", redacted(target), "attempt", attempt,
			"status", status, "error", rec.Error, "in", wait)
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		wait *= 2
	}
}

// post sends one signed delivery and returns the answer's status code.
func (d *Dispatcher) post(ctx context.Context, target string, payload []byte) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		return 0, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("User-Agent", "devpay (Stripe/1.0 webhooks)")
	req.Header.Set("Stripe-Signature", Sign(payload, d.secret, d.now()))
	resp, err := d.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, nil
}

// Sign is the Stripe-Signature header of a payload signed at a time with a webhook secret:
// t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<payload>">.
func Sign(payload []byte, secret string, at time.Time) string {
	t := strconv.FormatInt(at.Unix(), 10)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "."))
	mac.Write(payload)
	return "t=" + t + ",v1=" + hex.EncodeToString(mac.Sum(nil))
}

// redacted is a URL for the log, without its query or password.
func redacted(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unreadable URL)"
	}
	u.RawQuery, u.Fragment = "", ""
	return u.Redacted()
}
