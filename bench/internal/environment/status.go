package environment

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// Processors are the names of the leases a holder must hold before the standby starts: a
// fresh slice each call.
func Processors() []string { return []string{"catalog", "notifications", "late-fines"} }

// ProcessorStatus is one processor's line in /status.
type ProcessorStatus struct {
	Name       string `json:"name"`
	HoldsLease bool   `json:"holdsLease"`
	Lag        int64  `json:"lag"`
}

// FetchStatus reads /status from the service at baseURL, by processor name.
func FetchStatus(ctx context.Context, baseURL string) (map[string]ProcessorStatus, error) {
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
	return out, nil
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
