//go:build faults

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/testkit/pgtest"
	"library/internal/testkit/proctest"
	"library/internal/testkit/smtptest"
)

// adminToken is the replicas' ADMIN_TOKEN.
const adminToken = "faults-admin-token-at-least-32-characters"

// system is one database, one SMTP server and the replicas that share them.
type system struct {
	t        *testing.T
	database string // the replicas' DATABASE_URL unless a replica is given its own
	pool     *pgxpool.Pool
	smtp     *smtptest.Server
	smtpURL  string // the replicas' SMTP_URL
	client   *http.Client
	replicas []*replica
}

func newSystem(t *testing.T) *system {
	database := pgtest.NewDatabase(t)
	smtp := smtptest.Start(t)
	return &system{
		t: t, database: database, pool: pgtest.Connect(t, database), smtp: smtp, smtpURL: smtp.URL(),
		client: &http.Client{Timeout: 10 * time.Second},
	}
}

// replica is one process of the binary, restarted with the same environment after a kill.
type replica struct {
	name string
	env  []string

	mu       sync.Mutex
	process  *proctest.Process
	restarts int
}

// start starts a replica named name; extra adds to or overrides its environment.
func (s *system) start(name string, extra ...string) *replica {
	s.t.Helper()
	env := append([]string{
		"REPLICA_ID=" + name, "DATABASE_URL=" + s.database, "SMTP_URL=" + s.smtpURL,
		"ADMIN_TOKEN=" + adminToken, "LOG_LEVEL=info", "SHUTDOWN_DELAY=0s",
		// The faults lend many books to one reader, and to members fined heavily to be paid.
		"MAX_LOANS=100000", "BLOCK_AT=1000000000",
	}, extra...)
	r := &replica{name: name, env: env, process: proctest.Start(s.t, env...)}
	s.replicas = append(s.replicas, r)
	return r
}

func (r *replica) current() *proctest.Process {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.process
}

// kill sends SIGKILL and waits for the process to be gone.
func (r *replica) kill() { r.current().Kill() }

// restart starts the replica again, on a new port.
func (r *replica) restart(t *testing.T) {
	t.Helper()
	p := proctest.Start(t, r.env...)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.process, r.restarts = p, r.restarts+1
}

func (r *replica) url(path string) string { return r.current().URL(path) }

// logs is the log of every process the replica has run, the current one last.
func (r *replica) logs() string { return r.current().Output() }

// call sends one request to a replica.
func (s *system) call(r *replica, method, path, body string, headers ...string) (proctest.Answer, error) {
	return proctest.Call(s.client, method, r.url(path), body, headers...)
}

// must sends one request to a replica and fails the test unless it gets want.
func (s *system) must(r *replica, want int, method, path, body string, headers ...string) proctest.Answer {
	s.t.Helper()
	a, err := s.call(r, method, path, body, headers...)
	if err != nil || a.Status != want {
		s.t.Fatalf("%s %s on %s: %v %d %s, want %d", method, path, r.name, err, a.Status, a.Body, want)
	}
	return a
}

// outcome is what a client saw of one logical request, over all its attempts.
type outcome struct {
	attempts int
	failures []string // errors and 5xx answers that were retried, as "503 Unavailable" or the error
	answers  []proctest.Answer
}

// retry sends a request as a careful client does: to a random replica, again with the same
// body and headers after an error or a 5xx, until an answer below 500 or the deadline.
func (s *system) retry(method, path, body string, headers ...string) outcome {
	var o outcome
	deadline := time.Now().Add(90 * time.Second)
	for wait := 20 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
		r := s.replicas[rand.IntN(len(s.replicas))]
		o.attempts++
		a, err := s.call(r, method, path, body, headers...)
		switch {
		case err == nil && a.Status < 500:
			o.answers = append(o.answers, a)
			return o
		case err == nil:
			o.answers = append(o.answers, a)
			o.failures = append(o.failures, fmt.Sprintf("%d %s", a.Status, problemCode(a.Body)))
		default:
			o.failures = append(o.failures, err.Error())
		}
		if time.Now().After(deadline) {
			return o
		}
		time.Sleep(wait) // a client's backoff between retries
	}
}

// once sends a request once, to a random replica: what a client does with a request it can't
// safely repeat.
func (s *system) once(method, path, body string, headers ...string) outcome {
	r := s.replicas[rand.IntN(len(s.replicas))]
	a, err := s.call(r, method, path, body, headers...)
	if err != nil {
		return outcome{attempts: 1, failures: []string{err.Error()}}
	}
	return outcome{attempts: 1, answers: []proctest.Answer{a}}
}

func problemCode(body string) string {
	var p struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal([]byte(body), &p)
	return p.Code
}

// processorStatus is one processor in a replica's /status.
type processorStatus struct {
	Name       string `json:"name"`
	View       string `json:"view"`
	State      string `json:"state"`
	HoldsLease bool   `json:"holdsLease"`
	Checkpoint int64  `json:"checkpoint"`
	Lag        int64  `json:"lag"`
	Parked     int64  `json:"parked"`
}

// status reads a replica's /status; ok is false when the replica did not answer 200.
func (s *system) status(r *replica) (map[string]processorStatus, bool) {
	a, err := s.call(r, http.MethodGet, "/status", "")
	if err != nil || a.Status != http.StatusOK {
		return nil, false
	}
	var st struct {
		Processors []processorStatus `json:"processors"`
	}
	if json.Unmarshal([]byte(a.Body), &st) != nil {
		return nil, false
	}
	// A view model is known by its view's name: its build that answers (view@n once a new
	// version of its code was built), as the admin routes know it.
	out := make(map[string]processorStatus, len(st.Processors))
	for _, p := range st.Processors {
		if _, taken := out[p.Name]; !taken {
			out[p.Name] = p
		}
		if p.View != "" && p.State == "answering" {
			out[p.View] = p
		}
	}
	return out, true
}

var processors = []string{"catalog", "notifications", "late-fines"}

// holdsAll reports whether r holds every processor's lease, by its /status.
func (s *system) holdsAll(r *replica) bool {
	st, ok := s.status(r)
	if !ok {
		return false
	}
	for _, name := range processors {
		if !st[name].HoldsLease {
			return false
		}
	}
	return true
}

// leaseHeld reads the lease gauge from a replica's /metrics (on METRICS_ADDR), which answers without the
// database: 1 while the replica runs the processor.
func (s *system) leaseHeld(r *replica, processor string) (bool, error) {
	url := r.current().MetricsURL()
	if url == "" {
		return false, fmt.Errorf("replica %s serves no metrics yet", r.name)
	}
	a, err := proctest.Call(s.client, http.MethodGet, url, "")
	if err != nil {
		return false, err
	}
	line := fmt.Sprintf(`library_processor_lease_held{processor=%q} 1`, processor)
	return strings.Contains(a.Body, line+"\n"), nil
}

// eventually polls cond until it holds or the timeout passes.
func eventually(t *testing.T, timeout time.Duration, cond func() bool, format string, args ...any) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not true after %s: "+format, append([]any{timeout}, args...)...)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition with a deadline
	}
}

// dumpOnFailure prints every replica's log when the test fails.
func (s *system) dumpOnFailure() {
	s.t.Cleanup(func() {
		if !s.t.Failed() {
			return
		}
		for _, r := range s.replicas {
			s.t.Logf("--- %s (restarted %d times), last process:\n%s", r.name, r.restarts, r.logs())
		}
		s.t.Logf("--- the database:\n%s", s.state())
	})
}

// state is what the database holds that says where background work stands: the checkpoints,
// the timers, what is parked, and the log's last events.
func (s *system) state() string {
	var b strings.Builder
	for _, q := range []string{
		`SELECT name, generation, position, updated_at FROM processor_checkpoints ORDER BY name`,
		`SELECT processor, key, due_at, fire_at, attempts, last_error FROM processor_timers ORDER BY fire_at LIMIT 50`,
		`SELECT name, position, type, reason, attempts FROM processor_parked ORDER BY position LIMIT 50`,
		`SELECT position, stream_id, type, left(data::text, 200), recorded_at FROM events ORDER BY position DESC LIMIT 40`,
	} {
		fmt.Fprintf(&b, "%s\n", q)
		rows, err := s.pool.Query(context.Background(), q)
		if err != nil {
			fmt.Fprintf(&b, "  %v\n", err)
			continue
		}
		for rows.Next() {
			values, err := rows.Values()
			if err != nil {
				fmt.Fprintf(&b, "  %v\n", err)
				break
			}
			fmt.Fprintf(&b, "  %v\n", values)
		}
		rows.Close()
	}
	return b.String()
}
