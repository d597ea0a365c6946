//go:build faults

package faults

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

const (
	shelfWaiters = 24 // members in the book's queue
	// HOLD_PICKUP: how long the book waits for each, long enough for the pickup email to come
	// and the member to borrow on a loaded machine, where an email may take seconds.
	shelfPickup = 10 * time.Second
	shelfBook   = "long-queue"
	shelfTitle  = "The Long Queue"
)

// shelfKill is one SIGKILL of the hold shelf's holder: after the return by the served-th
// member to pick the book up, at once (the next hold's email and timer in flight), or once the
// next hold's timer is saved (it must fire on the other replica).
type shelfKill struct {
	served     int
	timerSaved bool
}

var shelfKills = []shelfKill{{served: 4}, {served: 10, timerSaved: true}}

// Twenty-four members wait for one book, which goes round the queue with a 10 s hold shelf: every
// other member (w00, w02, …) borrows it when the pickup email comes and returns it at once;
// the others never come, and their holds expire on the saga's timer. The replica that runs the
// hold shelf and the outbox is killed twice and restarted, while clients go through whichever
// replica answers. Afterwards, from the book's stream in the log and the SMTP server: the book
// was held for each member once, in the order they asked, never for two at once; each got one
// pickup email (a repeat only after a kill, with the same Message-ID); each non-picker's hold
// expired, each picker's was fulfilled; no timer is left.
func TestHoldShelfGoesRoundTheQueueThroughSIGKILLs(t *testing.T) {
	t.Parallel() // it mostly waits for the clock: see the package comment
	began := time.Now()
	s := newSystem(t)
	s.dumpOnFailure()
	settings := []string{"HOLD_PICKUP=" + shelfPickup.String(), fmt.Sprintf("HOLDS_MAX=%d", shelfWaiters)}
	a := s.start("a", settings...)
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) && s.holdsShelf(a) }, "a holds every lease")
	s.start("b", settings...) // after: started together, b may take a lease first, and a wait for it
	s.queueUp(a)
	watch := watchCheckpoints(s.pool)
	s.retryUntil2xx(http.MethodPost, "/books/"+shelfBook+"/returns", `{"loanId":"first-loan"}`)

	// Someone not in line asks for the book all along, through either replica: refused every
	// time, as held or as lent, until the queue is done.
	interloper := s.askWithoutHold(t)
	round := s.goRound(t)
	asked := interloper.stop()
	s.borrowOnceBackOnTheShelf(t)

	shelf := foldShelf(t, s, shelfBook)
	shelf.check(t, shelfWaiterIDs())
	if _, ok := shelf.lateBy[round.timerThroughKill]; !ok {
		t.Errorf("the hold of %s, whose timer was saved when the saga's holder was killed, did not expire", round.timerThroughKill)
	}
	emails := checkPickupEmails(t, s, shelf, round.kills)
	loans, loanMails, loanDuplicates := loanEmails(t, s.pool, s.smtp, time.Minute)
	s.noShelfTimersLeft(t, 30*time.Second)
	nothingParked(t, s.pool)
	watch.check(t)
	t.Logf("FAULTS holds: members=%d pickup=%s holds-placed=%d held=%d pickup-emails=%d pickup-duplicates=%d expired=%d fulfilled=%d latest-expiry=%s expiry-after-kill=%s interloper=%v interloper-retried=%d loans=%d loan-emails=%d loan-duplicates=%d holder-kills=%d takeovers=%v time=%s",
		shelfWaiters, shelfPickup, len(shelf.placed), len(shelf.held), emails.total, emails.duplicates, len(shelf.expired), len(shelf.fulfilled),
		shelf.latestExpiry.Round(time.Millisecond), shelf.lateBy[round.timerThroughKill].Round(time.Millisecond), asked.refusals, asked.retried,
		loans, loanMails, loanDuplicates, len(round.kills), roundedMillis(round.takeovers), time.Since(began).Round(time.Second))
}

// queueUp opens the members' accounts, adds the book, lends it, and puts the members in its
// queue, one after the other: the queue's order is shelfWaiterIDs' order.
func (s *system) queueUp(r *replica) {
	s.t.Helper()
	for _, m := range append(shelfWaiterIDs(), "first", "interloper", "after") {
		s.must(r, http.StatusCreated, http.MethodPut, "/accounts/"+m, fmt.Sprintf(`{"name":"Member %s","email":"%s@example.org"}`, m, m))
	}
	s.must(r, http.StatusCreated, http.MethodPost, "/books", fmt.Sprintf(`{"id":%q,"title":%q,"author":"A"}`, shelfBook, shelfTitle))
	s.retryUntil2xx(http.MethodPost, "/books/"+shelfBook+"/loans", `{"loanId":"first-loan","memberId":"first"}`)
	for _, m := range shelfWaiterIDs() {
		s.retryUntil2xx(http.MethodPost, "/books/"+shelfBook+"/holds", fmt.Sprintf(`{"memberId":%q}`, m), "Idempotency-Key", "hold-"+m)
	}
}

// shelfRound is what happened as the book went round the queue.
type shelfRound struct {
	kills            []time.Time // when the hold shelf's holder was killed
	takeovers        []time.Duration
	timerThroughKill string // the member whose hold's timer was saved when its holder was killed
}

// goRound sends the book round the queue: a picker comes for it when their email comes, and
// brings it back at once; the others never come. The hold shelf's holder is killed as
// shelfKills says.
func (s *system) goRound(t *testing.T) shelfRound {
	t.Helper()
	var r shelfRound
	served := map[string]bool{}
	for len(served) < shelfWaiters/2 {
		m := s.nextPickup(t, served, 3*shelfPickup)
		lend := fmt.Sprintf(`{"loanId":%q,"memberId":%q}`, "loan-"+m, m)
		if o := s.retry(http.MethodPost, "/books/"+shelfBook+"/loans", lend); !ended2xx(o) {
			t.Fatalf("%s could not borrow the book held for them: %+v", m, o)
		}
		s.retryUntil2xx(http.MethodPost, "/books/"+shelfBook+"/returns", fmt.Sprintf(`{"loanId":%q}`, "loan-"+m))
		served[m] = true
		for _, k := range shelfKills {
			if k.served != len(served) {
				continue
			}
			if k.timerSaved {
				r.timerThroughKill = s.waitForATimerOtherThan(t, m)
			}
			killed, took := s.killShelfHolder(t)
			r.kills, r.takeovers = append(r.kills, killed), append(r.takeovers, took)
		}
	}
	return r
}

// borrowOnceBackOnTheShelf waits for the last in line, who never comes: once their hold
// expires, the book is back on the shelf, and anyone may borrow it.
func (s *system) borrowOnceBackOnTheShelf(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(3 * shelfPickup)
	for {
		o := s.retry(http.MethodPost, "/books/"+shelfBook+"/loans", `{"loanId":"after-loan","memberId":"after"}`)
		if ended2xx(o) {
			return
		}
		if conflictCode(o) != "BookOnHold" || time.Now().After(deadline) {
			t.Fatalf("the book did not come back on the shelf after the last hold: %+v", o)
		}
		time.Sleep(100 * time.Millisecond) // polling the shelf as a client would
	}
}

func shelfWaiterIDs() []string {
	ids := make([]string, shelfWaiters)
	for i := range ids {
		ids[i] = fmt.Sprintf("w%02d", i)
	}
	return ids
}

// picksUp reports whether a member in the queue comes for the book: every other one does.
func picksUp(member string) bool {
	var n int
	_, _ = fmt.Sscanf(member, "w%d", &n)
	return n%2 == 0
}

// retryUntil2xx sends a request as retry does and fails the test unless it ends in a 2xx.
func (s *system) retryUntil2xx(method, path, body string, headers ...string) {
	s.t.Helper()
	if o := s.retry(method, path, body, headers...); !ended2xx(o) {
		s.t.Fatalf("%s %s: %+v", method, path, o)
	}
}

func ended2xx(o outcome) bool {
	return len(o.answers) > 0 && o.answers[len(o.answers)-1].Status < 300
}

// conflictCode is the code of a 409 that ended o, "" for any other end.
func conflictCode(o outcome) string {
	last := o.answers[len(o.answers)-1:]
	if len(last) == 0 || last[0].Status != http.StatusConflict {
		return ""
	}
	return problemCode(last[0].Body)
}

// holdsShelf reports whether r runs the hold shelf and the outbox, by its metrics.
func (s *system) holdsShelf(r *replica) bool {
	shelf, err := s.leaseHeld(r, "hold-shelf")
	if err != nil || !shelf {
		return false
	}
	outbox, err := s.leaseHeld(r, "notifications")
	return err == nil && outbox
}

// nextPickup waits for a pickup email to a picker not yet served, and returns the picker.
func (s *system) nextPickup(t *testing.T, served map[string]bool, within time.Duration) string {
	t.Helper()
	var found string
	eventually(t, within, func() bool {
		for m := range pickupsByMember(s.smtp.Messages()) {
			if picksUp(m) && !served[m] {
				found = m
				return true
			}
		}
		return false
	}, "a pickup email for the next picker (%d served)", len(served))
	return found
}

// waitForATimerOtherThan waits until the hold shelf has saved a timer for a hold other than
// served's: the next hold's, which a kill must not lose. It returns whose hold it is.
func (s *system) waitForATimerOtherThan(t *testing.T, served string) string {
	t.Helper()
	prefix := "hold:" + shelfBook + ":"
	var key string
	eventually(t, 2*shelfPickup, func() bool {
		err := s.pool.QueryRow(context.Background(),
			`SELECT key FROM processor_timers WHERE processor = 'hold-shelf' AND key <> $1`, prefix+served).Scan(&key)
		return err == nil
	}, "the next hold's timer is saved")
	return strings.TrimPrefix(key, prefix)
}

// killShelfHolder kills the replica that runs the hold shelf, waits for the other to run it and
// the outbox, and restarts the one killed. It returns when the kill was and how long the
// other took to take over.
func (s *system) killShelfHolder(t *testing.T) (time.Time, time.Duration) {
	t.Helper()
	var victim, other *replica
	eventually(t, 10*time.Second, func() bool {
		for i, r := range s.replicas {
			if s.holdsShelf(r) {
				victim, other = r, s.replicas[1-i]
				return true
			}
		}
		return false
	}, "one replica runs the hold shelf and the outbox")
	killed := time.Now()
	victim.kill()
	eventually(t, 10*time.Second, func() bool { return s.holdsShelf(other) },
		"%s takes the hold shelf and the outbox over after %s was killed", other.name, victim.name)
	took := time.Since(killed)
	victim.restart(t)
	return killed, took
}

// noShelfTimersLeft waits until the hold shelf has no timer: each expired or was cancelled.
func (s *system) noShelfTimersLeft(t *testing.T, within time.Duration) {
	t.Helper()
	var keys []string
	deadline := time.Now().Add(within)
	for {
		keys = keys[:0]
		rows, err := s.pool.Query(context.Background(), `SELECT key FROM processor_timers WHERE processor = 'hold-shelf'`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				t.Fatal(err)
			}
			keys = append(keys, k)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		if len(keys) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("the hold shelf still has timers after %s: %s", within, strings.Join(keys, ", "))
			return
		}
		time.Sleep(50 * time.Millisecond) // polling for the saga
	}
}

func roundedMillis(ds []time.Duration) []time.Duration {
	out := make([]time.Duration, len(ds))
	for i, d := range ds {
		out[i] = d.Round(time.Millisecond)
	}
	return out
}
