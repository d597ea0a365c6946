package holdcell

import (
	"context"
	"fmt"
	"slices"
	"time"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/workload"
)

// The title holds measurement (issue 39): a title with HoldsQueue members waiting and
// HoldsCopies copies, all lent, on a service process of its own (HOLDS_MAX=HoldsMax, so that
// the queue may be that long) and a database of its own, sending its pickup emails to a sink of
// its own. Everything is set up through the HTTP API: the members, two titles of HoldsCopies
// copies each, every copy lent to a lender of its own, then the long title's queue, one hold at
// a time in the members' order.
//
//   - A hold's cost by its place: a probe member places a hold on the title nobody waits for
//     (place 1) and on the long title, where HoldsQueue-1 wait (place HoldsQueue), and cancels
//     each at once, untimed; the two alternate, which first turning each time, so that both meet
//     the machine in the same state. HoldWarmups of each untimed, then HoldSamples timed.
//   - Traps: the long title's HoldsCopies copies come back at once, returned by
//     HoldsConcurrency workers; each return holds its copy for the next member waiting (a
//     HoldTrapped on the title and a BookHeld on the copy, in one append), and the members
//     held for must be the first HoldsCopies of the queue. A round's rate is its returns over
//     the time from the first sent to the last answered. Between rounds, untimed, each copy is
//     lent to the member it was held for, so that the next round's returns trap the next
//     holds. TrapWarmupRounds untimed, then TrapRounds timed: the queue shortens by
//     HoldsCopies a round.
const (
	HoldsQueue       = 1000
	HoldsCopies      = 20
	HoldsConcurrency = 8
	HoldsMax         = 2000
	HoldSamples      = 200
	HoldWarmups      = 10
	TrapRounds       = 25
	TrapWarmupRounds = 1
	holdsParallel    = 8 // opening the members, a few at a time
)

// The two titles: the long one, with the queue, and the one nobody waits for.
const (
	holdsLong  = "bench-holds-long"
	holdsShort = "bench-holds-short"
)

// holdsMember is the member id of queue member i; the last, HoldsQueue-1, is the probe, who
// takes the last place for good once the placements are timed.
func holdsMember(i int) string { return fmt.Sprintf("bench-holds-m%04d", i) }

// holdsProbe is the member whose placements are timed.
var holdsProbe = holdsMember(HoldsQueue - 1)

// HoldTiming is one place's placements.
type HoldTiming struct {
	Place    int
	Samples  []time.Duration // sorted
	P50, P99 time.Duration
}

// TrapRound is one round of returns.
type TrapRound struct {
	Waiting   int // members waiting as the round began
	Returns   int
	Span      time.Duration // from the first return sent to the last answered
	PerSecond float64       // Returns over Span: each return trapped a hold
}

// HoldsResult is what the title holds measurement found.
type HoldsResult struct {
	Setup       time.Duration // opening the members, adding the titles and their copies, lending them, filling the queue
	First, Last HoldTiming    // a hold at place 1 and at place HoldsQueue
	Ratio       float64       // Last.P50 over First.P50
	Rounds      []TrapRound   // the timed rounds
	// TrapsPerSecond is the median of the rounds' rates; TrapsOverall all their returns over
	// the sum of their spans.
	TrapsPerSecond, TrapsOverall float64
	ReturnP50, ReturnP99         time.Duration // of every timed return
	WaitingAfter                 int           // members still waiting after the last round
	// Env is the machine as the measurement began, with the load average after it.
	Env environment.Machine
}

// Measured reports whether the result holds figures.
func (r HoldsResult) Measured() bool { return len(r.Rounds) > 0 }

// holdsRig is what the measurement's steps share.
type holdsRig struct {
	api   *workload.Client
	loans map[string]string // the long title's copies: the loan each is out on
	keys  int               // Idempotency-Keys given out
}

func holdsCopy(title string, i int) string { return fmt.Sprintf("%s-c%02d", title, i) }

// Holds measures a hold's cost by its place, and traps, on the empty database at databaseURL.
func Holds(ctx context.Context, bin, databaseURL string, env environment.Machine) (HoldsResult, error) {
	res := HoldsResult{Env: env}
	svc, _, stop, err := environment.StartWithSink(ctx, bin, databaseURL, "the title holds' service",
		"REPLICA_ID=bench-holds", fmt.Sprintf("HOLDS_MAX=%d", HoldsMax))
	if err != nil {
		return res, err
	}
	defer stop()
	api := workload.NewClient(svc.BaseURL, HoldsConcurrency)
	defer api.HTTP.CloseIdleConnections()
	rig := &holdsRig{api: api, loans: map[string]string{}}

	start := time.Now()
	if err := rig.setup(ctx); err != nil {
		return res, fmt.Errorf("setup: %w", err)
	}
	res.Setup = time.Since(start)
	environment.Logf("holds: %d members, two titles of %d copies lent, %d waiting for %s, in %s",
		HoldsQueue, HoldsCopies, HoldsQueue-1, holdsLong, figures.FormatSeconds(res.Setup))

	if res.First, res.Last, err = rig.placements(ctx); err != nil {
		return res, err
	}
	res.Ratio = res.Last.P50.Seconds() / res.First.P50.Seconds()
	environment.Logf("holds: a hold at place 1 p50 %s, at place %d p50 %s: %.2f ×", figures.FormatLatency(res.First.P50),
		HoldsQueue, figures.FormatLatency(res.Last.P50), res.Ratio)
	// The probe takes the last place for good: HoldsQueue wait.
	if err := rig.place(ctx, holdsLong, holdsProbe); err != nil {
		return res, err
	}

	var returns []time.Duration
	for r := range TrapWarmupRounds + TrapRounds {
		round, lat, err := rig.trapRound(ctx)
		if err != nil {
			return res, fmt.Errorf("trap round %d: %w", r+1, err)
		}
		warm := r < TrapWarmupRounds
		what := "timed"
		if warm {
			what = "warm-up"
		}
		environment.Logf("holds: round %d (%s), %d waiting: %d returns at concurrency %d in %s, %.0f traps/s",
			r+1, what, round.Waiting, round.Returns, HoldsConcurrency, figures.FormatLatency(round.Span), round.PerSecond)
		if !warm {
			res.Rounds = append(res.Rounds, round)
			returns = append(returns, lat...)
		}
	}
	q, err := api.Queue(ctx, holdsLong)
	if err != nil {
		return res, err
	}
	res.WaitingAfter = len(q.Waiting)
	res.summarize(returns)
	res.Env.LoadAfter = environment.LoadAverage()
	return res, nil
}

// summarize takes the rounds' median and overall rates and the returns' percentiles.
func (r *HoldsResult) summarize(returns []time.Duration) {
	var rates []float64
	var n int
	var span time.Duration
	for _, x := range r.Rounds {
		rates = append(rates, x.PerSecond)
		n += x.Returns
		span += x.Span
	}
	r.TrapsPerSecond = figures.Median(rates)
	if span > 0 {
		r.TrapsOverall = float64(n) / span.Seconds()
	}
	slices.Sort(returns)
	r.ReturnP50, r.ReturnP99 = figures.Percentile(returns, 0.50), figures.Percentile(returns, 0.99)
}

// setup opens the members, adds the two titles and their copies, lends every copy to a lender
// of its own, and fills the long title's queue with every member but the probe, in order.
func (g *holdsRig) setup(ctx context.Context) error {
	var members []string
	for i := range HoldsQueue {
		members = append(members, holdsMember(i))
	}
	for _, title := range []string{holdsShort, holdsLong} {
		for i := range HoldsCopies {
			members = append(members, holdsLender(title, i))
		}
	}
	if err := each(ctx, members, holdsParallel, g.api.OpenAccount); err != nil {
		return err
	}
	for t, title := range []string{holdsShort, holdsLong} {
		if err := g.api.AddTitle(ctx, title, "Popular "+title, "A. Author"); err != nil {
			return err
		}
		for i := range HoldsCopies {
			book := holdsCopy(title, i)
			if err := g.api.AddCopy(ctx, title, book, fmt.Sprintf("BH%d%04d", t, i)); err != nil {
				return err
			}
			loan := book + "-loan-0"
			if err := g.api.LendAs(ctx, book, loan, holdsLender(title, i)); err != nil {
				return err
			}
			if title == holdsLong {
				g.loans[book] = loan
			}
		}
	}
	for i := range HoldsQueue - 1 {
		if err := g.place(ctx, holdsLong, holdsMember(i)); err != nil {
			return err
		}
	}
	q, err := g.api.Queue(ctx, holdsLong)
	if err != nil {
		return err
	}
	if len(q.Waiting) != HoldsQueue-1 || q.Place(holdsMember(0)) != 1 || q.Place(holdsMember(HoldsQueue-2)) != HoldsQueue-1 {
		return fmt.Errorf("%s: %d waiting, the first member at place %d, the last at %d: not the queue placed",
			holdsLong, len(q.Waiting), q.Place(holdsMember(0)), q.Place(holdsMember(HoldsQueue-2)))
	}
	return nil
}

// holdsLender is the member a copy is first lent to: one who waits for nothing.
func holdsLender(title string, i int) string { return fmt.Sprintf("%s-lender-%02d", title, i) }

// place puts the member in the title's queue with a fresh Idempotency-Key.
func (g *holdsRig) place(ctx context.Context, title, member string) error {
	g.keys++
	return g.api.PlaceTitleHold(ctx, title, member, fmt.Sprintf("bench-holds-%d", g.keys))
}

// placements times the probe's holds at place 1 and at place HoldsQueue, each cancelled at once.
func (g *holdsRig) placements(ctx context.Context) (first, last HoldTiming, err error) {
	first.Place, last.Place = 1, HoldsQueue
	for i := range HoldWarmups + HoldSamples {
		order := []*HoldTiming{&first, &last}
		if i%2 == 1 {
			slices.Reverse(order)
		}
		for _, t := range order {
			title := holdsShort
			if t.Place != 1 {
				title = holdsLong
			}
			start := time.Now()
			if err := g.place(ctx, title, holdsProbe); err != nil {
				return first, last, err
			}
			d := time.Since(start)
			if i == 0 { // the first time, make sure the hold took the place it is timed at
				q, err := g.api.Queue(ctx, title)
				if err != nil {
					return first, last, err
				}
				if p := q.Place(holdsProbe); p != t.Place {
					return first, last, fmt.Errorf("the probe's hold on %s took place %d, not %d", title, p, t.Place)
				}
			}
			if err := g.api.CancelTitleHold(ctx, title, holdsProbe); err != nil {
				return first, last, err
			}
			if i >= HoldWarmups {
				t.Samples = append(t.Samples, d)
			}
		}
	}
	for _, t := range []*HoldTiming{&first, &last} {
		slices.Sort(t.Samples)
		t.P50, t.P99 = figures.Percentile(t.Samples, 0.50), figures.Percentile(t.Samples, 0.99)
	}
	return first, last, nil
}
