package processorhttp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/auth"
	"library/internal/eventstore"
	"library/internal/httpapi"
	"library/internal/processor"
	"library/internal/testkit/drivertest"
)

// reminders schedules two reminders for each event, an hour away, and fires none before then.
type reminders struct{}

func (reminders) Handle(ctx context.Context, _ eventstore.Event) error {
	for _, key := range []string{"reminder:book-dune:loan-1", "overdue:book-dune:loan-1"} {
		if err := processor.Schedule(ctx, key, time.Now().Add(time.Hour), map[string]string{"memberId": "m-erin"}); err != nil {
			return err
		}
	}
	return nil
}

func (reminders) Fire(context.Context, processor.Timer) error { return nil }

// /status shows a processor's timers (how many wait and fail, the next due, the oldest
// overdue) and never a timer's key or data; a processor that fires none shows no timers.
func TestHTTPStatusShowsTimers(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	g := startGroup(t, env.config(), saga("reminders", reminders{}), saga("fines", drivertest.NewRecorder(nil)))
	drivertest.AppendEvents(t, env.store, "loan", 1)
	h := httpapi.New(httpapi.Options{Logger: discardLogger(), Guard: auth.NewGuard(nil, adminToken)}, Routes{Group: g, Replica: "replica-a"})
	var body struct {
		Processors []map[string]json.RawMessage `json:"processors"`
	}
	var timers struct {
		Waiting              int        `json:"waiting"`
		Failing              int        `json:"failing"`
		NextDue              *time.Time `json:"nextDue"`
		NextDueSeconds       *float64   `json:"nextDueSeconds"`
		OldestOverdueSeconds *float64   `json:"oldestOverdueSeconds"`
	}
	var w *httptest.ResponseRecorder
	drivertest.Eventually(t, 5*time.Second, func() bool {
		w = serve(h, http.MethodGet, "/status", "")
		require.Equal(t, http.StatusOK, w.Code)
		require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
		require.Contains(t, body.Processors[0], "timers", "reminders fires timers")
		require.NoError(t, json.Unmarshal(body.Processors[0]["timers"], &timers))
		return timers.Waiting == 2
	}, "the reminders are scheduled")
	require.NotContains(t, w.Body.String(), "book-dune", "no key")
	require.NotContains(t, w.Body.String(), "m-erin", "no data")
	require.Equal(t, 2, timers.Waiting)
	require.Zero(t, timers.Failing)
	require.WithinDuration(t, time.Now().Add(time.Hour), *timers.NextDue, time.Minute)
	require.InDelta(t, time.Hour.Seconds(), *timers.NextDueSeconds, 60)
	require.Equal(t, 0.0, *timers.OldestOverdueSeconds)
	require.NotContains(t, body.Processors[1], "timers", "fines fires no timers")
}
