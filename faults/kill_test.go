//go:build faults

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"library/internal/config"
	"library/internal/testkit/smtptest"
)

const (
	kills    = 20
	loans    = 500
	payments = 500
	members  = 50
	fine     = 100_000 // cents charged to each member before the payments
)

// job is one logical request of the load: a loan, a keyed payment, or a fine without a key.
type job struct {
	method, path, body string
	headers            []string
	key                string // the payment's Idempotency-Key, "" for a loan or a fine
	member             string
	// once: a fine without a key, sent once and never retried (nothing could tell a retry
	// from a second fine), to check what its answer says: recorded on a 2xx, not on an error.
	// Its request id is its own, so that the log's metadata tells which fine an event is: the
	// reason is sealed.
	once      bool
	requestID string
}

// fines is how many fines without a key go out during the kills, each once.
const fines = 200

// Twenty SIGKILLs of random replicas, each restarted at once, while clients lend 500 books and
// make 500 keyed payments, retrying on the other replica whenever an attempt fails. Afterwards:
// every payment recorded once, every balance exact, every loan emailed at least once, the
// catalog complete, no checkpoint moved back.
func TestSIGKILLsOfRandomReplicasDuringLoansAndPayments(t *testing.T) {
	s := newSystem(t)
	s.dumpOnFailure()
	a := s.start("a")
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) }, "a holds every lease")
	b := s.start("b") // after: started together, b may take a lease first, and a wait for it

	for m := range members {
		member := fmt.Sprintf("m%d", m)
		s.must(a, http.StatusCreated, http.MethodPut, "/accounts/"+member,
			fmt.Sprintf(`{"name":"Member %d","email":"%s@example.org"}`, m, member))
		s.must(b, http.StatusCreated, http.MethodPost, "/accounts/"+member+"/fines",
			fmt.Sprintf(`{"amount":%d,"reason":"setup"}`, fine))
	}
	for i := range loans {
		s.must(a, http.StatusCreated, http.MethodPost, "/books",
			fmt.Sprintf(`{"id":"b%d","title":"Book %d","author":"Author %d"}`, i, i, i))
	}

	jobs := make([]job, 0, loans+payments)
	for i := range loans {
		jobs = append(jobs, job{method: http.MethodPost, path: fmt.Sprintf("/books/b%d/loans", i),
			body: fmt.Sprintf(`{"loanId":"loan-%d","memberId":"m%d"}`, i, i%members)})
		key := fmt.Sprintf("pay-%d", i)
		member := fmt.Sprintf("m%d", (i*7)%members)
		jobs = append(jobs, job{method: http.MethodPost, path: "/accounts/" + member + "/payments",
			body: `{"amount":1}`, headers: []string{"Idempotency-Key", key}, key: key, member: member})
		if i < fines {
			requestID := fmt.Sprintf("fine-%d", i)
			jobs = append(jobs, job{method: http.MethodPost, path: fmt.Sprintf("/accounts/f%d/fines", i%10),
				body: `{"amount":1,"reason":"late"}`, once: true, requestID: requestID})
		}
	}

	watch := watchCheckpoints(s.pool)
	queue := make(chan int, len(jobs))
	outcomes := make([]outcome, len(jobs))
	var done atomic.Int64
	var workers sync.WaitGroup
	for range 8 {
		workers.Go(func() {
			for i := range queue {
				j := jobs[i]
				if j.once {
					outcomes[i] = s.once(j.method, j.path, j.body, "X-Request-Id", j.requestID)
				} else {
					outcomes[i] = s.retry(j.method, j.path, j.body, j.headers...)
				}
				done.Add(1)
			}
		})
	}

	// The jobs go out in twenty parts, each queued while the one before is under way; halfway
	// through each part, a random replica is killed and restarted, with requests in flight.
	var takeovers []time.Duration
	var holderKills []time.Time // when the outbox's holder was killed
	part := len(jobs) / kills
	release := func(k int) {
		for i := k * part; i < min((k+1)*part, len(jobs)); i++ {
			queue <- i
		}
	}
	release(0)
	for k := range kills {
		release(k + 1)
		eventually(t, 60*time.Second, func() bool { return done.Load() >= int64(k*part+part/2) }, "part %d is half done", k)
		victim, other := a, b
		if rand.IntN(2) == 1 {
			victim, other = b, a
		}
		held, _ := s.leaseHeld(victim, "notifications")
		killed := time.Now()
		victim.kill()
		if held {
			holderKills = append(holderKills, killed)
			eventually(t, 10*time.Second, func() bool { ok, _ := s.leaseHeld(other, "notifications"); return ok },
				"%s takes the outbox over after %s was killed", other.name, victim.name)
			takeovers = append(takeovers, time.Since(killed))
		}
		victim.restart(t)
	}
	close(queue)
	workers.Wait()

	attempts, retried, fiveHundreds, replayed := 0, 0, 0, 0
	paid := map[string]int{}
	var keys []string
	finesAnswered := checkFinesWithoutKey(t, s, jobs, outcomes)
	for i, o := range outcomes {
		if jobs[i].once {
			continue
		}
		attempts += o.attempts
		retried += len(o.failures)
		for _, f := range o.failures {
			if strings.HasPrefix(f, "5") {
				fiveHundreds++
			}
		}
		last := o.answers[len(o.answers)-1:]
		if len(last) == 0 || last[0].Status >= 300 {
			t.Fatalf("%s %s never succeeded: %+v", jobs[i].method, jobs[i].path, o)
		}
		if jobs[i].key != "" {
			if last[0].Header.Get("Idempotent-Replayed") == "true" {
				replayed++ // an attempt the client never heard from had recorded the payment
			}
			keys = append(keys, jobs[i].key)
			paid[jobs[i].member]++
			// A retry after the fact gets the very answer the client got.
			again := s.must(a, http.StatusCreated, jobs[i].method, jobs[i].path, jobs[i].body, jobs[i].headers...)
			if again.Body != last[0].Body || again.Header.Get("Idempotent-Replayed") != "true" {
				t.Errorf("payment %s: the retry answered %s, the client had %s", jobs[i].key, again.Body, last[0].Body)
			}
		}
	}

	recorded := paymentsRecordedOnce(t, s.pool, keys)
	for member, n := range paid {
		var account struct {
			Balance int64 `json:"balance"`
		}
		got := s.must(b, http.StatusOK, http.MethodGet, "/accounts/"+member, "")
		if err := json.Unmarshal([]byte(got.Body), &account); err != nil || account.Balance != int64(fine-n) {
			t.Errorf("%s: balance %s, want %d", member, got.Body, fine-n)
		}
	}
	loansMade, emails, duplicates := loanEmails(t, s.pool, s.smtp, 2*time.Minute)
	if loansMade != loans {
		t.Errorf("the log holds %d loans, want %d", loansMade, loans)
	}
	// An email goes twice only when the relay accepted it in the instant before its holder was
	// killed, before the holder recorded it: at most the emails in flight, per takeover.
	perTakeover, unexplained := duplicatesPerKill(s.smtp.Messages(), holderKills)
	if unexplained > 0 {
		t.Errorf("%d emails were sent twice with no kill of the outbox's holder before them", unexplained)
	}
	if most := slices.Max(append(perTakeover, 0)); most > config.Defaults().SMTPMaxInFlight {
		t.Errorf("%d emails sent twice after one takeover: more than the emails in flight (%d)", most, config.Defaults().SMTPMaxInFlight)
	}
	catalogCaughtUp(t, s.pool, time.Minute)
	watch.check(t)
	longest := time.Duration(0)
	for _, d := range takeovers {
		longest = max(longest, d)
	}
	t.Logf("FAULTS kills: SIGKILLs=%d requests=%d attempts=%d retried=%d 5xx=%d payments=%d replayed-payments=%d fines-without-key=%d answered=%v loans=%d emails=%d duplicates=%d outbox-takeovers=%d duplicates-per-takeover=%v longest-takeover=%s",
		kills, len(jobs), attempts, retried, fiveHundreds, recorded, replayed, fines, finesAnswered, loansMade, emails, duplicates, len(takeovers),
		perTakeover, longest.Round(time.Millisecond))
}

// duplicatesPerKill counts the repeated emails after each kill of the outbox's holder: each
// email the relay got again is put down to the last kill before it. unexplained counts repeats
// that came before any kill.
func duplicatesPerKill(msgs []smtptest.Message, kills []time.Time) (perKill []int, unexplained int) {
	perKill = make([]int, len(kills))
	seen := map[string]bool{}
	for _, m := range msgs {
		if !seen[m.MessageID] {
			seen[m.MessageID] = true
			continue
		}
		k := -1
		for i, at := range kills {
			if !at.After(m.Received) {
				k = i
			}
		}
		if k < 0 {
			unexplained++
			continue
		}
		perKill[k]++
	}
	return perKill, unexplained
}

// checkFinesWithoutKey checks the fines sent once each: one whose answer was a 2xx is in the log
// exactly once, one answered with an error is not in it at all, and one whose answer was lost
// (its replica was killed) is in it at most once. It returns how many got each kind of answer.
func checkFinesWithoutKey(t *testing.T, s *system, jobs []job, outcomes []outcome) map[string]int {
	t.Helper()
	answered := map[string]int{}
	for i, j := range jobs {
		if !j.once {
			continue
		}
		var n int
		err := s.pool.QueryRow(context.Background(),
			`SELECT count(*) FROM events WHERE type = 'FineCharged' AND metadata->>'correlationId' = $1`, j.requestID).Scan(&n)
		if err != nil {
			t.Fatal(err)
		}
		o := outcomes[i]
		switch {
		case len(o.answers) == 0:
			answered["lost"]++
			if n > 1 {
				t.Errorf("%s, whose answer was lost, is in the log %d times", j.requestID, n)
			}
		case o.answers[0].Status < 300:
			answered["2xx"]++
			if n != 1 {
				t.Errorf("%s was answered %d but is in the log %d times", j.requestID, o.answers[0].Status, n)
			}
		default:
			answered[strconv.Itoa(o.answers[0].Status)]++
			if n != 0 {
				t.Errorf("%s was answered %d (%s) but is in the log", j.requestID, o.answers[0].Status, problemCode(o.answers[0].Body))
			}
		}
	}
	return answered
}
