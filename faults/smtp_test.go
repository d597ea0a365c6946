//go:build faults

package faults

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"library/internal/testkit/pgtest"
)

// smtpOutage is how long the SMTP server is down: the retry budget (six tries over about a
// minute) must cover it without parking anything.
const smtpOutage = 30 * time.Second

// The SMTP server is down for 30 seconds (connections are taken and dropped at once) while
// loans are made. The API keeps answering, every loan gets its email once the server is back,
// and nothing is parked: the retry budget covers an outage this long.
func TestSMTPDownFor30Seconds(t *testing.T) {
	s := newSystem(t)
	smtpProxy, throughProxy := pgtest.NewProxy(t, s.smtpURL)
	s.smtpURL = throughProxy
	s.dumpOnFailure()
	a := s.start("a")
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) }, "a holds every lease")
	b := s.start("b") // after: started together, b may take a lease first, and a wait for it
	s.must(a, http.StatusCreated, http.MethodPut, "/accounts/reader", `{"name":"Reader","email":"reader@example.org"}`)

	down := time.Now()
	smtpProxy.Cut()
	const lent = 20
	for n := range lent {
		r := []*replica{a, b}[n%2]
		s.must(r, http.StatusCreated, http.MethodPost, "/books", fmt.Sprintf(`{"id":"down-%d","title":"Book %d","author":"A"}`, n, n))
		s.must(r, http.StatusCreated, http.MethodPost, fmt.Sprintf("/books/down-%d/loans", n), fmt.Sprintf(`{"loanId":"down-loan-%d","memberId":"reader"}`, n))
	}
	eventually(t, 10*time.Second, func() bool {
		st, ok := s.status(a)
		return ok && st["notifications"].Lag > 0
	}, "the outbox is held up by the outage")
	time.Sleep(time.Until(down.Add(smtpOutage))) // the outage lasts its full length
	if got := len(s.smtp.Messages()); got != 0 {
		t.Fatalf("%d emails went through a server that was down", got)
	}
	nothingParked(t, s.pool)
	smtpProxy.Restore()
	restored := time.Now()

	loans, emails, duplicates := loanEmails(t, s.pool, s.smtp, 90*time.Second)
	delivered := time.Since(restored)
	nothingParked(t, s.pool)
	t.Logf("FAULTS smtp-down: outage=%s loans=%d emails=%d duplicates=%d parked=0 last-email-after-restore=%s",
		smtpOutage, loans, emails, duplicates, delivered.Round(time.Millisecond))
}

// slowDelay is how long the slow SMTP server takes over each message.
const slowDelay = 2 * time.Second

// An SMTP server that takes seconds over each message: the outbox keeps several of the loans'
// emails in flight at once, each is sent once, and the API answers promptly all the while.
func TestSlowSMTPServer(t *testing.T) {
	s := newSystem(t)
	s.dumpOnFailure()
	s.smtp.SetDelay(slowDelay)
	a := s.start("a")
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) }, "a holds every lease")
	b := s.start("b") // after: started together, b may take a lease first, and a wait for it
	s.must(a, http.StatusCreated, http.MethodPut, "/accounts/reader", `{"name":"Reader","email":"reader@example.org"}`)
	s.must(a, http.StatusCreated, http.MethodPost, "/accounts/reader/fines", `{"amount":100000,"reason":"setup"}`)

	const lent = 5
	for n := range lent {
		r := []*replica{a, b}[n%2]
		s.must(r, http.StatusCreated, http.MethodPost, "/books", fmt.Sprintf(`{"id":"slow-%d","title":"Book %d","author":"A"}`, n, n))
		s.must(r, http.StatusCreated, http.MethodPost, fmt.Sprintf("/books/slow-%d/loans", n), fmt.Sprintf(`{"loanId":"slow-loan-%d","memberId":"reader"}`, n))
	}

	// While the outbox is busy with the slow server, clients on both replicas get prompt
	// answers: the API does not wait on mail.
	prompt := &http.Client{Timeout: slowDelay}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var slow []string
	requests := 0
	for c := range 4 {
		wg.Go(func() {
			r := []*replica{a, b}[c%2]
			for i := range 25 {
				path := "/accounts/reader/payments"
				req, err := http.NewRequest(http.MethodPost, r.url(path), strings.NewReader(`{"amount":1}`))
				if err != nil {
					t.Error(err)
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Idempotency-Key", "slow-pay-"+strconv.Itoa(c)+"-"+strconv.Itoa(i))
				resp, err := prompt.Do(req)
				mu.Lock()
				requests++
				switch {
				case err != nil:
					slow = append(slow, err.Error())
				case resp.StatusCode != http.StatusCreated:
					slow = append(slow, resp.Status)
				}
				mu.Unlock()
				if err == nil {
					_ = resp.Body.Close()
				}
			}
		})
	}
	wg.Wait()
	if len(slow) > 0 {
		t.Errorf("%d of %d requests failed or took over %s while mail was slow: %v", len(slow), requests, slowDelay, slow[:min(5, len(slow))])
	}
	st, _ := s.status(a)
	if st["notifications"].Lag == 0 {
		t.Errorf("the outbox had caught up before the requests ended: the server was not slow enough to show anything")
	}

	loans, emails, duplicates := loanEmails(t, s.pool, s.smtp, time.Duration(lent+2)*slowDelay*3)
	atOnce := s.smtp.MaxConversations()
	if atOnce < 2 {
		t.Errorf("the slow server had at most %d conversation open at once: the outbox sent one email at a time", atOnce)
	}
	if duplicates > 0 {
		t.Errorf("%d emails sent twice to a slow server", duplicates)
	}
	t.Logf("FAULTS slow-smtp: delay=%s loans=%d emails=%d duplicates=%d at-once=%d requests-meanwhile=%d failed-or-slow=%d",
		slowDelay, loans, emails, duplicates, atOnce, requests, len(slow))
}
