package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"syscall"
	"time"
)

// The takeover measurement: two processes of the service on a database of their own and the
// SMTP sink. The first to start holds every lease; the outbox's holder is signalled, a book is
// lent through the other right away, and the time from the signal to the sink accepting that
// loan's email is measured. Each round starts a fresh pair on the same database.

const takeoverRounds = 5

// processors are the names of the leases a holder must hold before the standby starts.
var processors = []string{"catalog", "notifications", "late-fines"}

// takeoverResult is one signal's rounds.
type takeoverResult struct {
	Signal      string
	Times       []time.Duration // sorted
	Median, Max time.Duration
}

// processorStatus is one processor's line in /status.
type processorStatus struct {
	Name       string `json:"name"`
	HoldsLease bool   `json:"holdsLease"`
	Lag        int64  `json:"lag"`
}

// fetchStatus reads /status from the service at baseURL, by processor name.
func fetchStatus(ctx context.Context, baseURL string) (map[string]processorStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, baseURL+"/status", nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	var status struct {
		Processors []processorStatus `json:"processors"`
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /status: %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&status); err != nil {
		return nil, fmt.Errorf("GET /status: %w", err)
	}
	out := map[string]processorStatus{}
	for _, p := range status.Processors {
		out[p.Name] = p
	}
	return out, nil
}

// holdsLeases reports whether the service says it holds every named lease; false when it can't
// be asked.
func (s *service) holdsLeases(ctx context.Context, names ...string) bool {
	status, err := fetchStatus(ctx, s.BaseURL)
	if err != nil {
		return false
	}
	for _, n := range names {
		if !status[n].HoldsLease {
			return false
		}
	}
	return true
}

func measureTakeover(ctx context.Context, bin, databaseURL string, sink *smtpSink) ([]takeoverResult, error) {
	var results []takeoverResult
	book := 0
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		res := takeoverResult{Signal: sig.String()}
		for round := range takeoverRounds {
			d, err := takeoverOnce(ctx, bin, databaseURL, sink, sig, round, &book)
			if err != nil {
				return nil, fmt.Errorf("%s, round %d: %w", sig, round+1, err)
			}
			logf("takeover after %s, round %d: %s", sig, round+1, formatLatency(d))
			res.Times = append(res.Times, d)
		}
		slices.Sort(res.Times)
		res.Median, res.Max = res.Times[len(res.Times)/2], res.Times[len(res.Times)-1]
		results = append(results, res)
	}
	return results, nil
}

func takeoverOnce(ctx context.Context, bin, databaseURL string, sink *smtpSink, sig syscall.Signal, round int, book *int) (time.Duration, error) {
	env := []string{"SMTP_URL=" + sink.URL()}
	holder, err := startService(ctx, bin, databaseURL, append(env, fmt.Sprintf("REPLICA_ID=holder-%d", round))...)
	if err != nil {
		return 0, err
	}
	defer holder.Wait(30 * time.Second)
	defer func() { _ = holder.Signal(syscall.SIGKILL) }() // on an early return
	deadline := time.Now().Add(15 * time.Second)
	for !holder.holdsLeases(ctx, processors...) {
		if time.Now().After(deadline) {
			return 0, fmt.Errorf("the first process did not hold every lease within 15s: %s", holder.output())
		}
		time.Sleep(10 * time.Millisecond) // polling /status, bounded by the deadline
	}
	standby, err := startService(ctx, bin, databaseURL, append(env, fmt.Sprintf("REPLICA_ID=standby-%d", round))...)
	if err != nil {
		return 0, err
	}
	defer func() { _ = standby.Stop(context.WithoutCancel(ctx)) }()
	if standby.holdsLeases(ctx, "notifications") {
		return 0, fmt.Errorf("the standby holds the outbox's lease before the holder was signalled")
	}

	api := newAPIClient(standby.BaseURL, 1)
	defer api.http.CloseIdleConnections()
	if err := api.openMember(ctx, outboxMember); err != nil {
		return 0, err
	}
	lendOne := func() (int64, error) {
		*book++
		id := fmt.Sprintf("takeover-%d", *book)
		if err := api.addBook(ctx, id); err != nil {
			return 0, err
		}
		position, _, err := api.lend(ctx, id, outboxMember)
		return position, err
	}
	// A loan whose email the holder sends: it is at work.
	position, err := lendOne()
	if err != nil {
		return 0, err
	}
	if _, err := sink.wait(ctx, position, 10*time.Second); err != nil {
		return 0, fmt.Errorf("the holder's email: %w", err)
	}

	if err := holder.Signal(sig); err != nil {
		return 0, err
	}
	signalled := time.Now()
	position, err = lendOne()
	if err != nil {
		return 0, fmt.Errorf("lending through the standby: %w", err)
	}
	accepted, err := sink.wait(ctx, position, 30*time.Second)
	if err != nil {
		return 0, fmt.Errorf("the standby's email: %w", err)
	}
	return accepted.Sub(signalled), nil
}
