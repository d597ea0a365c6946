package main

// Two processes of the built binary on one database and one SMTP server: the outbox's
// holder is killed, and the other process takes over.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/config"
	"library/internal/notifications"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/smtptest"
)

// holds reports whether the process says it holds the named processor's lease; false when it
// can't be asked. A view's name stands for the build of it the process reads (on a fresh
// database, the catalog's is catalog@2: this release's build replaces the migrations' first).
// An admin token, when given, is sent: /status wants one with sign-in on.
func holds(p *process, name string, adminToken ...string) bool {
	req, err := http.NewRequest(http.MethodGet, p.URL("/status"), nil)
	if err != nil {
		return false
	}
	for _, token := range adminToken {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false
	}
	defer func() { _ = resp.Body.Close() }()
	var status struct {
		Processors []struct {
			Name       string `json:"name"`
			HoldsLease bool   `json:"holdsLease"`
			View       string `json:"view"`
			Reads      bool   `json:"reads"`
		} `json:"processors"`
	}
	if resp.StatusCode != http.StatusOK || json.NewDecoder(resp.Body).Decode(&status) != nil {
		return false
	}
	for _, s := range status.Processors {
		if s.View == name && s.Reads || s.View == "" && s.Name == name {
			return s.HoldsLease
		}
	}
	return false
}

// waitUntil polls cond until it holds or timeout passes.
func waitUntil(t testing.TB, timeout time.Duration, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", timeout, msg)
		}
		time.Sleep(5 * time.Millisecond) // polling a condition, bounded by the deadline
	}
}

// replicaPair is a holder and a standby of every lease, on one database and SMTP server.
type replicaPair struct {
	holder, standby *process
	smtp            *smtptest.Server
}

func startPair(t testing.TB, databaseURL string, smtp *smtptest.Server) replicaPair {
	t.Helper()
	// Every loan goes to alice: no limit on how many books she may have out.
	env := []string{"DATABASE_URL=" + databaseURL, "SMTP_URL=" + smtp.URL(), "MAX_LOANS=100000"}
	holder := start(t, append(env, "REPLICA_ID=holder")...)
	for _, name := range []string{"catalog", "notifications", "late-fines"} {
		waitUntil(t, 10*time.Second, func() bool { return holds(holder, name) }, "the first process to hold "+name)
	}
	standby := start(t, append(env, "REPLICA_ID=standby")...)
	return replicaPair{holder: holder, standby: standby, smtp: smtp}
}

// lendVia adds a book and lends it to alice through p, returning the loan's position, or
// false when p did not answer (it was killed).
func lendVia(t testing.TB, p *process, n int) (int64, bool) {
	book := fmt.Sprintf("book-%d", n)
	add, err := tryCall(http.MethodPost, p.URL("/books"), `{"id":"`+book+`","title":"Book `+book+`","author":"A. Author"}`)
	if err != nil {
		return 0, false
	}
	require.Contains(t, []int{http.StatusCreated, http.StatusConflict}, add.status, add.body)
	lent, err := tryCall(http.MethodPost, p.URL("/books/"+book+"/loans"), `{"loanId":"loan-`+book+`","memberId":"alice"}`)
	if err != nil {
		return 0, false
	}
	require.Contains(t, []int{http.StatusCreated, http.StatusOK}, lent.status, lent.body)
	var result struct {
		Position int64 `json:"position"`
	}
	require.NoError(t, json.Unmarshal([]byte(lent.body), &result))
	return result.Position, true
}

// emailPosition is the position of the loan a loan email is for, 0 for anything else.
func emailPosition(m smtptest.Message) int64 {
	p, _ := notifications.PositionOf(m.MessageID)
	return p
}

// SIGKILL of the outbox's holder in the middle of 200 loans: the standby takes over from the
// shared checkpoint and every loan gets its email. Emails of the batch in flight at the kill
// may be sent twice; the test reports how many were, and the time to take over.
func TestSIGKILLOfTheHolderMidStream(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	pair := startPair(t, pgtest.NewDatabase(t), smtp)
	r := call(t, http.MethodPut, pair.standby.URL("/accounts/alice"), `{"name":"Alice","email":"alice@example.org"}`)
	require.Equal(t, http.StatusCreated, r.status, r.body)

	const loans, killAt = 200, 60
	var positions []int64
	var killed time.Time
	var took time.Duration
	tookOver := make(chan struct{})
	for n := range loans {
		if n == killAt {
			require.NoError(t, pair.holder.Signal(syscall.SIGKILL))
			killed = time.Now()
			go func() { // when the standby says it holds the outbox, while loans go on
				defer close(tookOver)
				for time.Since(killed) < 10*time.Second && !holds(pair.standby, "notifications") {
					time.Sleep(5 * time.Millisecond) // sampling /status
				}
				took = time.Since(killed)
			}()
		}
		via := pair.holder
		if n%2 == 1 || n >= killAt {
			via = pair.standby
		}
		position, ok := lendVia(t, via, n)
		require.True(t, ok, "loan %d via a live process", n)
		positions = append(positions, position)
	}
	<-tookOver
	require.Less(t, took, 10*time.Second, "the standby took over")

	want := map[int64]bool{}
	for _, p := range positions {
		want[p] = true
	}
	waitUntil(t, 30*time.Second, func() bool {
		got := map[int64]bool{}
		for _, m := range smtp.Messages() {
			got[emailPosition(m)] = true
		}
		for id := range want {
			if !got[id] {
				return false
			}
		}
		return true
	}, "every loan's email")

	sent := smtp.Messages()
	count := map[int64]int{}
	var firstAfterKill time.Time
	for _, m := range sent {
		count[emailPosition(m)]++
		require.True(t, want[emailPosition(m)], "an email for something other than a loan: %s", m.MessageID)
		if m.Received.After(killed) && (firstAfterKill.IsZero() || m.Received.Before(firstAfterKill)) {
			firstAfterKill = m.Received
		}
	}
	duplicates := len(sent) - len(count)
	// Only an email the relay accepted in the instant before the kill, and the holder had not
	// recorded yet, can go twice: at most the emails in flight.
	require.LessOrEqual(t, duplicates, config.Defaults().SMTPMaxInFlight, "at most the emails in flight are sent twice")
	t.Logf("%d loans, %d emails, %d duplicates; the standby held the lease %s after SIGKILL and sent its first email %s after it",
		loans, len(sent), duplicates, took.Round(time.Millisecond), firstAfterKill.Sub(killed).Round(time.Millisecond))
}

// BenchmarkTakeover measures the time from a signal to the outbox's holder to the standby's
// email for a loan made right after it, five times per signal, and reports the median:
//
//	go test -run '^$' -bench Takeover -benchtime 1x ./cmd/library
func BenchmarkTakeover(b *testing.B) {
	for _, signal := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		b.Run(signal.String(), func(b *testing.B) {
			for range b.N {
				var times []time.Duration
				for round := range 5 {
					times = append(times, takeoverOnce(b, signal, round))
				}
				slices.Sort(times)
				b.ReportMetric(float64(times[len(times)/2].Milliseconds()), "median-ms")
				b.ReportMetric(float64(times[len(times)-1].Milliseconds()), "max-ms")
				b.Logf("%s: %v", signal, times)
			}
		})
	}
}

func takeoverOnce(b *testing.B, signal syscall.Signal, round int) time.Duration {
	smtp := smtptest.Start(b)
	pair := startPair(b, pgtest.NewDatabase(b), smtp)
	r, err := tryCall(http.MethodPut, pair.standby.URL("/accounts/alice"), `{"name":"Alice","email":"alice@example.org"}`)
	require.NoError(b, err)
	require.Equal(b, http.StatusCreated, r.status, r.body)
	if _, ok := lendVia(b, pair.standby, 0); !ok {
		b.Fatal("the standby did not answer")
	}
	smtp.WaitForMessages(b, 1, 10*time.Second) // the holder is at work

	require.NoError(b, pair.holder.Signal(signal))
	signalled := time.Now()
	position, ok := lendVia(b, pair.standby, 1)
	require.True(b, ok)
	var at time.Time
	waitUntil(b, 10*time.Second, func() bool {
		for _, m := range smtp.Messages() {
			if emailPosition(m) == position {
				at = m.Received
				return true
			}
		}
		return false
	}, fmt.Sprintf("round %d: the standby's email", round))
	_ = pair.standby.Signal(syscall.SIGTERM)
	_ = pair.holder.Wait(b, 30*time.Second)
	_ = pair.standby.Wait(b, 30*time.Second)
	return at.Sub(signalled)
}
