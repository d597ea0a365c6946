package environment

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// Processors are the names of the leases a holder must hold before the standby starts: a
// fresh slice each call.
func Processors() []string { return []string{"catalog", "notifications", "late-fines"} }

// ProcessorStatus is one processor's line in /status.
type ProcessorStatus struct {
	Name string `json:"name"`
	// Kind is viewModel, saga or outbox.
	Kind       string `json:"kind"`
	HoldsLease bool   `json:"holdsLease"`
	Lag        int64  `json:"lag"`
	// Bulk is set on a view's build whose catch-up is written in bulk, until what it put off
	// (the catalog's search indexes) is whole again, at lag 0 too.
	Bulk bool `json:"bulk"`
	// View is set on a build of a view model, and Reads on the build the replica reads.
	View  string `json:"view"`
	State string `json:"state"`
	Reads bool   `json:"reads"`
}

// FetchStatus reads /status from the service at baseURL, by processor name. A view's name
// stands for the build of it that the service reads: on a database the migrations made, the
// catalog's first build (named catalog) is of a version older than the service's, whose own
// build (catalog@2) takes over once it has read the log.
func FetchStatus(ctx context.Context, baseURL string) (map[string]ProcessorStatus, error) {
	return FetchStatusWithin(ctx, baseURL, time.Second)
}

// FetchStatusWithin is FetchStatus, waiting up to timeout for the answer: /status counts each
// processor's lag in the log, which takes a while when processors are millions of events behind.
func FetchStatusWithin(ctx context.Context, baseURL string, timeout time.Duration) (map[string]ProcessorStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
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
		Processors []ProcessorStatus `json:"processors"`
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET /status: %d", resp.StatusCode)
	}
	if err := json.NewDecoder(resp.Body).Decode(&status); err != nil {
		return nil, fmt.Errorf("GET /status: %w", err)
	}
	out := map[string]ProcessorStatus{}
	for _, p := range status.Processors {
		out[p.Name] = p
	}
	for _, p := range status.Processors {
		if p.View != "" && p.Reads {
			out[p.View] = p
		}
	}
	return out, nil
}

// AwaitLeases waits, polling /status, until the service says it holds every named lease, and
// fails once within has passed, with what the service wrote.
func (s *Service) AwaitLeases(ctx context.Context, within time.Duration, names ...string) error {
	deadline := time.Now().Add(within)
	for !s.HoldsLeases(ctx, names...) {
		if time.Now().After(deadline) {
			return fmt.Errorf("the service did not hold the leases of %s within %s: %s", strings.Join(names, ", "), within, s.Output())
		}
		time.Sleep(10 * time.Millisecond) // polling /status, bounded by the deadline
	}
	return nil
}

// HoldsLeases reports whether the service says it holds every named lease; false when it can't
// be asked.
func (s *Service) HoldsLeases(ctx context.Context, names ...string) bool {
	status, err := FetchStatus(ctx, s.BaseURL)
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
