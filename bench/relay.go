package main

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// The relay measurement: the outbox against a relay that is slow to answer, and against one
// that comes back after an outage with a backlog waiting. A service process of its own, at its
// default settings (SMTP_MAX_IN_FLIGHT unset: 16 emails in flight), on a database of its own,
// sends to a sink of its own, so that no other measurement's emails are counted.
//
//   - Slow relay: the sink waits slowRelayDelay before each 250 to DATA, as a provider some way
//     off does. One email at a time would manage 10 a second; the rate, from the first loan's
//     201 to the last email, shows how many the service really keeps in flight.
//   - Backlog: the sink answers every MAIL FROM with 421 while backlogLoans loans are made, so
//     the outbox pauses and they pile up; then it accepts again at once. The drain is timed from
//     the first email after the switch to the last (the pace of sending the backlog), and from
//     the switch itself, which adds the outbox's backoff before its next probe (at most 5 s).

const (
	relayLenders    = 8
	slowRelayLoans  = 500
	slowRelayDelay  = 100 * time.Millisecond
	backlogLoans    = 3000
	relayEmailsWait = 2 * time.Minute // the most to wait for one run's emails, in all
)

// relayRun is one run's loans and their emails.
type relayRun struct {
	Loans             int // loans made (each one email)
	Errors            int
	FirstError        string
	Span              time.Duration // what the rate is over
	EmailsPerSecond   float64
	MostConversations int // most mail transactions open at once in the sink
	Duplicates        int // messages accepted more than once
	Missing           int // loans whose email did not arrive
}

// relayResult is what the relay measurement found.
type relayResult struct {
	Slow relayRun // first loan's 201 to the last email, slowRelayDelay per message
	// Drain is the backlog from the first email after the relay came back to the last.
	Drain relayRun
	// Resumed is from the relay coming back to its first email: the outbox's backoff.
	Resumed time.Duration
	// FromSwitch and FromSwitchPerSecond are from the relay coming back to the last email.
	FromSwitch          time.Duration
	FromSwitchPerSecond float64
}

func measureRelay(ctx context.Context, bin, databaseURL string) (relayResult, error) {
	var res relayResult
	sink, err := startSMTPSink()
	if err != nil {
		return res, err
	}
	defer sink.close()
	svc, err := startService(ctx, bin, databaseURL, "SMTP_URL="+sink.URL())
	if err != nil {
		return res, err
	}
	defer func() {
		if err := svc.Stop(context.WithoutCancel(ctx)); err != nil {
			logf("stopping the relay's service: %v", err)
		}
	}()
	deadline := time.Now().Add(15 * time.Second)
	for !svc.holdsLeases(ctx, "notifications") {
		if time.Now().After(deadline) {
			return res, fmt.Errorf("the service did not hold the outbox's lease within 15s: %s", svc.output())
		}
		time.Sleep(10 * time.Millisecond) // polling /status, bounded by the deadline
	}
	api := newAPIClient(svc.BaseURL, relayLenders)
	defer api.http.CloseIdleConnections()
	if err := api.openMember(ctx, outboxMember); err != nil {
		return res, err
	}

	if res.Slow, err = slowRelay(ctx, api, sink); err != nil {
		return res, fmt.Errorf("slow relay: %w", err)
	}
	logf("relay: %d emails at %s per message, %.0f /s", res.Slow.Loans, slowRelayDelay, res.Slow.EmailsPerSecond)
	if err := drainBacklog(ctx, api, sink, &res); err != nil {
		return res, fmt.Errorf("backlog: %w", err)
	}
	logf("relay: a backlog of %d emails drained at %.0f /s", res.Drain.Loans, res.Drain.EmailsPerSecond)
	return res, nil
}

// slowRelay lends slowRelayLoans books with the sink slowRelayDelay away.
func slowRelay(ctx context.Context, api *apiClient, sink *smtpSink) (relayRun, error) {
	sink.setDelay(slowRelayDelay)
	defer sink.setDelay(0)
	if err := addBooks(ctx, api, "relay-slow", relayLenders, perLender(slowRelayLoans)); err != nil {
		return relayRun{}, err
	}
	sink.resetPeak()
	before := sink.Count()
	made, err := lendMany(ctx, api, "relay-slow", slowRelayLoans)
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

// drainBacklog lends backlogLoans books while the sink answers 421, then brings it back.
func drainBacklog(ctx context.Context, api *apiClient, sink *smtpSink, res *relayResult) error {
	if err := addBooks(ctx, api, "relay-backlog", relayLenders, perLender(backlogLoans)); err != nil {
		return err
	}
	sink.setDown(true)
	defer sink.setDown(false)
	before := sink.Count()
	made, err := lendMany(ctx, api, "relay-backlog", backlogLoans)
	res.Drain = made.run
	if err != nil {
		return err
	}
	sink.resetPeak()
	sink.setDown(false)
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
func (r *relayRun) rate(span time.Duration, sink *smtpSink, before int) {
	arrived := r.Loans - r.Missing
	r.Span = span
	if span > 0 {
		r.EmailsPerSecond = float64(arrived) / span.Seconds()
	}
	r.MostConversations = sink.peak()
	r.Duplicates = max(0, sink.Count()-before-arrived)
}

func perLender(loans int) int { return (loans + relayLenders - 1) / relayLenders }

// madeLoans is what lendMany lent: the BookLent positions and the first 201.
type madeLoans struct {
	run       relayRun
	positions []int64
	first     time.Time
}

// lendMany makes n loans with relayLenders lenders, each lending its own books of the set
// prefix (added beforehand) one after another, as fast as the service takes them.
func lendMany(ctx context.Context, api *apiClient, prefix string, n int) (madeLoans, error) {
	type lent struct {
		positions []int64
		first     time.Time
		errors    int
		firstErr  error
	}
	lenders := make([]lent, relayLenders)
	var wg sync.WaitGroup
	for w := range relayLenders {
		wg.Go(func() {
			l := &lenders[w]
			for i := 0; i*relayLenders+w < n && ctx.Err() == nil; i++ {
				position, committed, err := api.lend(ctx, loadBook(prefix, w, i), outboxMember)
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
func awaitEmails(ctx context.Context, sink *smtpSink, positions []int64, run *relayRun) (first, last time.Time, err error) {
	deadline := time.Now().Add(relayEmailsWait)
	for _, p := range positions {
		accepted, err := sink.wait(ctx, p, time.Until(deadline))
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

// relaySection is the slow relay's and the backlog's figures.
func (r report) relaySection() section {
	slow, drain := r.Relay.Slow, r.Relay.Drain
	s := section{
		title: "Slow relay and backlog",
		notes: []string{
			fmt.Sprintf("A service process of its own, at its default settings (up to 16 emails in flight), on a database of its own, sending to an SMTP server of its own. *Slow relay*: the server waits %s before each `250` to DATA, as a provider some way off answers; %d lenders make %d loans of books added beforehand, as fast as the service takes them, and the time is from the first loan's `201` to the last email. *Backlog*: the server answers every MAIL FROM with `421 4.3.2` while %d loans are made, so the outbox pauses and they pile up; then it accepts again, without delay. *first email to last* is the pace of sending the backlog; *relay back to last email* adds the wait for the outbox's next probe (its backoff doubles from 100 ms to at most 5 s): here the first email came %s after the relay was back. *most conversations at once* is the most mail transactions (MAIL FROM to the end of DATA) the server had open at once.",
				formatLatency(slowRelayDelay), relayLenders, slowRelayLoans, backlogLoans, formatLatency(r.Relay.Resumed)),
		},
		align:  "|---|--:|--:|--:|--:|--:|--:|",
		header: []string{"run", "loans", "seconds", "emails/s", "most conversations at once", "duplicates", "missing"},
	}
	row := func(run string, x relayRun, span time.Duration, rate float64) {
		loans := fmt.Sprint(x.Loans)
		if x.Errors > 0 {
			loans += fmt.Sprintf(" (%d errors)", x.Errors)
		}
		s.rows = append(s.rows, []string{run, loans, fmt.Sprintf("%.2f", span.Seconds()), fmt.Sprintf("%.0f", rate),
			fmt.Sprint(x.MostConversations), fmt.Sprint(x.Duplicates), fmt.Sprint(x.Missing)})
	}
	row(fmt.Sprintf("slow relay, %s per message: first loan to last email", formatLatency(slowRelayDelay)), slow, slow.Span, slow.EmailsPerSecond)
	row("backlog, 0 ms: first email to last", drain, drain.Span, drain.EmailsPerSecond)
	row("backlog, 0 ms: relay back to last email", drain, r.Relay.FromSwitch, r.Relay.FromSwitchPerSecond)
	for _, x := range []relayRun{slow, drain} {
		if x.FirstError != "" {
			s.notes = append(s.notes, "First error: `"+x.FirstError+"`")
		}
	}
	return s
}
