package apitest

import (
	"encoding/json"
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

// ProcessorStatus is one processor's line of GET /status; the test fails without it. A view's
// name stands for the build of it that the replica reads: on a fresh database in PostgreSQL the
// catalog's is catalog@2, this release's build, which replaces the migrations' first (of
// version 1) once it has caught up.
func ProcessorStatus(t *testing.T, a *API, name string) processor.Status {
	t.Helper()
	var named *processor.Status
	for _, p := range GetStatus(t, a).Processors {
		switch {
		case p.View == name && p.Reads:
			return p
		case p.Name == name:
			named = &p
		}
	}
	if named == nil {
		t.Fatalf("/status has no processor %s", name)
		return processor.Status{}
	}
	return *named
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

// ReplayView replays a view with POST /admin/processors/{view}/replay, and returns the name of
// the build it started (or of the one already building).
func ReplayView(t *testing.T, a *API, view string) string {
	t.Helper()
	r := Admin(t, a, view, "replay")
	require.Equal(t, http.StatusAccepted, r.Status, "replay of %s: %s", view, r.Body)
	RequireKeys(t, r.Body, "processor", "replay", "build")
	var answer struct{ Build string }
	require.NoError(t, json.Unmarshal(r.Body, &answer))
	return answer.Build
}

// Builds are the lines of GET /status of view's builds, in order.
func Builds(t *testing.T, a *API, view string) []processor.Status {
	t.Helper()
	var builds []processor.Status
	for _, p := range GetStatus(t, a).Processors {
		if p.View == view {
			builds = append(builds, p)
		}
	}
	return builds
}

// Rebuilt waits until build is the view's only build, answering, with nothing left to read: it
// took over, and the build it replaced was dropped.
func Rebuilt(t *testing.T, a *API, view, build string) processor.Status {
	t.Helper()
	var s processor.Status
	Eventually(t, 30*time.Second, func() bool {
		builds := Builds(t, a, view)
		if len(builds) != 1 {
			return false
		}
		s = builds[0]
		return s.Name == build && s.State == processor.BuildAnswering && s.Lag == 0
	}, "%s to answer alone, caught up", build)
	return s
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
