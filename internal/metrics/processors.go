package metrics

import (
	"context"
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"library/internal/processor"
)

// StatusFunc reports on every processor from the shared store: engine.Group.Status.
type StatusFunc func(ctx context.Context) ([]processor.Status, error)

// DefaultStatusTimeout bounds the store queries of one scrape.
const DefaultStatusTimeout = 2 * time.Second

// WatchProcessors adds the figures of the shared store to every scrape: each processor's
// checkpoint, lag, parked and deferred events, and the events this replica has in flight; and,
// for a processor that fires timers, its timers: how many wait and fail, how long until the
// next is due and how overdue the oldest is. They are read at scrape time (Group.Status is one
// query for the head and four or five per processor) rather than kept up to date by the
// runners, so that a standby, which runs nothing, shows the same figures as the holder, and
// nothing is read between scrapes. timeout (default DefaultStatusTimeout) bounds the reading; when it fails, those
// series are left out of the scrape and the error is logged, while the rest are served.
func (m *Metrics) WatchProcessors(status StatusFunc, timeout time.Duration) {
	if timeout <= 0 {
		timeout = DefaultStatusTimeout
	}
	m.registry.MustRegister(&processorCollector{
		status:  status,
		timeout: timeout,
		checkpoint: prometheus.NewDesc("library_processor_checkpoint",
			"Position of the last event the processor handled (0: none yet).", []string{"processor"}, nil),
		lag: prometheus.NewDesc("library_processor_lag",
			"Events in the log that the processor has still to handle, counted up to 10,000.", []string{"processor"}, nil),
		parked: prometheus.NewDesc("library_processor_parked",
			"Events the processor parked and that wait for retry-parked.", []string{"processor"}, nil),
		deferred: prometheus.NewDesc("library_processor_deferred",
			"Events that failed for now and wait for their next attempt.", []string{"processor"}, nil),
		inFlight: prometheus.NewDesc("library_processor_in_flight",
			"Events this replica's processor is handling right now.", []string{"processor"}, nil),
		timers: timerDescs{
			waiting: prometheus.NewDesc("library_processor_timers_waiting",
				"Timers the processor scheduled that have not fired yet.", []string{"processor"}, nil),
			failing: prometheus.NewDesc("library_processor_timers_failing",
				"Waiting timers whose last fire failed.", []string{"processor"}, nil),
			nextDue: prometheus.NewDesc("library_processor_timer_next_due_seconds",
				"Seconds until the processor's next timer is due, by the database's clock (0: one is due); absent when none waits.",
				[]string{"processor"}, nil),
			overdue: prometheus.NewDesc("library_processor_timer_oldest_overdue_seconds",
				"How long past its time the processor's most overdue timer is (0: none is).", []string{"processor"}, nil),
		},
	})
}

type processorCollector struct {
	status                                      StatusFunc
	timeout                                     time.Duration
	checkpoint, lag, parked, deferred, inFlight *prometheus.Desc
	timers                                      timerDescs
}

// timerDescs are the series of a processor's timers.
type timerDescs struct{ waiting, failing, nextDue, overdue *prometheus.Desc }

func (c *processorCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- c.checkpoint
	ch <- c.lag
	ch <- c.parked
	ch <- c.deferred
	ch <- c.inFlight
	ch <- c.timers.waiting
	ch <- c.timers.failing
	ch <- c.timers.nextDue
	ch <- c.timers.overdue
}

func (c *processorCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	statuses, err := c.status(ctx)
	if err != nil {
		// The handler logs it and serves the other metrics (ContinueOnError).
		ch <- prometheus.NewInvalidMetric(c.checkpoint, fmt.Errorf("processor status: %w", err))
		return
	}
	for _, s := range statuses {
		ch <- prometheus.MustNewConstMetric(c.checkpoint, prometheus.GaugeValue, float64(s.Checkpoint), s.Name)
		ch <- prometheus.MustNewConstMetric(c.lag, prometheus.GaugeValue, float64(s.Lag), s.Name)
		ch <- prometheus.MustNewConstMetric(c.parked, prometheus.GaugeValue, float64(s.Parked), s.Name)
		ch <- prometheus.MustNewConstMetric(c.deferred, prometheus.GaugeValue, float64(s.Deferred), s.Name)
		ch <- prometheus.MustNewConstMetric(c.inFlight, prometheus.GaugeValue, float64(s.InFlight), s.Name)
		if t := s.Timers; t != nil {
			ch <- prometheus.MustNewConstMetric(c.timers.waiting, prometheus.GaugeValue, float64(t.Waiting), s.Name)
			ch <- prometheus.MustNewConstMetric(c.timers.failing, prometheus.GaugeValue, float64(t.Failing), s.Name)
			ch <- prometheus.MustNewConstMetric(c.timers.overdue, prometheus.GaugeValue, t.OldestOverdueSeconds, s.Name)
			if t.NextDueSeconds != nil {
				ch <- prometheus.MustNewConstMetric(c.timers.nextDue, prometheus.GaugeValue, *t.NextDueSeconds, s.Name)
			}
		}
	}
}

// HorizonFunc reports on the log's read horizon: engine.Group.ReadHorizon.
type HorizonFunc func(ctx context.Context) (processor.HorizonStatus, error)

// WatchHorizon adds library_read_horizon_stall_seconds to every scrape: how long the log's read
// horizon has been held back by a transaction still open somewhere in the PostgreSQL cluster,
// 0 when it isn't. It is read at scrape time, within timeout (default DefaultStatusTimeout).
func (m *Metrics) WatchHorizon(horizon HorizonFunc, timeout time.Duration) {
	if timeout <= 0 {
		timeout = DefaultStatusTimeout
	}
	desc := prometheus.NewDesc("library_read_horizon_stall_seconds",
		"How long the log's read horizon has been held back by a transaction open somewhere in the PostgreSQL cluster "+
			"(processors read no new event meanwhile); 0 when it isn't.", nil, nil)
	m.registry.MustRegister(&horizonCollector{horizon: horizon, timeout: timeout, desc: desc})
}

type horizonCollector struct {
	horizon HorizonFunc
	timeout time.Duration
	desc    *prometheus.Desc
}

func (c *horizonCollector) Describe(ch chan<- *prometheus.Desc) { ch <- c.desc }

func (c *horizonCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	h, err := c.horizon(ctx)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(c.desc, fmt.Errorf("read horizon: %w", err))
		return
	}
	ch <- prometheus.MustNewConstMetric(c.desc, prometheus.GaugeValue, h.Seconds)
}
