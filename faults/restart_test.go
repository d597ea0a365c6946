//go:build faults

package faults

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// outageFor is how long the restart test keeps PostgreSQL down.
const outageFor = 3 * time.Second

// PostgreSQL restarts (a fast shutdown, which ends every session, then a start) while clients
// pay and lend through both replicas. Every answer is a 2xx, or a 503 Unavailable with
// Retry-After while the database is gone; the replicas recover by themselves, take their
// leases again, and a payment retried after the outage is recorded once.
func TestPostgresRestartDuringLoad(t *testing.T) {
	s := newSystem(t)
	s.dumpOnFailure()
	a := s.start("a")
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) }, "a holds every lease")
	b := s.start("b") // after: started together, b may take a lease first, and a wait for it
	s.must(a, http.StatusCreated, http.MethodPut, "/accounts/payer", `{"name":"Payer","email":"payer@example.org"}`)
	s.must(a, http.StatusCreated, http.MethodPost, "/accounts/payer/fines", `{"amount":1000000,"reason":"setup"}`)
	watch := watchCheckpoints(s.pool)

	var (
		mu        sync.Mutex
		answers   = map[int]int{} // status: count
		wrong     []string        // answers that are neither 2xx nor a proper 503
		unpaid    []string        // keys whose payment got a 503: the client retries them later
		keys      []string
		next      atomic.Int64
		stop      = make(chan struct{})
		clients   sync.WaitGroup
		succeeded atomic.Int64
	)
	for c := range 4 {
		clients.Go(func() {
			r := []*replica{a, b}[c%2]
			for {
				select {
				case <-stop:
					return
				default:
				}
				n := next.Add(1)
				key := fmt.Sprintf("restart-%d", n)
				got, err := s.call(r, http.MethodPost, "/accounts/payer/payments", `{"amount":1}`, "Idempotency-Key", key)
				mu.Lock()
				keys = append(keys, key)
				switch {
				case err != nil:
					wrong = append(wrong, fmt.Sprintf("%s: %v", r.name, err))
					unpaid = append(unpaid, key)
				case got.Status == http.StatusCreated:
					succeeded.Add(1)
				case got.Status == http.StatusServiceUnavailable && problemCode(got.Body) == "Unavailable" && got.Header.Get("Retry-After") != "":
					unpaid = append(unpaid, key)
				default:
					wrong = append(wrong, fmt.Sprintf("%s: %d %s", r.name, got.Status, got.Body))
					unpaid = append(unpaid, key)
				}
				if err == nil {
					answers[got.Status]++
				}
				mu.Unlock()
				if err == nil && got.Status == http.StatusServiceUnavailable {
					retryAfter, _ := strconv.Atoi(got.Header.Get("Retry-After"))
					time.Sleep(time.Duration(retryAfter) * time.Second / 10) // a client honouring Retry-After, briefly
				}
			}
		})
	}

	eventually(t, 30*time.Second, func() bool { return succeeded.Load() >= 200 }, "payments go through before the restart")
	down := time.Now()
	cluster.Down()
	// The database stays down for three seconds, and long enough for twenty 503s.
	eventually(t, 30*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return answers[http.StatusServiceUnavailable] >= 20 && time.Since(down) >= outageFor
	}, "requests get 503 while the database is down")
	outage := time.Since(down)
	if err := cluster.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	up := time.Now()
	before := succeeded.Load()
	eventually(t, 30*time.Second, func() bool { return succeeded.Load() >= before+100 }, "payments go through again on both replicas")
	recovered := time.Since(up)
	close(stop)
	clients.Wait()

	for _, r := range []*replica{a, b} {
		ready, err := s.call(r, http.MethodGet, "/readyz", "")
		if err != nil || ready.Status != http.StatusOK {
			t.Errorf("%s is not ready after the restart: %v %d %s", r.name, err, ready.Status, ready.Body)
		}
	}
	var retaken time.Duration
	eventually(t, 30*time.Second, func() bool {
		sa, okA := s.status(a)
		sb, okB := s.status(b)
		if !okA || !okB {
			return false
		}
		for _, name := range processors {
			if sa[name].HoldsLease == sb[name].HoldsLease {
				return false // nobody holds it, or both say they do
			}
		}
		retaken = time.Since(up)
		return true
	}, "each lease is held by exactly one replica again")

	// The client retries what got a 503; each payment is then recorded exactly once.
	for _, key := range unpaid {
		if o := s.retry(http.MethodPost, "/accounts/payer/payments", `{"amount":1}`, "Idempotency-Key", key); o.answers[len(o.answers)-1].Status != http.StatusCreated {
			t.Errorf("payment %s retried after the outage: %+v", key, o.answers)
		}
	}
	recorded := paymentsRecordedOnce(t, s.pool, keys)
	s.must(b, http.StatusCreated, http.MethodPost, "/books", `{"id":"after","title":"After","author":"Someone"}`)
	s.must(a, http.StatusCreated, http.MethodPost, "/books/after/loans", `{"loanId":"after-1","memberId":"payer"}`)
	_, emails, _ := loanEmails(t, s.pool, s.smtp, time.Minute)
	watch.check(t)
	if len(wrong) > 0 {
		t.Errorf("%d answers were neither 2xx nor 503 Unavailable with Retry-After, the first: %v", len(wrong), wrong[:min(5, len(wrong))])
	}
	t.Logf("FAULTS restart: requests=%d answers=%v other-5xx=%d outage=%s recovered-in=%s leases-retaken-in=%s payments=%d emails-after=%d",
		len(keys), answers, len(wrong), outage.Round(time.Millisecond), recovered.Round(time.Millisecond), retaken.Round(time.Millisecond), recorded, emails)
}
