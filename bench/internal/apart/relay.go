package apart

import (
	"context"
	"fmt"
	"sync"
	"time"

	"library/bench/internal/environment"
	"library/bench/internal/measure"
	"library/bench/internal/workload"
)

// The relay measurement: the outbox against a relay that is slow to answer, and against one
// that comes back after an outage with a backlog waiting. A service process of its own, at its
// default settings (SMTP_MAX_IN_FLIGHT unset: 16 emails in flight), on a database of its own,
// sends to a sink of its own, so that no other measurement's emails are counted.
//
//   - Slow relay: the sink waits SlowRelayDelay before each 250 to DATA, as a provider some way
//     off does. One email at a time would manage 10 a second; the rate, from the first loan's
//     201 to the last email, shows how many the service really keeps in flight.
//   - Backlog: the sink answers every MAIL FROM with 421 while BacklogLoans loans are made, so
//     the outbox pauses and they pile up; then it accepts again at once. The drain is timed from
//     the first email after the switch to the last (the pace of sending the backlog), and from
//     the switch itself, which adds the outbox's backoff before its next probe (at most 5 s).
//
// The sizes and labels of the measurement:
const (
	RelayLenders    = 8
	SlowRelayLoans  = 500
	SlowRelayDelay  = 100 * time.Millisecond
	BacklogLoans    = 3000
	relayEmailsWait = 2 * time.Minute // the most to wait for one run's emails, in all
)

// RelayRun is one run's loans and their emails.
type RelayRun struct {
	Loans             int // loans made (each one email)
	Errors            int
	FirstError        string
	Span              time.Duration // what the rate is over
	EmailsPerSecond   float64
	MostConversations int // most mail transactions open at once in the sink
	Duplicates        int // messages accepted more than once
	Missing           int // loans whose email did not arrive
}

// RelayResult is what the relay measurement found.
type RelayResult struct {
	Slow RelayRun // first loan's 201 to the last email, SlowRelayDelay per message
	// Drain is the backlog from the first email after the relay came back to the last.
	Drain RelayRun
	// Resumed is from the relay coming back to its first email: the outbox's backoff.
	Resumed time.Duration
	// FromSwitch and FromSwitchPerSecond are from the relay coming back to the last email.
	FromSwitch          time.Duration
	FromSwitchPerSecond float64
}

// Relay measures the outbox against a slow relay, then its drain of a backlog after an
// outage, with a service process of its own on the database at databaseURL.
func Relay(ctx context.Context, bin, databaseURL string) (RelayResult, error) {
	var res RelayResult
	svc, sink, stop, err := environment.StartWithSink(ctx, bin, databaseURL, "the relay's service")
	if err != nil {
		return res, err
	}
	defer stop()
	if err := svc.AwaitLeases(ctx, 15*time.Second, "notifications"); err != nil {
		return res, err
	}
	api := workload.NewClient(svc.BaseURL, RelayLenders)
	defer api.HTTP.CloseIdleConnections()
	if err := api.OpenMember(ctx, measure.OutboxMember); err != nil {
		return res, err
	}

	if res.Slow, err = slowRelay(ctx, api, sink); err != nil {
		return res, fmt.Errorf("slow relay: %w", err)
	}
	environment.Logf("relay: %d emails at %s per message, %.0f /s", res.Slow.Loans, SlowRelayDelay, res.Slow.EmailsPerSecond)
	if err := drainBacklog(ctx, api, sink, &res); err != nil {
		return res, fmt.Errorf("backlog: %w", err)
	}
	environment.Logf("relay: a backlog of %d emails drained at %.0f /s", res.Drain.Loans, res.Drain.EmailsPerSecond)
	return res, nil
}

// slowRelay lends SlowRelayLoans books with the sink SlowRelayDelay away.
func slowRelay(ctx context.Context, api *workload.Client, sink *environment.SMTPSink) (RelayRun, error) {
	sink.SetDelay(SlowRelayDelay)
	defer sink.SetDelay(0)
	if err := measure.AddBooks(ctx, api, "relay-slow", RelayLenders, perLender(SlowRelayLoans)); err != nil {
		return RelayRun{}, err
	}
	sink.ResetPeak()
	before := sink.Count()
	made, err := lendMany(ctx, api, "relay-slow", SlowRelayLoans)
	if err != nil {
		return made.run, err
	}
	_, last, err := awaitEmails(ctx, sink, made.positions, &made.run)
	if err != nil {
		return made.run, err
	}
	made.run.rate(last.Sub(made.first), sink, before)
	return made.run, nil
}

// drainBacklog lends BacklogLoans books while the sink answers 421, then brings it back.
func drainBacklog(ctx context.Context, api *workload.Client, sink *environment.SMTPSink, res *RelayResult) error {
	if err := measure.AddBooks(ctx, api, "relay-backlog", RelayLenders, perLender(BacklogLoans)); err != nil {
		return err
	}
	sink.SetDown(true)
	defer sink.SetDown(false)
	before := sink.Count()
	made, err := lendMany(ctx, api, "relay-backlog", BacklogLoans)
	res.Drain = made.run
	if err != nil {
		return err
	}
	sink.ResetPeak()
	sink.SetDown(false)
	up := time.Now()
	first, last, err := awaitEmails(ctx, sink, made.positions, &res.Drain)
	if err != nil {
		return err
	}
	res.Drain.rate(last.Sub(first), sink, before)
	res.Resumed = first.Sub(up)
	res.FromSwitch = last.Sub(up)
	if res.FromSwitch > 0 {
		res.FromSwitchPerSecond = float64(res.Drain.Loans-res.Drain.Missing) / res.FromSwitch.Seconds()
	}
	return nil
}

// rate fills in the span, the emails per second over it, the most conversations and the
// duplicates (messages the sink accepted since before beyond one per loan).
func (r *RelayRun) rate(span time.Duration, sink *environment.SMTPSink, before int) {
	arrived := r.Loans - r.Missing
	r.Span = span
	if span > 0 {
		r.EmailsPerSecond = float64(arrived) / span.Seconds()
	}
	r.MostConversations = sink.Peak()
	r.Duplicates = max(0, sink.Count()-before-arrived)
}

func perLender(loans int) int { return (loans + RelayLenders - 1) / RelayLenders }

// madeLoans is what lendMany lent: the BookLent positions and the first 201.
type madeLoans struct {
	run       RelayRun
	positions []int64
	first     time.Time
}

// lendMany makes n loans with RelayLenders lenders, each lending its own books of the set
// prefix (added beforehand) one after another, as fast as the service takes them.
func lendMany(ctx context.Context, api *workload.Client, prefix string, n int) (madeLoans, error) {
	type lent struct {
		positions []int64
		first     time.Time
		errors    int
		firstErr  error
	}
	lenders := make([]lent, RelayLenders)
	var wg sync.WaitGroup
	for w := range RelayLenders {
		wg.Go(func() {
			l := &lenders[w]
			for i := 0; i*RelayLenders+w < n && ctx.Err() == nil; i++ {
				position, committed, err := api.Lend(ctx, measure.LoadBook(prefix, w, i), measure.OutboxMember)
				if err != nil {
					l.errors++
					if l.firstErr == nil {
						l.firstErr = err
					}
					continue
				}
				if l.first.IsZero() {
					l.first = committed
				}
				l.positions = append(l.positions, position)
			}
		})
	}
	wg.Wait()
	var made madeLoans
	for _, l := range lenders {
		made.positions = append(made.positions, l.positions...)
		made.run.Errors += l.errors
		if l.firstErr != nil && made.run.FirstError == "" {
			made.run.FirstError = l.firstErr.Error()
		}
		if !l.first.IsZero() && (made.first.IsZero() || l.first.Before(made.first)) {
			made.first = l.first
		}
	}
	made.run.Loans = len(made.positions)
	if err := ctx.Err(); err != nil {
		return made, err
	}
	if made.run.Loans == 0 {
		return made, fmt.Errorf("no loan was made: %s", made.run.FirstError)
	}
	return made, nil
}

// awaitEmails waits for every loan's email, up to relayEmailsWait in all, counts in run those
// that did not arrive, and returns the first and last acceptance.
func awaitEmails(ctx context.Context, sink *environment.SMTPSink, positions []int64, run *RelayRun) (first, last time.Time, err error) {
	deadline := time.Now().Add(relayEmailsWait)
	for _, p := range positions {
		accepted, err := sink.Wait(ctx, p, time.Until(deadline))
		if err != nil {
			if ctx.Err() != nil {
				return first, last, ctx.Err()
			}
			run.Missing++
			continue
		}
		if first.IsZero() || accepted.Before(first) {
			first = accepted
		}
		if accepted.After(last) {
			last = accepted
		}
	}
	if last.IsZero() {
		return first, last, fmt.Errorf("none of %d emails arrived within %s", len(positions), relayEmailsWait)
	}
	return first, last, nil
}
