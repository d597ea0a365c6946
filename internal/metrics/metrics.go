// Package metrics keeps the service's Prometheus metrics and serves them at GET /metrics in the
// text format.
//
// Every App has its own registry, so that several services in one process (as in the tests)
// never share a count. The other packages don't import Prometheus: each declares a small
// observer interface where it is used (aggregate.Observer, processor.Observer,
// notifications.Observer, httpapi.Options.Observe) and this package implements them.
//
// Label values come only from bounded sets: route patterns (never paths, whose ids would make a
// series per member), known HTTP methods, status codes, command and processor names. What the
// shared database knows (checkpoints, lag, parked events) is read when /metrics is scraped,
// with a short timeout, so the figures are the same on every replica and cost nothing between
// scrapes.
package metrics

import (
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are one service's metrics, on a registry of their own.
type Metrics struct {
	registry *prometheus.Registry
	handler  http.Handler

	requests *prometheus.HistogramVec
	sip      *prometheus.HistogramVec

	commands     *prometheus.CounterVec
	replays      *prometheus.CounterVec
	cacheLookups *prometheus.CounterVec
	cacheBytes   *prometheus.GaugeVec

	leaseHeld     *prometheus.GaugeVec
	leaseAcquired *prometheus.CounterVec
	eventsHandled *prometheus.CounterVec
	failures      *prometheus.CounterVec

	emailsAccepted prometheus.Counter
	emailsSkipped  prometheus.Counter
	emailsDeferred prometheus.Counter
	emailsParked   prometheus.Counter
	emailFailures  *prometheus.CounterVec
	emailsInFlight prometheus.Gauge
	emailSendTime  prometheus.Histogram
	relayUp        prometheus.Gauge
}

// New returns metrics on a new registry that also holds the Go runtime's and the process's
// metrics. logger gets the errors met while serving /metrics; nil discards them.
func New(logger *slog.Logger) *Metrics {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	reg := prometheus.NewRegistry()
	f := factory{reg}
	m := &Metrics{
		registry: reg,
		requests: f.histogramVec(prometheus.HistogramOpts{
			Name:    "library_http_request_duration_seconds",
			Help:    "How long HTTP requests took, by method, route pattern and status.",
			Buckets: prometheus.DefBuckets,
		}, "method", "route", "status"),
		sip: f.histogramVec(prometheus.HistogramOpts{
			Name:    "library_sip_message_duration_seconds",
			Help:    "How long SIP2 messages from kiosks took, by message code and outcome: ok, refused, invalid, failed, resend, resent or closed.",
			Buckets: prometheus.DefBuckets,
		}, "message", "outcome"),
		commands: f.counterVec("library_commands_total",
			"Commands run, by name and outcome: recorded, unchanged, replayed, refused, conflict or failed.",
			"command", "outcome"),
		replays: f.counterVec("library_idempotent_replays_total",
			"Commands answered from the log because their Idempotency-Key had run before.", "command"),
		cacheLookups: f.counterVec("library_aggregate_cache_lookups_total",
			"Aggregates looked for among those this replica keeps in memory, by aggregate type and result: "+
				"hit (no read of the stream before deciding), miss (read from its snapshot and the events after it).",
			"aggregate", "result"),
		cacheBytes: f.gaugeVec("library_aggregate_cache_bytes",
			"An estimate of the bytes the aggregates this replica keeps in memory take (AGGREGATE_CACHE_BYTES bounds it).",
			"aggregate"),
		leaseHeld: f.gaugeVec("library_processor_lease_held",
			"1 while this replica holds the processor's lease and runs it, else 0.", "processor"),
		leaseAcquired: f.counterVec("library_processor_lease_acquired_total",
			"Times this replica took the processor's lease.", "processor"),
		eventsHandled: f.counterVec("library_processor_events_handled_total",
			"Events this replica's processor is done with (handled, skipped or parked).", "processor"),
		failures: f.counterVec("library_processor_failures_total",
			"Failures of this replica's processor: failed attempts at an event, store failures, lost leases.", "processor"),
		emailsAccepted: f.counter("library_emails_accepted_total", "Loan emails the mail relay accepted."),
		emailsSkipped: f.counter("library_emails_skipped_total",
			"Loan emails not sent again because the relay had accepted them before (after a takeover)."),
		emailsDeferred: f.counter("library_emails_deferred_total",
			"Loan emails the relay refused for now (4xx), put off to a later attempt."),
		emailsParked: f.counter("library_emails_parked_total",
			"Loan emails parked: refused for good (5xx), no address, or out of attempts."),
		emailFailures: f.counterVec("library_email_failures_total",
			"Failed attempts to send a loan email, by class (permanent, temporary, relayDown) and reason "+
				"(5xx, 4xx, 421, 454, address, connect, tls, auth, timeout, dropped).", "class", "reason"),
		emailsInFlight: f.gauge("library_emails_in_flight", "Loan emails being sent to the relay right now."),
		emailSendTime: f.histogram(prometheus.HistogramOpts{
			Name:    "library_email_send_duration_seconds",
			Help:    "How long the relay took to accept a loan email, connecting included when it had to.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}),
		relayUp: f.gauge("library_email_relay_up",
			"1 while the mail relay answers, 0 while it can't be reached or takes no mail (sending is paused); "+
				"as this replica last saw it."),
	}
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{
		// One collector failing (the database is down) must not hide the others: /metrics is
		// most wanted while something is wrong.
		ErrorHandling: promhttp.ContinueOnError,
		ErrorLog:      slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		Registry:      reg, // counts its own errors as promhttp_metric_handler_errors_total
	})
	return m
}

// Gatherer is the registry, for tests that read the metrics without HTTP.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.registry }

// Handler serves the metrics in Prometheus' text format.
func (m *Metrics) Handler() http.Handler { return m.handler }

// ObserveRequest records one HTTP request; it is httpapi.Options.Observe. route is the route
// pattern, "" when no route matched.
func (m *Metrics) ObserveRequest(method, route string, status int, elapsed time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(knownMethod(method), route, statusLabel(status)).Observe(elapsed.Seconds())
}

// ObserveSIP records one SIP2 message from a kiosk (kiosk.Options.Observe): its code, as the
// protocol names it ("11"), and its outcome.
func (m *Metrics) ObserveSIP(code, outcome string, elapsed time.Duration) {
	m.sip.WithLabelValues(code, outcome).Observe(elapsed.Seconds())
}

// statusLabel is strconv.Itoa(status), without making the string anew for the statuses the
// service answers most: every request is observed.
func statusLabel(status int) string {
	switch status {
	case http.StatusOK:
		return "200"
	case http.StatusCreated:
		return "201"
	case http.StatusNoContent:
		return "204"
	case http.StatusNotModified:
		return "304"
	case http.StatusBadRequest:
		return "400"
	case http.StatusUnauthorized:
		return "401"
	case http.StatusForbidden:
		return "403"
	case http.StatusNotFound:
		return "404"
	case http.StatusConflict:
		return "409"
	case http.StatusUnprocessableEntity:
		return "422"
	case http.StatusTooManyRequests:
		return "429"
	case http.StatusInternalServerError:
		return "500"
	case http.StatusServiceUnavailable:
		return "503"
	}
	return strconv.Itoa(status)
}

// knownMethod keeps the method label to a fixed set: a client may send any method at all, and
// each new value would be a new series.
func knownMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions:
		return method
	}
	return "other"
}

// factory makes metrics and registers them.
type factory struct{ reg prometheus.Registerer }

func (f factory) histogramVec(opts prometheus.HistogramOpts, labels ...string) *prometheus.HistogramVec {
	v := prometheus.NewHistogramVec(opts, labels)
	f.reg.MustRegister(v)
	return v
}

func (f factory) counterVec(name, help string, labels ...string) *prometheus.CounterVec {
	v := prometheus.NewCounterVec(prometheus.CounterOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(v)
	return v
}

func (f factory) gaugeVec(name, help string, labels ...string) *prometheus.GaugeVec {
	v := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: name, Help: help}, labels)
	f.reg.MustRegister(v)
	return v
}

func (f factory) gauge(name, help string) prometheus.Gauge {
	g := prometheus.NewGauge(prometheus.GaugeOpts{Name: name, Help: help})
	f.reg.MustRegister(g)
	return g
}

func (f factory) histogram(opts prometheus.HistogramOpts) prometheus.Histogram {
	h := prometheus.NewHistogram(opts)
	f.reg.MustRegister(h)
	return h
}

func (f factory) counter(name, help string) prometheus.Counter {
	c := prometheus.NewCounter(prometheus.CounterOpts{Name: name, Help: help})
	f.reg.MustRegister(c)
	return c
}
