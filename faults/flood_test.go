//go:build faults

package faults

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"library/internal/testkit/proctest"
)

const (
	// floodRateLimit is the replicas' RATE_LIMIT: requests a second per client, per replica.
	floodRateLimit = 100
	// flooderAddress and payerAddress are the two clients' addresses, which the replicas read
	// from X-Forwarded-For: the test's connections come from loopback, a trusted proxy here.
	flooderAddress = "203.0.113.7"
	payerAddress   = "198.51.100.9"
	// floodWorkers is how many requests the flooder keeps in flight at once.
	floodWorkers = 16
	// floodPayments is how many payments the payer makes, one every floodPaymentEvery, taking
	// turns between the replicas; every floodReplayEvery-th is sent again, with its key, to the
	// other replica.
	floodPayments     = 200
	floodPaymentEvery = 25 * time.Millisecond
	floodReplayEvery  = 10
	// floodPayerP99 is the most the payer's 99th-percentile latency may be during the flood:
	// not a speed target (the figure measured goes to docs/reliability.md), but the line past
	// which the payer waits behind the flood, far above what a shared, loaded machine adds.
	floodPayerP99 = time.Second
)

// One client floods both replicas with GET /books, as fast as sixteen connections go, far past
// RATE_LIMIT, while another pays a fine, 40 keyed payments a second: the flooder is answered
// 429 TooManyRequests problems with Retry-After, and no more than the limit lets through; the
// payer is never limited, every payment is recorded once (201, and a retry with its key on the
// other replica replays the first answer), the account's balance and history show exactly the
// payments made, and the payer's 99th-percentile latency stays under 200 ms. The replicas tell
// the clients apart by X-Forwarded-For, which they read from loopback as from a trusted proxy
// (a request from loopback itself, the test's own setup, is not counted:
// RATE_LIMIT_EXEMPT_LOOPBACK, as for every process proctest starts).
func TestFloodFromOneClientWhileAnotherPays(t *testing.T) {
	s := newSystem(t)
	s.dumpOnFailure()
	edge := []string{"TRUSTED_PROXIES=127.0.0.1/32", "RATE_LIMIT=" + strconv.Itoa(floodRateLimit)}
	a := s.start("a", edge...)
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) }, "a holds every lease")
	b := s.start("b", edge...) // after: started together, b may take a lease first, and a wait for it
	replicas := []*replica{a, b}
	s.must(a, http.StatusCreated, http.MethodPut, "/accounts/payer", `{"name":"Payer","email":"payer@example.org"}`)
	s.must(b, http.StatusCreated, http.MethodPost, "/accounts/payer/fines", `{"amount":1000000,"reason":"setup"}`)
	owed := accountBalance(t, s, a, "payer")

	// The flooder, on connections of its own.
	flooder := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: floodWorkers}}
	defer flooder.CloseIdleConnections()
	var (
		stop                                 = make(chan struct{})
		flooding                             sync.WaitGroup
		floodSent, floodServed, floodLimited atomic.Int64
		floodMu                              sync.Mutex
		floodWrong                           []string // answers neither 200 nor a proper 429, and errors
		floodRetryAfter                      = map[string]int{}
		floodStart                           = time.Now()
	)
	for w := range floodWorkers {
		flooding.Go(func() {
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				r := replicas[(w+n)%2]
				got, err := proctest.Call(flooder, http.MethodGet, r.url("/books"), "", "X-Forwarded-For", flooderAddress)
				floodSent.Add(1)
				switch {
				case err == nil && got.Status == http.StatusOK:
					floodServed.Add(1)
				case err == nil && got.Status == http.StatusTooManyRequests && problemCode(got.Body) == "TooManyRequests" &&
					retryAfterSeconds(got) >= 1:
					floodLimited.Add(1)
					floodMu.Lock()
					floodRetryAfter[got.Header.Get("Retry-After")]++
					floodMu.Unlock()
				default:
					floodMu.Lock()
					if err != nil {
						floodWrong = append(floodWrong, fmt.Sprintf("%s: %v", r.name, err))
					} else {
						floodWrong = append(floodWrong, fmt.Sprintf("%s: %d Retry-After %q %s", r.name, got.Status, got.Header.Get("Retry-After"), got.Body))
					}
					floodMu.Unlock()
				}
			}
		})
	}
	stopFlood := sync.OnceValue(func() time.Duration {
		close(stop)
		flooding.Wait()
		return time.Since(floodStart)
	})
	defer stopFlood()
	eventually(t, 10*time.Second, func() bool { return floodLimited.Load() >= 100 }, "the flooder is limited")

	// The payer, on connections of its own, while the flood goes on.
	payer := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{}}
	defer payer.CloseIdleConnections()
	var (
		latencies    []time.Duration
		keys         []string
		payerWrong   []string
		payerLimited int
		paid         int64
		succeeded    int
		replays      int
	)
	send := func(r *replica, key, body string) (proctest.Answer, bool) {
		began := time.Now()
		got, err := proctest.Call(payer, http.MethodPost, r.url("/accounts/payer/payments"), body,
			"Idempotency-Key", key, "X-Forwarded-For", payerAddress)
		latencies = append(latencies, time.Since(began))
		switch {
		case err != nil:
			payerWrong = append(payerWrong, fmt.Sprintf("%s %s: %v", r.name, key, err))
			return got, false
		case got.Status == http.StatusTooManyRequests:
			payerLimited++
			fallthrough
		case got.Status != http.StatusCreated:
			payerWrong = append(payerWrong, fmt.Sprintf("%s %s: %d %s", r.name, key, got.Status, got.Body))
			return got, false
		}
		return got, true
	}
	tick := time.NewTicker(floodPaymentEvery)
	payStart := time.Now()
	for n := range floodPayments {
		<-tick.C // the payer's pace
		key := fmt.Sprintf("flood-pay-%d", n)
		amount := int64(1 + n%5)
		body := fmt.Sprintf(`{"amount":%d}`, amount)
		keys = append(keys, key)
		first, ok := send(replicas[n%2], key, body)
		if !ok {
			continue
		}
		succeeded++
		paid += amount
		if first.Header.Get("Idempotent-Replayed") != "" {
			t.Errorf("the first payment under %s was answered as a replay", key)
		}
		if n%floodReplayEvery != 0 {
			continue
		}
		again, ok := send(replicas[(n+1)%2], key, body)
		if !ok {
			continue
		}
		replays++
		if again.Header.Get("Idempotent-Replayed") != "true" || again.Body != first.Body {
			t.Errorf("the payment under %s sent again was not the first answer replayed: Idempotent-Replayed %q\n%s\nfirst:\n%s",
				key, again.Header.Get("Idempotent-Replayed"), again.Body, first.Body)
		}
	}
	tick.Stop()
	paying := time.Since(payStart)
	flooded := stopFlood()

	// What the flooder saw.
	sent, served, limited := floodSent.Load(), floodServed.Load(), floodLimited.Load()
	if len(floodWrong) > 0 {
		t.Errorf("%d of the flooder's requests were answered neither 200 nor 429 TooManyRequests with Retry-After, the first: %v",
			len(floodWrong), floodWrong[:min(5, len(floodWrong))])
	}
	// The limit is a sliding window of a second on each replica: over the flood, no more than
	// the limit for each second begun, and one window more, on each.
	if most := int64(len(replicas)) * floodRateLimit * (int64(flooded/time.Second) + 2); served > most {
		t.Errorf("the flooder was served %d requests in %s, more than %d that %d a second on %d replicas allow",
			served, flooded.Round(time.Millisecond), most, floodRateLimit, len(replicas))
	}
	if limited < sent/2 {
		t.Errorf("only %d of the flooder's %d requests were limited", limited, sent)
	}

	// What the payer saw, and what the service kept of it.
	if len(payerWrong) > 0 {
		t.Errorf("%d of the payer's requests did not succeed (%d of them limited), the first: %v",
			len(payerWrong), payerLimited, payerWrong[:min(5, len(payerWrong))])
	}
	p50, p99 := percentile(latencies, 50), percentile(latencies, 99)
	if p99 >= floodPayerP99 {
		t.Errorf("the payer's p99 latency was %s during the flood, want under %s (p50 %s, slowest %s)",
			p99.Round(time.Millisecond), floodPayerP99, p50.Round(time.Millisecond), slices.Max(latencies).Round(time.Millisecond))
	}
	recorded := paymentsRecordedOnce(t, s.pool, keys)
	if got := accountBalance(t, s, b, "payer"); got != owed-paid {
		t.Errorf("the balance is %d after %d cents paid on %d owed, want %d", got, paid, owed, owed-paid)
	}
	inHistory, historyPaid := paymentsInHistory(t, s, a, "payer")
	if inHistory != succeeded || historyPaid != paid {
		t.Errorf("the history shows %d payments of %d cents in all, want %d of %d", inHistory, historyPaid, succeeded, paid)
	}
	lost := len(keys) - recorded
	t.Logf("FAULTS flood: rate-limit=%d/s flood-workers=%d flood-requests=%d flood-rate=%.0f/s flood-200=%d flood-429=%d retry-after=%v flood-other=%d "+
		"payer-requests=%d payments=%d replays=%d paying-took=%s payer-429=%d payer-failed=%d payer-p50=%.1fms payer-p99=%.1fms lost=%d",
		floodRateLimit, floodWorkers, sent, float64(sent)/flooded.Seconds(), served, limited, floodRetryAfter, len(floodWrong),
		len(latencies), succeeded, replays, paying.Round(time.Millisecond), payerLimited, len(payerWrong),
		float64(p50.Microseconds())/1000, float64(p99.Microseconds())/1000, lost)
}

// retryAfterSeconds is an answer's Retry-After in whole seconds, 0 when it has none.
func retryAfterSeconds(a proctest.Answer) int {
	n, err := strconv.Atoi(a.Header.Get("Retry-After"))
	if err != nil {
		return 0
	}
	return n
}

// percentile is the p-th percentile of ds, by the nearest rank.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	sorted := slices.Clone(ds)
	slices.Sort(sorted)
	rank := (p*len(sorted) + 99) / 100 // ceil(p/100 × n)
	return sorted[max(rank, 1)-1]
}

// accountBalance reads a member's balance from GET /accounts/{memberId}.
func accountBalance(t *testing.T, s *system, r *replica, member string) int64 {
	t.Helper()
	got := s.must(r, http.StatusOK, http.MethodGet, "/accounts/"+member, "")
	var view struct {
		Balance int64 `json:"balance"`
	}
	if err := json.Unmarshal([]byte(got.Body), &view); err != nil {
		t.Fatalf("GET /accounts/%s: %v\n%s", member, err, got.Body)
	}
	return view.Balance
}

// paymentsInHistory counts the payments in a member's history, and their amounts, over every
// page of GET /accounts/{memberId}/history.
func paymentsInHistory(t *testing.T, s *system, r *replica, member string) (payments int, amount int64) {
	t.Helper()
	path := "/accounts/" + member + "/history?limit=1000"
	for {
		got := s.must(r, http.StatusOK, http.MethodGet, path, "")
		var page struct {
			Entries []struct {
				Type string `json:"type"`
				Data struct {
					Amount int64 `json:"amount"`
				} `json:"data"`
			} `json:"entries"`
			Next *int64 `json:"next"`
		}
		if err := json.Unmarshal([]byte(got.Body), &page); err != nil {
			t.Fatalf("GET %s: %v\n%s", path, err, got.Body)
		}
		for _, e := range page.Entries {
			if e.Type == "PaymentReceived" {
				payments++
				amount += e.Data.Amount
			}
		}
		if page.Next == nil {
			return payments, amount
		}
		path = fmt.Sprintf("/accounts/%s/history?limit=1000&before=%d", member, *page.Next)
	}
}
