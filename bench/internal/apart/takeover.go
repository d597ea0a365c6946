package apart

import (
	"context"
	"fmt"
	"slices"
	"syscall"
	"time"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/measure"
	"library/bench/internal/workload"
)

// The takeover measurement: two processes of the service on a database of their own and the
// SMTP sink. The first to start holds every lease; the outbox's holder is signalled, a book is
// lent through the other right away, and the time from the signal to the sink accepting that
// loan's email is measured. Each round starts a fresh pair on the same database.

// TakeoverRounds is how many rounds each signal gets.
const TakeoverRounds = 5

// TakeoverResult is one signal's rounds.
type TakeoverResult struct {
	Signal      string
	Times       []time.Duration // sorted
	Median, Max time.Duration
}

// Takeover measures how long a standby takes to send a loan's email after the holder of the
// leases is signalled, SIGKILL and SIGTERM, TakeoverRounds rounds each.
func Takeover(ctx context.Context, bin, databaseURL string, sink *environment.SMTPSink) ([]TakeoverResult, error) {
	var results []TakeoverResult
	book := 0
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		res := TakeoverResult{Signal: sig.String()}
		for round := range TakeoverRounds {
			d, err := takeoverOnce(ctx, bin, databaseURL, sink, sig, round, &book)
			if err != nil {
				return nil, fmt.Errorf("%s, round %d: %w", sig, round+1, err)
			}
			environment.Logf("takeover after %s, round %d: %s", sig, round+1, figures.FormatLatency(d))
			res.Times = append(res.Times, d)
		}
		slices.Sort(res.Times)
		res.Median, res.Max = res.Times[len(res.Times)/2], res.Times[len(res.Times)-1]
		results = append(results, res)
	}
	return results, nil
}

func takeoverOnce(ctx context.Context, bin, databaseURL string, sink *environment.SMTPSink, sig syscall.Signal, round int, book *int) (time.Duration, error) {
	env := []string{"SMTP_URL=" + sink.URL()}
	holder, err := environment.StartService(ctx, bin, databaseURL, append(env, fmt.Sprintf("REPLICA_ID=holder-%d", round))...)
	if err != nil {
		return 0, err
	}
	defer holder.Wait(30 * time.Second)
	defer func() { _ = holder.Signal(syscall.SIGKILL) }() // on an early return
	if err := holder.AwaitLeases(ctx, 15*time.Second, environment.Processors()...); err != nil {
		return 0, fmt.Errorf("the first process: %w", err)
	}
	standby, err := environment.StartService(ctx, bin, databaseURL, append(env, fmt.Sprintf("REPLICA_ID=standby-%d", round))...)
	if err != nil {
		return 0, err
	}
	defer func() { _ = standby.Stop(context.WithoutCancel(ctx)) }()
	if standby.HoldsLeases(ctx, "notifications") {
		return 0, fmt.Errorf("the standby holds the outbox's lease before the holder was signalled")
	}

	api := workload.NewClient(standby.BaseURL, 1)
	defer api.HTTP.CloseIdleConnections()
	if err := api.OpenMember(ctx, measure.OutboxMember); err != nil {
		return 0, err
	}
	lendOne := func() (int64, error) {
		*book++
		id := fmt.Sprintf("takeover-%d", *book)
		if err := api.AddBook(ctx, id); err != nil {
			return 0, err
		}
		position, _, err := api.Lend(ctx, id, measure.OutboxMember)
		return position, err
	}
	// A loan whose email the holder sends: it is at work.
	position, err := lendOne()
	if err != nil {
		return 0, err
	}
	if _, err := sink.Wait(ctx, position, 10*time.Second); err != nil {
		return 0, fmt.Errorf("the holder's email: %w", err)
	}

	if err := holder.Signal(sig); err != nil {
		return 0, err
	}
	signalled := time.Now()
	position, err = lendOne()
	if err != nil {
		return 0, fmt.Errorf("lending through the standby: %w", err)
	}
	accepted, err := sink.Wait(ctx, position, 30*time.Second)
	if err != nil {
		return 0, fmt.Errorf("the standby's email: %w", err)
	}
	return accepted.Sub(signalled), nil
}
