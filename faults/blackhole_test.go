//go:build faults

package faults

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"library/internal/processor"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/pgtest"
)

// takeoverBound is what the lease settings promise for a holder cut off without a word: the
// server ends its silent session after the session timeout (5 s), and a standby queued for the
// lock gets it at once; a second covers a loaded machine.
const takeoverBound = pgdriver.DefaultLeaseSessionTimeout + time.Second

// The link between the lease holder and PostgreSQL goes silent: a proxy stops forwarding and
// closes nothing. The holder stops processing before the standby starts; the standby takes
// over within the bound the lease settings promise and sends the emails of loans made in the
// meantime; a write from the holder's last checkpoint is fenced; and once the link is back the
// old holder serves again as a standby.
func TestBlackholedLeaseHolder(t *testing.T) {
	s := newSystem(t)
	s.dumpOnFailure()
	hole, throughHole := pgtest.NewBlackhole(t, s.database)
	a := s.start("a", "DATABASE_URL="+throughHole)
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) }, "a holds every lease")
	b := s.start("b")
	s.must(b, http.StatusCreated, http.MethodPut, "/accounts/reader", `{"name":"Reader","email":"reader@example.org"}`)
	lend := func(n int) {
		s.must(b, http.StatusCreated, http.MethodPost, "/books", fmt.Sprintf(`{"id":"hole-%d","title":"Book %d","author":"A"}`, n, n))
		s.must(b, http.StatusCreated, http.MethodPost, fmt.Sprintf("/books/hole-%d/loans", n), fmt.Sprintf(`{"loanId":"hole-loan-%d","memberId":"reader"}`, n))
	}
	lend(0)
	loanEmails(t, s.pool, s.smtp, 10*time.Second)
	watch := watchCheckpoints(s.pool)
	stale := savedCheckpoint(t, s, "notifications") // what the holder last saved

	frozen := time.Now()
	hole.Freeze()
	for n := 1; n <= 5; n++ {
		lend(n) // b serves requests throughout: its own connections are fine
	}

	var aStopped, bTook time.Time
	eventually(t, 2*takeoverBound, func() bool {
		var ok bool
		if aStopped, ok = firstLog(a.logs(), frozen, "notifications", "lease lost: the lock connection failed its check", "lease given up; a standby may take it"); !ok {
			return false
		}
		bTook, ok = firstLog(b.logs(), frozen, "notifications", "lease taken: this replica runs the processor")
		return ok
	}, "a gives the outbox up and b takes it")
	if !aStopped.Before(bTook) {
		t.Errorf("b took the lease at %s, before a stopped at %s", bTook.Format(time.StampMicro), aStopped.Format(time.StampMicro))
	}
	if took := bTook.Sub(frozen); took > takeoverBound {
		t.Errorf("b took the lease %s after the partition; the lease settings promise %s", took, takeoverBound)
	}
	loanEmails(t, s.pool, s.smtp, 30*time.Second) // b sent what was lent during the partition

	// A write from where the cut-off holder last was is refused once b has moved the checkpoint
	// (b saves it a moment after the emails it sent, so wait for the move first).
	eventually(t, 10*time.Second, func() bool { return savedCheckpoint(t, s, "notifications") != stale },
		"b moves the outbox checkpoint past where a left it")
	next := stale
	next.Checkpoint.Position++
	err := pgdriver.NewCheckpoints(s.pool).Save(context.Background(), "notifications", stale, next)
	if !errors.Is(err, processor.ErrFenced) {
		t.Errorf("a write from the stale checkpoint %+v: %v, want ErrFenced", stale, err)
	}

	hole.Thaw()
	eventually(t, 30*time.Second, func() bool {
		st, ok := s.status(a)
		return ok && !st["notifications"].HoldsLease && s.holdsAll(b)
	}, "a serves again, as the standby")
	lend(6)
	_, emails, duplicates := loanEmails(t, s.pool, s.smtp, 30*time.Second)
	watch.check(t)
	t.Logf("FAULTS blackhole: holder-stopped-after=%s standby-took-after=%s bound=%s loans=7 emails=%d duplicates=%d stale-write=%v",
		aStopped.Sub(frozen).Round(time.Millisecond), bTook.Sub(frozen).Round(time.Millisecond), takeoverBound, emails, duplicates, err)
}

// savedCheckpoint reads a processor's checkpoint from the database, once it has saved one: the
// outbox saves it after the email it sent, so an email can be seen a moment before it.
func savedCheckpoint(t *testing.T, s *system, name string) processor.Position {
	t.Helper()
	var pos processor.Position
	var xid string
	var err error
	eventually(t, 10*time.Second, func() bool {
		err = s.pool.QueryRow(context.Background(),
			`SELECT generation, transaction_id::text, position FROM processor_checkpoints WHERE name = $1`, name).
			Scan(&pos.Generation, &xid, &pos.Checkpoint.Position)
		return !errors.Is(err, pgx.ErrNoRows)
	}, "%s saves a checkpoint", name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(xid, &pos.Checkpoint.TransactionID); err != nil {
		t.Fatal(err)
	}
	return pos
}

// firstLog finds the time of the first log entry after since about processor whose message is
// one of msgs.
func firstLog(logs string, since time.Time, processor string, msgs ...string) (time.Time, bool) {
	scanner := bufio.NewScanner(strings.NewReader(logs))
	scanner.Buffer(make([]byte, 64<<10), 1<<20)
	for scanner.Scan() {
		var entry struct {
			Time      time.Time `json:"time"`
			Msg       string    `json:"msg"`
			Processor string    `json:"processor"`
		}
		if json.Unmarshal(scanner.Bytes(), &entry) != nil || entry.Processor != processor || entry.Time.Before(since) {
			continue
		}
		for _, m := range msgs {
			if entry.Msg == m {
				return entry.Time, true
			}
		}
	}
	return time.Time{}, false
}
