//go:build faults

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"library/internal/notifications"
	"library/internal/testkit/proctest"
)

const (
	// stalledRecipient's RCPT is never answered: the outbox times out (SMTP's 10 s) at RCPT.
	stalledRecipient = "stalled@example.org"
	// refusedRecipient's RCPT is answered 454, and the relay keeps the connection.
	refusedRecipient = "refused@example.org"
	// otherLoans is how many loans to members the relay takes mail for.
	otherLoans = 100
	// retryAttempts is processor.DefaultRetry.Attempts, which the binary runs with.
	retryAttempts = 6
)

// A relay that stalls one recipient (RCPT never answered) and refuses another for now (454 at
// RCPT, the connection kept), while it takes all other mail, with 100 other loans made on both
// replicas: every other loan's email arrives once and soon, the two stalled emails are tried
// on the retry schedule and end parked, and sending never pauses: no relayDown failure in
// either replica's metrics, no "processor paused" in their logs, and /status never shows the
// relay down.
func TestRelayStallsOneRecipientWhileOthersGetTheirEmails(t *testing.T) {
	t.Parallel() // it mostly waits for the clock: see the package comment
	s := newSystem(t)
	s.dumpOnFailure()
	s.smtp.DelayRecipient(stalledRecipient, time.Hour)
	s.smtp.RefuseRecipientKeepOpen(refusedRecipient, 454, "4.7.0 try again later")
	a := s.start("a")
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) }, "a holds every lease")
	b := s.start("b") // after: started together, b may take a lease first, and a wait for it
	replicas := []*replica{a, b}

	watch := s.watchRelay(a, b)
	s.must(a, http.StatusCreated, http.MethodPut, "/accounts/stalled", fmt.Sprintf(`{"name":"Stalled","email":%q}`, stalledRecipient))
	s.must(b, http.StatusCreated, http.MethodPut, "/accounts/refused", fmt.Sprintf(`{"name":"Refused","email":%q}`, refusedRecipient))
	for m := range 10 {
		s.must(replicas[m%2], http.StatusCreated, http.MethodPut, fmt.Sprintf("/accounts/r%d", m),
			fmt.Sprintf(`{"name":"Reader %d","email":"reader-%d@domain-%d.example"}`, m, m, m))
	}
	lendTo := func(r *replica, book, member string) {
		s.must(r, http.StatusCreated, http.MethodPost, "/books", fmt.Sprintf(`{"id":%q,"title":"Book %s","author":"A"}`, book, book))
		s.must(r, http.StatusCreated, http.MethodPost, "/books/"+book+"/loans", fmt.Sprintf(`{"loanId":"loan-%s","memberId":%q}`, book, member))
	}
	start := time.Now()
	lendTo(a, "stalled", "stalled") // first in line
	lendTo(b, "refused", "refused")
	for n := range otherLoans {
		lendTo(replicas[n%2], fmt.Sprintf("other-%d", n), fmt.Sprintf("r%d", n%10))
	}
	lent := time.Now()

	// Every other loan's email arrives, once.
	stuck := map[int64]bool{}
	for _, book := range []string{"stalled", "refused"} {
		stuck[lentPosition(t, s, "book-"+book)] = true
	}
	loans, emails, duplicates, lastEmail := otherLoansEmailed(t, s, stuck, 60*time.Second)
	behind := max(0, lastEmail.Sub(lent)) // how long after the last loan its email came

	// The stalled two end parked, each after its six attempts.
	var parked []parkedEmail
	eventually(t, 4*time.Minute, func() bool {
		parked = parkedEmails(t, s)
		return len(parked) == 2
	}, "the two stalled emails parked")
	parkedAfter := time.Since(start)
	for _, p := range parked {
		if !stuck[p.position] {
			t.Errorf("parked the loan at %d, which the relay takes mail for: %s", p.position, p.reason)
		}
		if p.attempts != retryAttempts {
			t.Errorf("the loan at %d was parked after %d attempts, want %d: %s", p.position, p.attempts, retryAttempts, p.reason)
		}
	}
	for _, addr := range []string{stalledRecipient, refusedRecipient} {
		if n := s.smtp.Attempts(addr); n != retryAttempts {
			t.Errorf("the relay saw %d RCPT for %s, want %d", n, addr, retryAttempts)
		}
	}
	if got := len(s.smtp.Messages()); got != emails {
		t.Errorf("the relay took %d messages, %d of them the other loans'", got, emails)
	}

	// Sending never paused.
	downSeen, polls := watch.stop()
	if downSeen > 0 {
		t.Errorf("/status showed the relay down %d times in %d polls", downSeen, polls)
	}
	relayDown, temporary := 0.0, map[string]float64{}
	for _, r := range replicas {
		if n := strings.Count(r.logs(), "processor paused"); n > 0 {
			t.Errorf("replica %s paused a processor %d times:\n%s", r.name, n, r.logs())
		}
		down, temp := emailFailures(t, s, r)
		relayDown += down
		for reason, n := range temp {
			temporary[reason] += n
		}
	}
	if relayDown > 0 {
		t.Errorf("%v relayDown failures in the replicas' metrics", relayDown)
	}
	if temporary["timeout"] != retryAttempts || temporary["454"] != retryAttempts {
		t.Errorf("temporary failures by reason %v, want %d timeouts and %d 454s", temporary, retryAttempts, retryAttempts)
	}
	if duplicates > 0 {
		t.Errorf("%d emails sent twice", duplicates)
	}
	t.Logf("FAULTS smtp-stalled-recipient: stalls=rcpt-timeout,454 other-loans=%d lending-took=%s emails=%d duplicates=%d last-email-after-last-loan=%s "+
		"parked=%d attempts-each=%d parked-after=%s relay-down-failures=%v pauses=0 status-polls=%d relay-down-seen=%d",
		loans, lent.Sub(start).Round(time.Millisecond), emails, duplicates, behind.Round(time.Millisecond),
		len(parked), retryAttempts, parkedAfter.Round(time.Second), relayDown, polls, downSeen)
}

// lentPosition is the position of the BookLent of a book's stream.
func lentPosition(t *testing.T, s *system, stream string) int64 {
	t.Helper()
	var p int64
	if err := s.pool.QueryRow(context.Background(),
		`SELECT position FROM events WHERE stream_id = $1 AND type = 'BookLent'`, stream).Scan(&p); err != nil {
		t.Fatalf("the loan of %s: %v", stream, err)
	}
	return p
}

// otherLoansEmailed waits until every loan in the log but the stuck ones has had its email,
// and returns how many loans those are, how many messages the relay accepted for them, how
// many were sent more than once, and when the last one came.
func otherLoansEmailed(t *testing.T, s *system, stuck map[int64]bool, within time.Duration) (loans, emails, duplicates int, last time.Time) {
	t.Helper()
	rows, err := s.pool.Query(context.Background(), `SELECT position FROM events WHERE type = 'BookLent' ORDER BY position`)
	if err != nil {
		t.Fatal(err)
	}
	var positions []int64
	for rows.Next() {
		var p int64
		if err := rows.Scan(&p); err != nil {
			t.Fatal(err)
		}
		if !stuck[p] {
			positions = append(positions, p)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(within)
	for {
		seen := map[int64]int{}
		last = time.Time{}
		msgs := s.smtp.Messages()
		for _, m := range msgs {
			p, ok := notifications.PositionOf(m.MessageID)
			if !ok {
				continue
			}
			if stuck[p] {
				t.Fatalf("the relay took an email for the stuck loan at %d", p)
			}
			seen[p]++
			if m.Received.After(last) {
				last = m.Received
			}
		}
		missing := 0
		emails, duplicates = 0, 0
		for _, p := range positions {
			if seen[p] == 0 {
				missing++
			}
			emails += seen[p]
			duplicates += max(0, seen[p]-1)
		}
		if missing == 0 {
			return len(positions), emails, duplicates, last
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d other loans got no email after %s", missing, len(positions), within)
		}
		time.Sleep(50 * time.Millisecond) // polling for the last emails
	}
}

// parkedEmail is one row of the outbox's parked emails.
type parkedEmail struct {
	position int64
	attempts int
	reason   string
}

func parkedEmails(t *testing.T, s *system) []parkedEmail {
	t.Helper()
	rows, err := s.pool.Query(context.Background(),
		`SELECT position, attempts, reason FROM processor_parked WHERE name = 'notifications' ORDER BY position`)
	if err != nil {
		t.Fatal(err)
	}
	var out []parkedEmail
	for rows.Next() {
		var p parkedEmail
		if err := rows.Scan(&p.position, &p.attempts, &p.reason); err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// emailFailures reads a replica's library_email_failures_total: the relayDown failures, and
// the temporary ones by reason.
func emailFailures(t *testing.T, s *system, r *replica) (relayDown float64, temporary map[string]float64) {
	t.Helper()
	url := r.current().MetricsURL()
	if url == "" {
		t.Fatalf("replica %s serves no metrics", r.name)
	}
	a, err := proctest.Call(s.client, http.MethodGet, url, "")
	if err != nil {
		t.Fatal(err)
	}
	temporary = map[string]float64{}
	for _, line := range strings.Split(a.Body, "\n") {
		if !strings.HasPrefix(line, "library_email_failures_total{") {
			continue
		}
		labels, value, _ := strings.Cut(strings.TrimPrefix(line, "library_email_failures_total"), " ")
		var n float64
		if _, err := fmt.Sscan(value, &n); err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		switch {
		case strings.Contains(labels, `class="relayDown"`):
			relayDown += n
		case strings.Contains(labels, `class="temporary"`):
			_, reason, _ := strings.Cut(labels, `reason="`)
			reason, _, _ = strings.Cut(reason, `"`)
			temporary[reason] += n
		}
	}
	return relayDown, temporary
}

// relayWatch polls the replicas' /status for the outbox's relay state while a test runs.
type relayWatch struct {
	done chan struct{}
	wg   sync.WaitGroup

	mu          sync.Mutex
	polls, down int
}

func (s *system) watchRelay(replicas ...*replica) *relayWatch {
	w := &relayWatch{done: make(chan struct{})}
	w.wg.Go(func() {
		ticker := time.NewTicker(100 * time.Millisecond)
		defer ticker.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-ticker.C:
			}
			for _, r := range replicas {
				state, ok := relayState(s, r)
				if !ok {
					continue
				}
				w.mu.Lock()
				w.polls++
				if state == "down" {
					w.down++
				}
				w.mu.Unlock()
			}
		}
	})
	return w
}

// stop ends the watch and returns how often it saw the relay down, in how many polls.
func (w *relayWatch) stop() (down, polls int) {
	close(w.done)
	w.wg.Wait()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.down, w.polls
}

// relayState is the outbox's relay state in a replica's /status: "" where it doesn't hold the
// lease; ok is false when the replica did not answer.
func relayState(s *system, r *replica) (string, bool) {
	a, err := s.call(r, http.MethodGet, "/status", "")
	if err != nil || a.Status != http.StatusOK {
		return "", false
	}
	var st struct {
		Processors []struct {
			Name  string `json:"name"`
			Relay *struct {
				State string `json:"state"`
			} `json:"relay"`
		} `json:"processors"`
	}
	if json.Unmarshal([]byte(a.Body), &st) != nil {
		return "", false
	}
	for _, p := range st.Processors {
		if p.Name == "notifications" && p.Relay != nil {
			return p.Relay.State, true
		}
	}
	return "", true
}
