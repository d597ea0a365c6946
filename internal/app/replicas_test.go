package app_test

// Two replicas of the service in one test process, sharing one PostgreSQL database and one
// SMTP server: background work runs in one of them at a time, and moves to the other when the
// first goes away, from where it stopped.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/pgtest"
	"library/internal/testkit/smtptest"
)

type replica struct {
	*api
	name string
	stop func()
}

// startReplicas starts two replicas, "a" and "b", on one fresh database and smtp.
func startReplicas(t *testing.T, smtp *smtptest.Server) (databaseURL string, replicas []*replica) {
	t.Helper()
	databaseURL = pgtest.NewDatabase(t)
	for _, name := range []string{"a", "b"} {
		cfg := fastBackground(app.Config{DatabaseURL: databaseURL, SMTPURL: smtp.URL(), ReplicaID: name})
		base, stop := runService(t, cfg)
		replicas = append(replicas, &replica{api: &api{Base: base, Store: "postgres"}, name: name, stop: stop})
	}
	return databaseURL, replicas
}

// holder waits until exactly one of the replicas says it holds the named lease and the others
// say they don't, and returns the holder.
func holder(t *testing.T, replicas []*replica, name string) *replica {
	t.Helper()
	var found *replica
	eventually(t, 10*time.Second, func() bool {
		found = nil
		for _, r := range replicas {
			if processorStatus(t, r.api, name).HoldsLease {
				if found != nil {
					return false
				}
				found = r
			}
		}
		return found != nil
	}, "exactly one holder of %s", name)
	return found
}

// requireOneEmailPerLoan checks that the server got exactly one email for each of the loans'
// positions and nothing else.
func requireOneEmailPerLoan(t *testing.T, smtp *smtptest.Server, loans []result, replicas ...*replica) {
	t.Helper()
	want := map[int64]bool{}
	for _, l := range loans {
		want[l.Position] = true
	}
	deadline := time.Now().Add(20 * time.Second)
	for len(smtp.Messages()) < len(loans) {
		if time.Now().After(deadline) {
			dumpBackground(t, replicas...)
			t.Fatalf("%d emails after 20s, want %d", len(smtp.Messages()), len(loans))
		}
		time.Sleep(10 * time.Millisecond) // polling the server, bounded by the deadline
	}
	// Exactly once means no more come either: check again once the outbox has nothing left
	// in hand, on whichever replica holds it.
	waitOutboxIdle(t, replicas...)
	got := smtp.Messages()
	require.Len(t, got, len(loans), "emails once the outbox is idle")
	seen := map[int64]int{}
	for _, m := range got {
		seen[emailPosition(t, m.MessageID)]++
	}
	for position := range want {
		assert.Equal(t, 1, seen[position], "emails for the loan at %d", position)
	}
	assert.Len(t, seen, len(want), "no email for anything but the loans")
}

// waitOutboxIdle waits until a replica holds the outbox's lease with nothing left to read,
// in flight or deferred.
func waitOutboxIdle(t *testing.T, replicas ...*replica) {
	t.Helper()
	eventually(t, 20*time.Second, func() bool {
		for _, r := range replicas {
			resp, err := r.TrySend(http.MethodGet, "/status", nil)
			if err != nil || resp.Status != http.StatusOK {
				continue // a replica the test stopped
			}
			var s statusView
			if json.Unmarshal(resp.Body, &s) != nil {
				continue
			}
			for _, p := range s.Processors {
				if p.Name == notifications && p.HoldsLease && p.Lag == 0 && p.InFlight == 0 && p.Deferred == 0 {
					return true
				}
			}
		}
		return false
	}, "the outbox to be idle")
}

func TestTwoReplicasSendOneEmailPerLoan(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	_, replicas := startReplicas(t, smtp)
	a, b := replicas[0], replicas[1]
	setContact(t, a.api, "alice", "Alice", "alice@example.org")

	var loans []result
	for i := range 9 { // and one more below: as many as one member may have out (MAX_LOANS)
		via := replicas[i%2].api // commands go to either replica
		addBook(t, via, fmt.Sprintf("book-%d", i))
		loans = append(loans, lend(t, via, fmt.Sprintf("book-%d", i), fmt.Sprintf("loan-%d", i), "alice"))
	}
	requireOneEmailPerLoan(t, smtp, loans, replicas...)
	// The catalog answers on both replicas, holder or standby: minPosition waits on the
	// shared checkpoint.
	for _, r := range replicas {
		var list catalogList
		requireJSON(t, r.Get(t, fmt.Sprintf("/books?minPosition=%d&status=lent", loans[len(loans)-1].Position)), &list)
		assert.Len(t, list.Books, len(loans), "replica %s", r.name)
	}
	for _, name := range []string{catalogName, notifications, lateFines} {
		h := holder(t, replicas, name)
		for _, r := range replicas {
			if r != h {
				assert.False(t, processorStatus(t, r.api, name).HoldsLease, "the standby %s says it does not hold %s", r.name, name)
			}
		}
	}

	// The holder of the outbox goes away; the standby sends the next loan's email, and nothing
	// is sent twice or skipped.
	h := holder(t, replicas, notifications)
	standby := a
	if h == a {
		standby = b
	}
	h.stop()
	addBook(t, standby.api, "book-after")
	loans = append(loans, lend(t, standby.api, "book-after", "loan-after", "alice"))
	requireOneEmailPerLoan(t, smtp, loans, replicas...)
	assert.True(t, processorStatus(t, standby.api, notifications).HoldsLease)
}

// Parked emails are kept in the database: a restarted service still has them, and sends them
// when asked. (The email parked is one whose member gave no address within a second.)
func TestParkedEmailsSurviveARestart(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	cfg := fastBackground(app.Config{DatabaseURL: pgtest.NewDatabase(t), SMTPURL: smtp.URL(), EmailAddressWait: time.Second})
	base, stop := runService(t, cfg)
	first := &api{Base: base, Store: "postgres"}
	setContact(t, first, "dora", "Dora", "")
	addBook(t, first, "emma")
	lend(t, first, "emma", "loan-1", "dora")
	eventually(t, 10*time.Second, func() bool { return processorStatus(t, first, notifications).Parked == 1 }, "the email to be parked")
	stop()

	again := &api{Base: startService(t, cfg), Store: "postgres"}
	holder(t, []*replica{{api: again, name: "again"}}, notifications)
	require.Equal(t, 1, processorStatus(t, again, notifications).Parked)
	setContact(t, again, "dora", "Dora", "dora@example.org")
	r := admin(t, again, notifications, "retry-parked")
	require.Equal(t, http.StatusAccepted, r.Status)
	assert.JSONEq(t, `{"requeued":1}`, string(r.Body))
	got := smtp.WaitForMessages(t, 1, 10*time.Second)
	assert.Equal(t, []string{"dora@example.org"}, got[0].To)
}

// dumpBackground logs what each replica's /status says and where the processors' goroutines
// are, to explain a test that waited in vain.
func dumpBackground(t *testing.T, replicas ...*replica) {
	t.Helper()
	for _, r := range replicas {
		if resp, err := r.TrySend(http.MethodGet, "/status", nil); err == nil {
			t.Logf("replica %s: /status %d %s", r.name, resp.Status, resp.Body)
		}
	}
	// Readers wait for the oldest transaction that holds a transaction id, anywhere in the
	// cluster: name them.
	if rows, err := pgtest.Connect(t, os.Getenv(pgtest.EnvURL)).Query(context.Background(), `
SELECT pid, datname, application_name, state, backend_xid::text, (now() - xact_start)::text, left(query, 200)
FROM pg_stat_activity WHERE backend_xid IS NOT NULL OR backend_xmin IS NOT NULL`); err == nil {
		for rows.Next() {
			var pid int32
			var db, app, state, xid, age, query *string
			if rows.Scan(&pid, &db, &app, &state, &xid, &age, &query) == nil {
				t.Logf("backend %d db=%v app=%v state=%v xid=%v age=%v query=%v", pid, deref(db), deref(app), deref(state), deref(xid), deref(age), deref(query))
			}
		}
		rows.Close()
	}
	var stacks bytes.Buffer
	_ = pprof.Lookup("goroutine").WriteTo(&stacks, 2)
	for _, g := range strings.Split(stacks.String(), "\n\n") {
		if strings.Contains(g, "internal/processor.") || strings.Contains(g, "internal/notifications.") || strings.Contains(g, "internal/smtpclient.") {
			t.Logf("%s", g)
		}
	}
}

func deref(s *string) string {
	if s == nil {
		return "null"
	}
	return *s
}

// Processor names, as /status shows them.
const (
	catalogName   = "catalog"
	notifications = "notifications"
	lateFines     = "late-fines"
)

// The database ends the holder's lock session: the holder stops, the standby takes over, and
// the shared checkpoint never moves back.
func TestLeaseConnectionTerminated(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	databaseURL, replicas := startReplicas(t, smtp)
	setContact(t, replicas[0].api, "alice", "Alice", "alice@example.org")
	var loans []result
	lendOne := func(via *api) {
		n := len(loans)
		addBook(t, via, fmt.Sprintf("book-%d", n))
		loans = append(loans, lend(t, via, fmt.Sprintf("book-%d", n), fmt.Sprintf("loan-%d", n), "alice"))
	}
	for range 5 {
		lendOne(replicas[0].api)
	}
	requireOneEmailPerLoan(t, smtp, loans, replicas...)

	h := holder(t, replicas, notifications)
	standby := replicas[0]
	if h == standby {
		standby = replicas[1]
	}
	watch := watchCheckpoint(t, standby.api, notifications)

	conn := pgtest.Connect(t, databaseURL)
	key := pgdriver.LockKey(notifications)
	var terminated int
	err := conn.QueryRow(context.Background(), `
SELECT count(pg_terminate_backend(pid)) FROM pg_locks
WHERE locktype = 'advisory' AND granted AND objsubid = 1 AND classid::bigint = $1 AND objid::bigint = $2
  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
		int64(uint64(key)>>32), int64(uint64(key)&0xFFFFFFFF)).Scan(&terminated)
	require.NoError(t, err)
	require.Equal(t, 1, terminated, "one session holds the outbox's lock")

	eventually(t, 10*time.Second, func() bool {
		return processorStatus(t, standby.api, notifications).HoldsLease && !processorStatus(t, h.api, notifications).HoldsLease
	}, "the standby to take over")
	for range 5 {
		lendOne(h.api)
	}
	requireOneEmailPerLoan(t, smtp, loans, replicas...)
	watch.requireNeverBack(t)
}

// checkpointWatch records a processor's checkpoint as /status shows it, until the test ends.
type checkpointWatch struct {
	mu   sync.Mutex
	seen []processor.Position
	stop context.CancelFunc
	done chan struct{}
}

func watchCheckpoint(t *testing.T, a *api, name string) *checkpointWatch {
	ctx, cancel := context.WithCancel(context.Background())
	w := &checkpointWatch{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for ctx.Err() == nil {
			if r, err := a.TrySend(http.MethodGet, "/status", nil); err == nil && r.Status == http.StatusOK {
				var s statusView
				if decodeErr := json.Unmarshal(r.Body, &s); decodeErr == nil {
					for _, p := range s.Processors {
						if p.Name == name {
							w.mu.Lock()
							w.seen = append(w.seen, processor.Position{Generation: p.Generation,
								Checkpoint: eventstore.Checkpoint{Position: p.Checkpoint}})
							w.mu.Unlock()
						}
					}
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(5 * time.Millisecond): // sampling interval, not a wait for a result
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-w.done })
	return w
}

// requireNeverBack stops the watch and checks that the checkpoint only ever moved forward.
func (w *checkpointWatch) requireNeverBack(t *testing.T) {
	t.Helper()
	w.stop()
	<-w.done
	w.mu.Lock()
	defer w.mu.Unlock()
	require.NotEmpty(t, w.seen)
	for i := 1; i < len(w.seen); i++ {
		require.False(t, w.seen[i].Before(w.seen[i-1]), "checkpoint moved back from %+v to %+v", w.seen[i-1], w.seen[i])
	}
	t.Logf("checkpoint sampled %d times, from %+v to %+v", len(w.seen), w.seen[0], w.seen[len(w.seen)-1])
}
