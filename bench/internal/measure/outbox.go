package measure

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"library/bench/internal/environment"
	"library/bench/internal/figures"
	"library/bench/internal/workload"
)

// The outbox measurement: loans through the service, whose SMTP_URL is the sink, and the time
// from a lend's 201 (its commit) to the sink accepting that loan's email.

// OutboxMember is the member every benchmark loan is made to.
const OutboxMember = "bench-reader"

// OutboxResult is what the outbox measurement found.
type OutboxResult struct {
	InitialLag int64         // events the outbox had still to read before the idle loans
	CatchUp    time.Duration // how long it took to read them
	// Idle: one loan at a time, each waiting for its email before the next.
	IdleLoans        int
	IdleP50, IdleP99 time.Duration
	IdleMin, IdleMax time.Duration
	IdleOver         []int         // the loans (1 to IdleLoans) whose email took over 100 ms
	Lenders          int           // concurrent lenders under load
	BooksAdded       int           // books added before the load
	LoadDuration     time.Duration // how long the lenders lent
	LoadLoans        int           // loans made under load (each one email)
	LoadErrors       int
	LoadFirstError   string
	LoansPerSecond   float64       // loans made per second under load
	EmailsPerSecond  float64       // emails accepted per second, from the first loan to the last email
	EmailsInWindow   float64       // emails accepted per second while the lenders lent
	DrainAfter       time.Duration // from the end of the load to the last email
	DrainPerSecond   float64       // emails accepted per second after the lenders stopped: the backlog's pace
	LoadP50, LoadP99 time.Duration // commit to accept, under load
	Missing          int           // loans whose email did not arrive
	Duplicates       int           // messages accepted more than once
}

// Outbox runs the idle loans, then `lenders` concurrent lenders for d.
func Outbox(ctx context.Context, api *workload.Client, sink *environment.SMTPSink, idleLoans, lenders int, d time.Duration) (OutboxResult, error) {
	res := OutboxResult{IdleLoans: idleLoans, Lenders: lenders}
	if err := api.OpenMember(ctx, OutboxMember); err != nil {
		return res, err
	}
	if err := waitCaughtUp(ctx, api, &res); err != nil {
		return res, err
	}
	if err := measureIdle(ctx, api, sink, &res); err != nil {
		return res, err
	}
	before := sink.Count()
	loans, start, end, err := lendUnderLoad(ctx, api, lenders, d, &res)
	if err != nil {
		return res, err
	}
	if err := measureLoadEmails(ctx, sink, loans, start, end, &res); err != nil {
		return res, err
	}
	res.Duplicates = max(0, sink.Count()-before-(res.LoadLoans-res.Missing))
	return res, nil
}

// waitCaughtUp waits until the outbox has read the whole log (the throughput cells wrote a lot
// of it): idle means that.
func waitCaughtUp(ctx context.Context, api *workload.Client, res *OutboxResult) error {
	caughtUp := time.Now()
	for {
		status, err := environment.FetchStatus(ctx, api.BaseURL)
		if err != nil {
			return err
		}
		if status["notifications"].HoldsLease && status["notifications"].Lag == 0 {
			break
		}
		if res.InitialLag == 0 {
			res.InitialLag = status["notifications"].Lag
		}
		if time.Since(caughtUp) > 2*time.Minute {
			return fmt.Errorf("the outbox did not catch up with the log within 2 minutes: %+v", status["notifications"])
		}
		time.Sleep(20 * time.Millisecond) // polling /status, bounded above
	}
	res.CatchUp = time.Since(caughtUp)
	return nil
}

// measureIdle adds a book (not timed), lends it and waits for its email, res.IdleLoans times.
func measureIdle(ctx context.Context, api *workload.Client, sink *environment.SMTPSink, res *OutboxResult) error {
	var idle []time.Duration
	for i := range res.IdleLoans {
		book := fmt.Sprintf("outbox-idle-%d", i)
		if err := api.AddBook(ctx, book); err != nil {
			return err
		}
		position, committed, err := api.Lend(ctx, book, OutboxMember)
		if err != nil {
			return err
		}
		accepted, err := sink.Wait(ctx, position, 30*time.Second)
		if err != nil {
			return err
		}
		idle = append(idle, accepted.Sub(committed))
		if accepted.Sub(committed) > 100*time.Millisecond {
			res.IdleOver = append(res.IdleOver, i+1)
		}
	}
	slices.Sort(idle)
	res.IdleP50, res.IdleP99 = figures.Percentile(idle, 0.50), figures.Percentile(idle, 0.99)
	res.IdleMin, res.IdleMax = idle[0], idle[len(idle)-1]
	return nil
}

// loadLoan is a loan made under load, and when its 201 came back.
type loadLoan struct {
	position  int64
	committed time.Time
}

// lendUnderLoad has each lender lend books added beforehand (adding more itself if it runs
// out), one after another, for d: the loans come as fast as the service takes commands. It
// returns every loan made, and when the load started and ended.
func lendUnderLoad(ctx context.Context, api *workload.Client, lenders int, d time.Duration, res *OutboxResult) ([]loadLoan, time.Time, time.Time, error) {
	perLender := int(d.Seconds()*outboxLoansPerLenderSecond) + 1
	if err := AddBooks(ctx, api, outboxLoadBooks, lenders, perLender); err != nil {
		return nil, time.Time{}, time.Time{}, err
	}
	res.BooksAdded = lenders * perLender
	loans := make([][]loadLoan, lenders)
	errCount := make([]int, lenders)
	firstErr := make([]error, lenders)
	start := time.Now()
	deadline := start.Add(d)
	var wg sync.WaitGroup
	for w := range lenders {
		wg.Go(func() {
			for n := 0; ctx.Err() == nil && time.Now().Before(deadline); n++ {
				l, err := lendOne(ctx, api, LoadBook(outboxLoadBooks, w, n), n >= perLender)
				if err != nil {
					errCount[w]++
					firstErr[w] = cmp.Or(firstErr[w], err)
					continue
				}
				loans[w] = append(loans[w], l)
			}
		})
	}
	wg.Wait()
	end := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, start, end, err
	}
	res.LoadDuration = end.Sub(start)
	var all []loadLoan
	for w := range lenders {
		all = append(all, loans[w]...)
		res.LoadErrors += errCount[w]
		if firstErr[w] != nil && res.LoadFirstError == "" {
			res.LoadFirstError = firstErr[w].Error()
		}
	}
	res.LoadLoans = len(all)
	if len(all) == 0 {
		return nil, start, end, fmt.Errorf("no loan was made under load: %s", res.LoadFirstError)
	}
	res.LoansPerSecond = float64(len(all)) / res.LoadDuration.Seconds()
	return all, start, end, nil
}

// lendOne lends book to the outbox's member, adding the book first when add is set.
func lendOne(ctx context.Context, api *workload.Client, book string, add bool) (loadLoan, error) {
	if add {
		if err := api.AddBook(ctx, book); err != nil {
			return loadLoan{}, err
		}
	}
	position, committed, err := api.Lend(ctx, book, OutboxMember)
	return loadLoan{position, committed}, err
}

// measureLoadEmails waits for every loan's email, then works out the latencies and rates.
func measureLoadEmails(ctx context.Context, sink *environment.SMTPSink, loans []loadLoan, start, end time.Time, res *OutboxResult) error {
	var lat []time.Duration
	var last time.Time
	inWindow := 0
	for _, l := range loans {
		accepted, err := sink.Wait(ctx, l.position, 60*time.Second)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			res.Missing++
			continue
		}
		lat = append(lat, accepted.Sub(l.committed))
		if accepted.After(last) {
			last = accepted
		}
		if !accepted.After(end) {
			inWindow++
		}
	}
	slices.Sort(lat)
	res.LoadP50, res.LoadP99 = figures.Percentile(lat, 0.50), figures.Percentile(lat, 0.99)
	if !last.IsZero() {
		res.EmailsPerSecond = float64(len(lat)) / last.Sub(start).Seconds()
		res.DrainAfter = max(0, last.Sub(end))
		if res.DrainAfter > 0 {
			res.DrainPerSecond = float64(len(lat)-inWindow) / res.DrainAfter.Seconds()
		}
	}
	res.EmailsInWindow = float64(inWindow) / res.LoadDuration.Seconds()
	return nil
}

// outboxLoansPerLenderSecond is how many books are added beforehand per lender and second of
// load: more than one lender lends on this machine.
const outboxLoansPerLenderSecond = 200

// outboxLoadBooks names the books lent under the outbox's load.
const outboxLoadBooks = "outbox-load"

// LoadBook is the name of the nth book the lender lends, in the set named prefix.
func LoadBook(prefix string, lender, n int) string {
	return fmt.Sprintf("%s-w%d-%d", prefix, lender, n)
}

// AddBooks adds the books named prefix that the lenders will lend, eight at a time.
func AddBooks(ctx context.Context, api *workload.Client, prefix string, lenders, perLender int) error {
	const parallel = 8
	books := make(chan string)
	go func() {
		defer close(books)
		for n := range perLender {
			for w := range lenders {
				select {
				case books <- LoadBook(prefix, w, n):
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	errs := make(chan error, parallel)
	var wg sync.WaitGroup
	for range parallel {
		wg.Go(func() {
			for book := range books {
				if err := api.AddBook(ctx, book); err != nil {
					errs <- err
					for range books { // let the producer finish
					}
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}
