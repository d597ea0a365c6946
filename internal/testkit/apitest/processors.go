package apitest

import (
	"library/internal/processor"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// StatusView is GET /status.
type StatusView struct {
	Replica     string                  `json:"replica"`
	ReadHorizon processor.HorizonStatus `json:"readHorizon"`
	Processors  []processor.Status      `json:"processors"`
}

// GetStatus is the replica's GET /status.
func GetStatus(t *testing.T, a *API) StatusView {
	t.Helper()
	var s StatusView
	RequireJSON(t, a.Get(t, "/status"), &s)
	return s
}

// ProcessorStatus is one processor's line of GET /status; the test fails without it.
func ProcessorStatus(t *testing.T, a *API, name string) processor.Status {
	t.Helper()
	for _, p := range GetStatus(t, a).Processors {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("/status has no processor %s", name)
	return processor.Status{}
}

// CaughtUp waits until the named processor has handled every event in the log.
func CaughtUp(t *testing.T, a *API, name string) processor.Status {
	t.Helper()
	var s processor.Status
	Eventually(t, 10*time.Second, func() bool {
		s = ProcessorStatus(t, a, name)
		return s.Lag == 0
	}, "%s to catch up (last status %+v)", name, s)
	return s
}

// Admin sends POST /admin/processors/{name}/{action} with AdminToken.
func Admin(t *testing.T, a *API, name, action string) Response {
	t.Helper()
	return a.Call(t, http.MethodPost, "/admin/processors/"+name+"/"+action, nil, "Authorization", "Bearer "+AdminToken)
}

// ParkedList is GET /admin/processors/{name}/parked.
type ParkedList struct {
	Processor string `json:"processor"`
	Parked    []struct {
		Position int64     `json:"position"`
		StreamID string    `json:"streamId"`
		Version  int64     `json:"version"`
		Type     string    `json:"type"`
		Reason   string    `json:"reason"`
		Attempts int       `json:"attempts"`
		ParkedAt time.Time `json:"parkedAt"`
	} `json:"parked"`
}

// ListParked is GET /admin/processors/{name}/parked, with AdminToken.
func ListParked(t *testing.T, a *API, name string) ParkedList {
	t.Helper()
	var l ParkedList
	RequireJSON(t, a.Call(t, http.MethodGet, "/admin/processors/"+name+"/parked", nil, "Authorization", "Bearer "+AdminToken), &l)
	require.Equal(t, name, l.Processor)
	return l
}
