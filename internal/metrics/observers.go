package metrics

import (
	"time"

	"library/internal/aggregate"
	"library/internal/notifications"
	"library/internal/processor"
)

// Commands is the observer of aggregate repositories: library_commands_total and
// library_idempotent_replays_total.
func (m *Metrics) Commands() aggregate.Observer { return commandObserver{m} }

type commandObserver struct{ m *Metrics }

func (o commandObserver) CacheLookup(aggregateType string, hit bool, bytes int) {
	result := "miss"
	if hit {
		result = "hit"
	}
	o.m.cacheLookups.WithLabelValues(aggregateType, result).Inc()
	o.m.cacheBytes.WithLabelValues(aggregateType).Set(float64(bytes))
}

func (o commandObserver) CommandDone(command string, outcome aggregate.Outcome) {
	o.m.commands.WithLabelValues(command, string(outcome)).Inc()
	if outcome == aggregate.OutcomeReplayed {
		o.m.replays.WithLabelValues(command).Inc()
	}
}

// Processors is the observer of this replica's processor runners. The named processors start
// at zero, so that their series exist (lease held 0) before anything happens to them.
func (m *Metrics) Processors(names ...string) processor.Observer {
	for _, name := range names {
		m.leaseHeld.WithLabelValues(name).Set(0)
		m.leaseAcquired.WithLabelValues(name)
		m.eventsHandled.WithLabelValues(name)
		m.failures.WithLabelValues(name)
	}
	return processorObserver{m}
}

type processorObserver struct{ m *Metrics }

// LeaseTaken also starts the series of a processor not named at the start at zero: a build of
// a view that a keeper began (view@n) has them from its first lease on.
func (o processorObserver) LeaseTaken(name string) {
	o.m.eventsHandled.WithLabelValues(name)
	o.m.failures.WithLabelValues(name)
	o.m.leaseAcquired.WithLabelValues(name).Inc()
	o.m.leaseHeld.WithLabelValues(name).Set(1)
}

func (o processorObserver) LeaseReleased(name string) { o.m.leaseHeld.WithLabelValues(name).Set(0) }

func (o processorObserver) EventsHandled(name string, n int) {
	o.m.eventsHandled.WithLabelValues(name).Add(float64(n))
}

func (o processorObserver) Failed(name string) { o.m.failures.WithLabelValues(name).Inc() }

// Emails is the observer of the loan email outbox.
func (m *Metrics) Emails() notifications.Observer { return emailObserver{m} }

type emailObserver struct{ m *Metrics }

func (o emailObserver) EmailAccepted(took time.Duration) {
	o.m.emailsAccepted.Inc()
	o.m.emailSendTime.Observe(took.Seconds())
}
func (o emailObserver) EmailSkipped()  { o.m.emailsSkipped.Inc() }
func (o emailObserver) EmailDeferred() { o.m.emailsDeferred.Inc() }
func (o emailObserver) EmailParked()   { o.m.emailsParked.Inc() }
func (o emailObserver) EmailFailed(class notifications.FailureClass, reason string) {
	o.m.emailFailures.WithLabelValues(string(class), reason).Inc()
}
func (o emailObserver) EmailsInFlight(delta int) { o.m.emailsInFlight.Add(float64(delta)) }
func (o emailObserver) RelayUp(up bool) {
	if up {
		o.m.relayUp.Set(1)
	} else {
		o.m.relayUp.Set(0)
	}
}
