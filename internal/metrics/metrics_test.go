package metrics

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/processor"
)

// scrape GETs /metrics as Prometheus would and parses the text format.
func scrape(t *testing.T, m *Metrics) map[string]*dto.MetricFamily {
	t.Helper()
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	require.Equal(t, http.StatusOK, rec.Code, "body: %s", rec.Body)
	require.True(t, strings.HasPrefix(rec.Header().Get("Content-Type"), "text/plain"), rec.Header().Get("Content-Type"))
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(rec.Body)
	require.NoError(t, err)
	return families
}

// value is the value of the series of family name with exactly the given labels (name, value
// pairs); for a histogram, its count. ok is false when there is no such series.
func value(families map[string]*dto.MetricFamily, name string, labels ...string) (v float64, ok bool) {
	f := families[name]
	if f == nil {
		return 0, false
	}
	for _, m := range f.GetMetric() {
		if len(m.GetLabel())*2 != len(labels) {
			continue
		}
		match := true
		for i, l := range m.GetLabel() {
			if l.GetName() != labels[2*i] || l.GetValue() != labels[2*i+1] {
				match = false
			}
		}
		if !match {
			continue
		}
		switch {
		case m.Counter != nil:
			return m.GetCounter().GetValue(), true
		case m.Gauge != nil:
			return m.GetGauge().GetValue(), true
		case m.Histogram != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

func requireValue(t *testing.T, families map[string]*dto.MetricFamily, want float64, name string, labels ...string) {
	t.Helper()
	got, ok := value(families, name, labels...)
	require.True(t, ok, "no series %s%v", name, labels)
	require.Equal(t, want, got, "%s%v", name, labels)
}

func TestRequestsByRoutePatternAndStatus(t *testing.T) {
	t.Parallel()
	m := New(nil)
	m.ObserveRequest(http.MethodPost, "/accounts/{memberId}/payments", 201, 3*time.Millisecond)
	m.ObserveRequest(http.MethodPost, "/accounts/{memberId}/payments", 201, 2*time.Second)
	m.ObserveRequest(http.MethodPost, "/accounts/{memberId}/payments", 409, time.Millisecond)
	m.ObserveRequest("BREW", "", 405, time.Millisecond)
	m.ObserveRequest(http.MethodGet, "", 404, time.Millisecond)

	f := scrape(t, m)
	const name = "library_http_request_duration_seconds"
	require.Equal(t, dto.MetricType_HISTOGRAM, f[name].GetType())
	requireValue(t, f, 2, name, "method", "POST", "route", "/accounts/{memberId}/payments", "status", "201")
	requireValue(t, f, 1, name, "method", "POST", "route", "/accounts/{memberId}/payments", "status", "409")
	requireValue(t, f, 1, name, "method", "other", "route", "unmatched", "status", "405")
	requireValue(t, f, 1, name, "method", "GET", "route", "unmatched", "status", "404")
	for _, s := range f[name].GetMetric() {
		if s.GetLabel()[2].GetValue() == "201" {
			assert.InDelta(t, 2.003, s.GetHistogram().GetSampleSum(), 1e-9, "seconds")
		}
	}
}

func TestCommandsAndReplays(t *testing.T) {
	t.Parallel()
	m := New(nil)
	c := m.Commands()
	c.CommandDone("pay", aggregate.OutcomeRecorded)
	c.CommandDone("pay", aggregate.OutcomeReplayed)
	c.CommandDone("pay", aggregate.OutcomeReplayed)
	c.CommandDone("pay", aggregate.OutcomeRefused)
	c.CommandDone("lendBook", aggregate.OutcomeConflict)

	f := scrape(t, m)
	requireValue(t, f, 1, "library_commands_total", "command", "pay", "outcome", "recorded")
	requireValue(t, f, 2, "library_commands_total", "command", "pay", "outcome", "replayed")
	requireValue(t, f, 1, "library_commands_total", "command", "pay", "outcome", "refused")
	requireValue(t, f, 1, "library_commands_total", "command", "lendBook", "outcome", "conflict")
	requireValue(t, f, 2, "library_idempotent_replays_total", "command", "pay")
	_, ok := value(f, "library_idempotent_replays_total", "command", "lendBook")
	assert.False(t, ok, "only replays are counted")
}

func TestProcessorsAndEmails(t *testing.T) {
	t.Parallel()
	m := New(nil)
	p := m.Processors("catalog", "notifications")

	f := scrape(t, m)
	for _, name := range []string{"catalog", "notifications"} {
		requireValue(t, f, 0, "library_processor_lease_held", "processor", name)
		requireValue(t, f, 0, "library_processor_lease_acquired_total", "processor", name)
		requireValue(t, f, 0, "library_processor_events_handled_total", "processor", name)
		requireValue(t, f, 0, "library_processor_failures_total", "processor", name)
	}
	requireValue(t, f, 0, "library_emails_accepted_total")

	p.LeaseTaken("notifications")
	p.EventsHandled("notifications", 4)
	p.EventsHandled("notifications", 1)
	p.Failed("notifications")
	p.LeaseTaken("catalog")
	p.LeaseReleased("catalog")
	p.LeaseTaken("catalog")
	e := m.Emails()
	e.EmailAccepted(30 * time.Millisecond)
	e.EmailAccepted(300 * time.Millisecond)
	e.EmailSkipped()
	e.EmailFailed("temporary", "4xx")
	e.EmailFailed("relayDown", "connect")
	e.EmailFailed("relayDown", "connect")
	e.EmailDeferred()
	e.EmailParked()
	e.EmailsInFlight(3)
	e.EmailsInFlight(-1)
	e.RelayUp(false)

	f = scrape(t, m)
	requireValue(t, f, 1, "library_processor_lease_held", "processor", "notifications")
	requireValue(t, f, 1, "library_processor_lease_acquired_total", "processor", "notifications")
	requireValue(t, f, 5, "library_processor_events_handled_total", "processor", "notifications")
	requireValue(t, f, 1, "library_processor_failures_total", "processor", "notifications")
	requireValue(t, f, 1, "library_processor_lease_held", "processor", "catalog")
	requireValue(t, f, 2, "library_processor_lease_acquired_total", "processor", "catalog")
	requireValue(t, f, 2, "library_emails_accepted_total")
	requireValue(t, f, 1, "library_emails_skipped_total")
	requireValue(t, f, 1, "library_email_failures_total", "class", "temporary", "reason", "4xx")
	requireValue(t, f, 2, "library_email_failures_total", "class", "relayDown", "reason", "connect")
	requireValue(t, f, 1, "library_emails_deferred_total")
	requireValue(t, f, 1, "library_emails_parked_total")
	requireValue(t, f, 2, "library_emails_in_flight")
	requireValue(t, f, 0, "library_email_relay_up")
	sendTime := f["library_email_send_duration_seconds"].GetMetric()[0].GetHistogram()
	assert.Equal(t, uint64(2), sendTime.GetSampleCount())
	assert.InDelta(t, 0.33, sendTime.GetSampleSum(), 1e-9)
	e.RelayUp(true)
	requireValue(t, scrape(t, m), 1, "library_email_relay_up")
}

// The store's figures are read at scrape time; when the store can't be read, the scrape still
// serves everything else.
func TestWatchProcessorsReadsTheStoreAtScrapeTime(t *testing.T) {
	t.Parallel()
	m := New(nil)
	m.Processors("notifications").LeaseTaken("notifications")
	statuses := []processor.Status{{Name: "catalog", Checkpoint: 7, Lag: 0},
		{Name: "notifications", Checkpoint: 5, Lag: 2, Parked: 1, Deferred: 3, InFlight: 4}}
	var fail error
	var deadline time.Time
	m.WatchProcessors(func(ctx context.Context) ([]processor.Status, error) {
		deadline, _ = ctx.Deadline()
		return statuses, fail
	}, time.Second)

	f := scrape(t, m)
	assert.WithinDuration(t, time.Now().Add(time.Second), deadline, time.Second, "the reading is bounded")
	requireValue(t, f, 7, "library_processor_checkpoint", "processor", "catalog")
	requireValue(t, f, 0, "library_processor_lag", "processor", "catalog")
	requireValue(t, f, 0, "library_processor_parked", "processor", "catalog")
	requireValue(t, f, 5, "library_processor_checkpoint", "processor", "notifications")
	requireValue(t, f, 2, "library_processor_lag", "processor", "notifications")
	requireValue(t, f, 1, "library_processor_parked", "processor", "notifications")
	requireValue(t, f, 3, "library_processor_deferred", "processor", "notifications")
	requireValue(t, f, 4, "library_processor_in_flight", "processor", "notifications")

	_, ok := value(f, "library_processor_timers_waiting", "processor", "notifications")
	assert.False(t, ok, "a processor that fires no timers has no timer series")

	statuses[1].Lag = 0
	f = scrape(t, m)
	requireValue(t, f, 0, "library_processor_lag", "processor", "notifications")

	fail = errors.New("the database is unavailable")
	f = scrape(t, m)
	_, ok = value(f, "library_processor_lag", "processor", "notifications")
	assert.False(t, ok, "no figure rather than a stale one")
	requireValue(t, f, 1, "library_processor_lease_held", "processor", "notifications")
	f = scrape(t, m) // the handler counts a failed gathering after serving it
	requireValue(t, f, 1, "promhttp_metric_handler_errors_total", "cause", "gathering")
}

// A processor that fires timers shows how many wait and fail, how long until the next is due
// (only while one waits), and how overdue the oldest is.
func TestWatchProcessorsShowsTimers(t *testing.T) {
	t.Parallel()
	m := New(nil)
	next, in := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC), 12.5
	statuses := []processor.Status{{Name: "checkouts", Timers: &processor.TimerStatus{Waiting: 3, Failing: 1,
		NextDue: &next, NextDueSeconds: &in, OldestOverdueSeconds: 2.25}}}
	m.WatchProcessors(func(context.Context) ([]processor.Status, error) { return statuses, nil }, time.Second)
	f := scrape(t, m)
	requireValue(t, f, 3, "library_processor_timers_waiting", "processor", "checkouts")
	requireValue(t, f, 1, "library_processor_timers_failing", "processor", "checkouts")
	requireValue(t, f, 12.5, "library_processor_timer_next_due_seconds", "processor", "checkouts")
	requireValue(t, f, 2.25, "library_processor_timer_oldest_overdue_seconds", "processor", "checkouts")

	statuses[0].Timers = &processor.TimerStatus{}
	f = scrape(t, m)
	requireValue(t, f, 0, "library_processor_timers_waiting", "processor", "checkouts")
	requireValue(t, f, 0, "library_processor_timer_oldest_overdue_seconds", "processor", "checkouts")
	_, ok := value(f, "library_processor_timer_next_due_seconds", "processor", "checkouts")
	assert.False(t, ok, "nothing is due when nothing waits")
}

// Each Metrics has its own registry: two services in one process count apart, and the Go
// runtime and process metrics are on each.
func TestEachMetricsHasItsOwnRegistry(t *testing.T) {
	t.Parallel()
	a, b := New(nil), New(nil)
	a.Emails().EmailAccepted(time.Millisecond)
	fa, fb := scrape(t, a), scrape(t, b)
	requireValue(t, fa, 1, "library_emails_accepted_total")
	requireValue(t, fb, 0, "library_emails_accepted_total")
	for _, f := range []map[string]*dto.MetricFamily{fa, fb} {
		assert.Contains(t, f, "go_goroutines")
		assert.Contains(t, f, "process_start_time_seconds")
	}
}

// A status's label is its number, whichever statuses are spelled out for speed.
func TestStatusLabelIsTheNumber(t *testing.T) {
	t.Parallel()
	for status := 100; status < 600; status++ {
		if got := statusLabel(status); got != strconv.Itoa(status) {
			t.Fatalf("statusLabel(%d) = %q", status, got)
		}
	}
}
