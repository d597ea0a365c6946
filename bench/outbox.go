package main

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// The outbox measurement: loans through the service, whose SMTP_URL is the sink, and the time
// from a lend's 201 (its commit) to the sink accepting that loan's email.

// outboxMember is the member every benchmark loan is made to.
const outboxMember = "bench-reader"

// outboxResult is what the outbox measurement found.
type outboxResult struct {
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

// request sends a JSON body with method to path and returns the answer.
func (c *apiClient) request(ctx context.Context, method, path, body string) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.baseURL+path, strings.NewReader(body))
	if err != nil {
		return answer{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	c.authorize(req)
	resp, err := c.http.Do(req)
	if err != nil {
		return answer{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		return answer{}, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	return answer{status: resp.StatusCode, body: b.Bytes()}, nil
}

// openMember gives the member an email address.
func (c *apiClient) openMember(ctx context.Context, member string) error {
	path := "/accounts/" + url.PathEscape(member)
	a, err := c.request(ctx, http.MethodPut, path, `{"name":"Bench Reader","email":"reader@example.org"}`)
	if err != nil {
		return err
	}
	if a.status != http.StatusCreated && a.status != http.StatusOK {
		return fmt.Errorf("PUT %s: %d %s", path, a.status, bytes.TrimSpace(a.body))
	}
	return nil
}

// addBook adds a book, wanting 201.
func (c *apiClient) addBook(ctx context.Context, id string) error {
	a, err := c.request(ctx, http.MethodPost, "/books", fmt.Sprintf(`{"id":%q,"title":"Book %s","author":"A. Author"}`, id, id))
	if err != nil {
		return err
	}
	if a.status != http.StatusCreated {
		return fmt.Errorf("POST /books: %d %s", a.status, bytes.TrimSpace(a.body))
	}
	return nil
}

// lend lends the book to the member under a loan id of the book's name, wanting 201, and
// returns the position of the BookLent event and the time the 201 arrived.
func (c *apiClient) lend(ctx context.Context, book, member string) (int64, time.Time, error) {
	path := "/books/" + url.PathEscape(book) + "/loans"
	a, err := c.request(ctx, http.MethodPost, path, fmt.Sprintf(`{"loanId":"loan-%s","memberId":%q}`, book, member))
	committed := time.Now()
	if err != nil {
		return 0, committed, err
	}
	if a.status != http.StatusCreated {
		return 0, committed, fmt.Errorf("POST %s: %d %s", path, a.status, bytes.TrimSpace(a.body))
	}
	var result struct {
		Position int64 `json:"position"`
	}
	if err := json.Unmarshal(a.body, &result); err != nil || result.Position == 0 {
		return 0, committed, fmt.Errorf("POST %s: no position in %s", path, bytes.TrimSpace(a.body))
	}
	return result.Position, committed, nil
}

// measureOutbox runs the idle loans, then `lenders` concurrent lenders for d.
func measureOutbox(ctx context.Context, api *apiClient, sink *smtpSink, idleLoans, lenders int, d time.Duration) (outboxResult, error) {
	res := outboxResult{IdleLoans: idleLoans, Lenders: lenders}
	if err := api.openMember(ctx, outboxMember); err != nil {
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
func waitCaughtUp(ctx context.Context, api *apiClient, res *outboxResult) error {
	caughtUp := time.Now()
	for {
		status, err := fetchStatus(ctx, api.baseURL)
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
func measureIdle(ctx context.Context, api *apiClient, sink *smtpSink, res *outboxResult) error {
	var idle []time.Duration
	for i := range res.IdleLoans {
		book := fmt.Sprintf("outbox-idle-%d", i)
		if err := api.addBook(ctx, book); err != nil {
			return err
		}
		position, committed, err := api.lend(ctx, book, outboxMember)
		if err != nil {
			return err
		}
		accepted, err := sink.wait(ctx, position, 30*time.Second)
		if err != nil {
			return err
		}
		idle = append(idle, accepted.Sub(committed))
		if accepted.Sub(committed) > 100*time.Millisecond {
			res.IdleOver = append(res.IdleOver, i+1)
		}
	}
	slices.Sort(idle)
	res.IdleP50, res.IdleP99 = percentile(idle, 0.50), percentile(idle, 0.99)
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
func lendUnderLoad(ctx context.Context, api *apiClient, lenders int, d time.Duration, res *outboxResult) ([]loadLoan, time.Time, time.Time, error) {
	perLender := int(d.Seconds()*outboxLoansPerLenderSecond) + 1
	if err := addBooks(ctx, api, outboxLoadBooks, lenders, perLender); err != nil {
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
				l, err := lendOne(ctx, api, loadBook(outboxLoadBooks, w, n), n >= perLender)
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
func lendOne(ctx context.Context, api *apiClient, book string, add bool) (loadLoan, error) {
	if add {
		if err := api.addBook(ctx, book); err != nil {
			return loadLoan{}, err
		}
	}
	position, committed, err := api.lend(ctx, book, outboxMember)
	return loadLoan{position, committed}, err
}

// measureLoadEmails waits for every loan's email, then works out the latencies and rates.
func measureLoadEmails(ctx context.Context, sink *smtpSink, loans []loadLoan, start, end time.Time, res *outboxResult) error {
	var lat []time.Duration
	var last time.Time
	inWindow := 0
	for _, l := range loans {
		accepted, err := sink.wait(ctx, l.position, 60*time.Second)
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
	res.LoadP50, res.LoadP99 = percentile(lat, 0.50), percentile(lat, 0.99)
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

// loadBook is the name of the nth book the lender lends, in the set named prefix.
func loadBook(prefix string, lender, n int) string {
	return fmt.Sprintf("%s-w%d-%d", prefix, lender, n)
}

// addBooks adds the books named prefix that the lenders will lend, eight at a time.
func addBooks(ctx context.Context, api *apiClient, prefix string, lenders, perLender int) error {
	const parallel = 8
	books := make(chan string)
	go func() {
		defer close(books)
		for n := range perLender {
			for w := range lenders {
				select {
				case books <- loadBook(prefix, w, n):
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
				if err := api.addBook(ctx, book); err != nil {
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
