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

// GetStatus is the replica's GET /status. A 503 Unavailable (the database slow to answer its
// reads, on a loaded machine) is asked again, as a client told Retry-After would, for up to
// half a minute.
func GetStatus(t *testing.T, a *API) StatusView {
	t.Helper()
	r := a.Get(t, "/status")
	for deadline := time.Now().Add(30 * time.Second); r.Status == http.StatusServiceUnavailable && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond) // as Retry-After asks, bounded by the deadline
		r = a.Get(t, "/status")
	}
	var s StatusView
	RequireJSON(t, r, &s)
	return s
}

// ProcessorStatus is one processor's line of GET /status; the test fails without it. A view
// model's name stands for its build that answers (view@n once a new version of its code has
// been built), as it does in the admin routes.
func ProcessorStatus(t *testing.T, a *API, name string) processor.Status {
	t.Helper()
	status := GetStatus(t, a).Processors
	for _, p := range status {
		if p.View == name && p.State == processor.BuildAnswering {
			return p
		}
	}
	for _, p := range status {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("/status has no processor %s", name)
	return processor.Status{}
}

// BuildName is the name /status and the metrics give the processor name: for a view model,
// its build that answers.
func BuildName(t *testing.T, a *API, name string) string {
	t.Helper()
	return ProcessorStatus(t, a, name).Name
}

// CaughtUp waits until the named processor has handled every event in the log.
func CaughtUp(t *testing.T, a *API, name string) processor.Status {
	t.Helper()
	var s processor.Status
	Eventually(t, 30*time.Second, func() bool {
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
