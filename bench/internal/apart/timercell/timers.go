package timercell

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/jackc/pgx/v5"

	"library/bench/internal/environment"
	"library/bench/internal/measure"
	"library/bench/internal/workload"
)

// The timers measurement: a service process of its own, on a database of its own, sending to a
// sink of its own, lends TimerLoans books, each to a member at a domain of their own. Each run
// then writes TimerCount due-soon reminder timers for those loans straight into
// processor_timers, all due already, as a day's reminders are after an outage (TimerLoans
// loans, TimerCount/TimerLoans timers each, each under its own key, so that each sends an email
// with a Message-ID of its own), and the outbox fires them under its lease. Each round runs,
// in an order that turns by one each round: payments alone (the commands cell at
// TimerConcurrency), the timers alone, and payments while the timers fire.
const (
	TimerCount       = 10_000
	TimerLoans       = 100
	TimerRounds      = 3
	TimerConcurrency = 8
	timersMaxWait    = 2 * time.Minute // the most one run's timers may take
	timersPoll       = 10 * time.Millisecond
)

// timerRuns are the three runs of a round, in the order of its first round.
var timerRuns = []string{"payments alone", "timers alone", "payments while timers fire"}

// TimerFire is one run of TimerCount timers.
type TimerFire struct {
	Found     time.Duration // from the timers' commit to the first email: the loop's next look
	Span      time.Duration // from the first email to the last timer forgotten
	PerSecond float64       // TimerCount over Span
	Emails    int           // emails the sink accepted during the run
}

// timersRound is one round's runs.
type timersRound struct {
	Order       []string
	Alone, With measure.Cell // payments alone, payments while the timers fire
	Fire        TimerFire    // the timers alone
	FireLoaded  TimerFire    // the timers while payments run
}

// TimersResult is what the timers measurement found.
type TimersResult struct {
	Accounts int
	Rounds   []timersRound
	// The medians over the rounds, and the ratio of the payments' medians.
	AloneOps, WithOps, Ratio float64
	FireRate, FireRateLoaded float64
	// Env is the machine as the measurement began, with the load average after it.
	Env environment.Machine
}

// timersRig is what the runs share: the service, its database, the sink and the payments.
type timersRig struct {
	db       *pgx.Conn
	sink     *environment.SMTPSink
	api      *workload.Client
	accounts int
	warmup   time.Duration
	duration time.Duration
}

// Timers measures the outbox firing due timers, and payments alone and while they fire, on the
// database at databaseURL.
func Timers(ctx context.Context, cfg environment.Config, bin, databaseURL string, env environment.Machine) (TimersResult, error) {
	res := TimersResult{Accounts: cfg.Accounts, Env: env}
	svc, sink, stop, err := environment.StartWithSink(ctx, bin, databaseURL, "the timers' service")
	if err != nil {
		return res, err
	}
	defer stop()
	if err := svc.AwaitLeases(ctx, 15*time.Second, "notifications"); err != nil {
		return res, err
	}
	db, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		return res, err
	}
	defer func() { _ = db.Close(context.WithoutCancel(ctx)) }()
	api := workload.NewClient(svc.BaseURL, TimerConcurrency)
	defer api.HTTP.CloseIdleConnections()
	rig := &timersRig{db: db, sink: sink, api: api, accounts: cfg.Accounts, warmup: cfg.Warmup, duration: cfg.Duration}
	if err := rig.Setup(ctx); err != nil {
		return res, err
	}
	for r := range TimerRounds {
		round, err := rig.round(ctx, r)
		if err != nil {
			return res, fmt.Errorf("round %d: %w", r+1, err)
		}
		environment.Logf("timers round %d (%v): payments %.0f /s alone, %.0f /s while timers fire; timers %.0f /s alone, %.0f /s under payments",
			r+1, round.Order, round.Alone.Throughput(), round.With.Throughput(), round.Fire.PerSecond, round.FireLoaded.PerSecond)
		res.Rounds = append(res.Rounds, round)
	}
	res.medians()
	res.Env.LoadAfter = environment.LoadAverage()
	return res, nil
}

// Setup lends the books the reminders are for and charges the accounts the payments go to.
func (g *timersRig) Setup(ctx context.Context) error {
	for i := range TimerLoans {
		member, book := fmt.Sprintf("timers-m%d", i), fmt.Sprintf("timers-%d", i)
		body := fmt.Sprintf(`{"name":"Member %d","email":"m%d@domain-%d.example"}`, i, i, i)
		a, err := g.api.Request(ctx, http.MethodPut, "/accounts/"+url.PathEscape(member), body)
		if err != nil {
			return err
		}
		if a.Status != http.StatusCreated {
			return fmt.Errorf("PUT /accounts/%s: %d %s", member, a.Status, a.Body)
		}
		if err := g.api.AddBook(ctx, book); err != nil {
			return err
		}
		if _, _, err := g.api.Lend(ctx, book, member); err != nil {
			return err
		}
	}
	names := make([]string, g.accounts)
	for i := range names {
		names[i] = workload.AccountName(i)
	}
	return g.api.Fine(ctx, names)
}

// round runs the three runs, the order turned by r.
func (g *timersRig) round(ctx context.Context, r int) (timersRound, error) {
	var round timersRound
	for i := range timerRuns {
		k := (i + r) % len(timerRuns)
		run := timerRuns[k]
		round.Order = append(round.Order, run)
		var err error
		switch k {
		case 0:
			round.Alone, err = g.payments(ctx, fmt.Sprintf("timers-alone-%d-", r), nil)
		case 1:
			round.Fire, err = g.fire(ctx, fmt.Sprintf("bench-%d-alone-", r), nil)
		case 2:
			round.With, round.FireLoaded, err = g.paymentsWhileTimersFire(ctx, r)
		}
		if err != nil {
			return round, fmt.Errorf("%s: %w", run, err)
		}
	}
	return round, nil
}

// payments warms the payments up, then measures them until stop is closed, or for the
// run's duration when stop is nil. keys begins their Idempotency-Keys.
func (g *timersRig) payments(ctx context.Context, keys string, stop <-chan struct{}, started ...func()) (measure.Cell, error) {
	cmds := &workload.Commands{API: g.api, Accounts: g.accounts, Keys: keys}
	op, err := cmds.Prepare(ctx, TimerConcurrency)
	if err != nil {
		return measure.Cell{}, err
	}
	if g.warmup > 0 {
		measure.RunWorkers(ctx, TimerConcurrency, g.warmup, op)
	}
	for _, s := range started {
		s()
	}
	measured, d := ctx, g.duration
	if stop != nil {
		var cancel context.CancelFunc
		measured, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-stop:
				cancel()
			case <-measured.Done():
			}
		}()
		d = timersMaxWait
	}
	res := measure.RunWorkers(measured, TimerConcurrency, d, op)
	if err := ctx.Err(); err != nil {
		return res, err
	}
	res.Measurement = "payments"
	if res.Ops == 0 {
		return res, fmt.Errorf("no payment went through: %s", res.FirstError)
	}
	return res, nil
}

// paymentsWhileTimersFire warms the payments up, writes the timers, and measures the payments
// from the first reminder for the run's duration (or until the last timer is forgotten, if
// sooner). The timers' rate under payments is the reminders that came in that window over its
// length; the rest fire alone after it, and the run ends when the last is forgotten.
func (g *timersRig) paymentsWhileTimersFire(ctx context.Context, r int) (measure.Cell, TimerFire, error) {
	var (
		fired    TimerFire
		fireErr  error
		firing   = make(chan struct{}) // the first reminder came
		done     = make(chan struct{}) // the last timer was forgotten, or the timers failed
		warmedUp = make(chan struct{})
		stop     = make(chan struct{}) // the payments' measured window is over
		window   TimerFire             // the reminders in that window
	)
	go func() {
		defer close(done)
		select {
		case <-warmedUp:
		case <-ctx.Done():
			fireErr = ctx.Err()
			return
		}
		fired, fireErr = g.fire(ctx, fmt.Sprintf("bench-%d-loaded-", r), func() { close(firing) })
	}()
	go func() {
		defer close(stop)
		select {
		case <-firing:
		case <-done:
			return
		}
		from, at := g.sink.Count(), time.Now()
		end := time.NewTimer(g.duration)
		defer end.Stop()
		select {
		case <-end.C:
		case <-done:
		case <-ctx.Done():
		}
		window.Span, window.Emails = time.Since(at), g.sink.Count()-from
	}()
	// The payments' measured run starts once the first reminder has come.
	paid, err := g.payments(ctx, fmt.Sprintf("timers-with-%d-", r), stop, func() {
		close(warmedUp)
		select {
		case <-firing:
		case <-done:
		}
	})
	<-done
	<-stop
	if fireErr != nil {
		return paid, fired, fireErr
	}
	if window.Span > 0 {
		fired.PerSecond = float64(window.Emails) / window.Span.Seconds()
	}
	return paid, fired, err
}

// fire writes TimerCount due reminder timers, their keys beginning with prefix, and waits until
// the outbox has fired and forgotten them all. first is called when the first reminder comes.
func (g *timersRig) fire(ctx context.Context, prefix string, first func()) (TimerFire, error) {
	var f TimerFire
	before := g.sink.Count()
	if _, err := g.db.Exec(ctx, timersInsert, prefix, TimerCount, TimerLoans); err != nil {
		return f, fmt.Errorf("writing the timers: %w", err)
	}
	written := time.Now()
	deadline := written.Add(timersMaxWait)
	wait := func(cond func() (bool, error), what string) error {
		for {
			ok, err := cond()
			if ok || err != nil {
				return err
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("%s: not within %s of writing the timers (%d emails)", what, timersMaxWait, g.sink.Count()-before)
			}
			if err := pause(ctx, timersPoll); err != nil {
				return err
			}
		}
	}
	if err := wait(func() (bool, error) { return g.sink.Count() > before, nil }, "the first reminder"); err != nil {
		return f, err
	}
	firstAt := time.Now()
	f.Found = firstAt.Sub(written)
	if first != nil {
		first()
	}
	err := wait(func() (bool, error) { return g.sink.Count()-before >= TimerCount, nil }, "every reminder")
	if err == nil {
		err = wait(func() (bool, error) {
			var left int
			err := g.db.QueryRow(ctx, timersLeft, "due-soon:"+prefix+"%").Scan(&left)
			return left == 0, err
		}, "every timer forgotten")
	}
	if err != nil {
		return f, err
	}
	f.Span = time.Since(firstAt)
	f.PerSecond = TimerCount / f.Span.Seconds()
	f.Emails = g.sink.Count() - before
	return f, nil
}

// timersInsert writes $2 due-soon timers of the outbox, keyed "due-soon:{$1}{n}", due one
// microsecond apart up to now, each for one of the $3 loans of books timers-*, in turn: the
// reminder the outbox would have scheduled, with the loan's due time as its BookLent has it.
const timersInsert = `INSERT INTO processor_timers (processor, key, due_at, fire_at, data, version)
SELECT 'notifications', 'due-soon:' || $1::text || g, t.at, t.at,
	jsonb_build_object('bookId', l.book, 'loanId', l.loan, 'dueAt', l.due, 'at', to_jsonb(t.at)),
	nextval('processor_timer_versions')
FROM generate_series(0, $2::int - 1) AS g
CROSS JOIN LATERAL (SELECT now() - ($2::int - g) * interval '1 microsecond' AS at) AS t
JOIN (
	SELECT row_number() OVER (ORDER BY position) - 1 AS n, substr(stream_id, 6) AS book,
		data->>'loanId' AS loan, data->'dueAt' AS due
	FROM events WHERE type = 'BookLent' AND stream_id LIKE 'book-timers-%'
) AS l ON l.n = g % $3::int`

// timersLeft counts the outbox's timers whose keys are like $1.
const timersLeft = `SELECT count(*) FROM processor_timers WHERE processor = 'notifications' AND key LIKE $1`

// pause waits d, or returns ctx's error.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
