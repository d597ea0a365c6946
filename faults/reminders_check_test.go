//go:build faults

package faults

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"library/internal/config"
	"library/internal/notifications"
	"library/internal/testkit/smtptest"
)

// remindLoan is one loan of the reminders test.
type remindLoan struct {
	book, loan, member, email, title string
	dueAt                            time.Time // as lent
	renewedTo                        time.Time // the due time its renewal gave it; zero if not renewed
}

// key is the loan's timer of a kind, as the outbox names it: "due-soon:{bookId}/{loanId}".
func (l *remindLoan) key(kind string) string { return kind + ":" + l.book + "/" + l.loan }

// memberEmail is member m's address, each member at a domain of their own: the outbox keeps
// at most SMTP_MAX_PER_DOMAIN emails in flight to one domain, and the test is of a takeover,
// not of that limit.
func memberEmail(m int) string { return fmt.Sprintf("rm%d@library-%d.example", m, m) }

// timerTime is a time as a timer keeps it: UTC, to the microsecond.
func timerTime(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

// expected is a reminder that should come: its Message-ID, loan, subject and due time.
type expected struct {
	id      string
	loan    *remindLoan
	subject string
	at      time.Time
}

// expectations are the reminders that should come, by Message-ID: each is made from the
// timer's key and due time and the installation, so that the test knows every id in advance
// and an email it does not know is one that should not have come.
type expectations struct {
	ids  notifications.MessageIDs
	byID map[string]expected
}

func newExpectations(t *testing.T, pool *pgxpool.Pool) *expectations {
	t.Helper()
	var installation string
	if err := pool.QueryRow(context.Background(), `SELECT id::text FROM installation`).Scan(&installation); err != nil {
		t.Fatal(err)
	}
	return &expectations{ids: notifications.NewMessageIDs(installation, config.Defaults().MailFrom), byID: map[string]expected{}}
}

// dueSoon expects the loan's due-soon reminder for the due time due.
func (e *expectations) dueSoon(l *remindLoan, due time.Time) {
	at := timerTime(due.Add(-remindBefore))
	id := e.ids.ForTimer(l.key("due-soon"), at)
	e.byID[id] = expected{id: id, loan: l, subject: "Due soon: " + l.title, at: at}
}

func (e *expectations) overdueID(l *remindLoan, n int) string {
	return e.ids.ForTimer(l.key("overdue"), timerTime(l.dueAt.Add(overdueAfter+time.Duration(n-1)*overdueEvery)))
}

// overdue expects the loan's overdue notice n.
func (e *expectations) overdue(l *remindLoan, n int) {
	id := e.overdueID(l, n)
	e.byID[id] = expected{id: id, loan: l, subject: "Overdue: " + l.title, at: timerTime(l.dueAt.Add(overdueAfter + time.Duration(n-1)*overdueEvery))}
}

// arrived counts the expected reminders whose subject starts with prefix that the server has
// accepted, each once however often it came.
func (e *expectations) arrived(smtp *smtptest.Server, prefix string) int {
	seen := map[string]bool{}
	for _, m := range smtp.Messages() {
		if x, ok := e.byID[m.MessageID]; ok && strings.HasPrefix(x.subject, prefix) {
			seen[m.MessageID] = true
		}
	}
	return len(seen)
}

// await waits until n of the expected reminders whose subject starts with prefix have come.
func (e *expectations) await(t *testing.T, smtp *smtptest.Server, prefix string, n int, within time.Duration) {
	t.Helper()
	eventuallyNil(t, within, func() error {
		if got := e.arrived(smtp, prefix); got < n {
			return fmt.Errorf("%d of %d came", got, n)
		}
		return nil
	}, fmt.Sprintf("reminders %q", prefix))
}

// firstArrival is when the server first accepted the email with this Message-ID.
func (e *expectations) firstArrival(smtp *smtptest.Server, id string) (time.Time, bool) {
	for _, m := range smtp.Messages() {
		if m.MessageID == id {
			return m.Received, true
		}
	}
	return time.Time{}, false
}

// reminderCounts is what check found.
type reminderCounts struct {
	dueSoon, overdue int // distinct Message-IDs that came
	repeats          int // messages beyond the first with one Message-ID
	unexpected       int // reminders no loan should have had
	// latestDueSoon is the longest from a due-soon reminder's time to its first arrival.
	latestDueSoon time.Duration
}

// check checks every email the server accepted that is not a loan email: each one expected,
// to its member, with its book's title, never before its time, and a due-soon reminder at
// most REMIND_BEFORE/2 late (a takeover included); every expected one came; and a Message-ID
// that came again did so after the kill.
func (e *expectations) check(t *testing.T, smtp *smtptest.Server, killed time.Time) reminderCounts {
	t.Helper()
	var c reminderCounts
	seen := map[string]bool{}
	for _, m := range smtp.Messages() {
		if _, loanEmail := notifications.PositionOf(m.MessageID); loanEmail {
			continue
		}
		x, ok := e.byID[m.MessageID]
		if !ok {
			c.unexpected++
			if c.unexpected <= 10 {
				t.Errorf("an email that should not have come: %q to %v at %s, %s", m.Subject, m.To, m.Received.Format(time.StampMilli), m.MessageID)
			}
			continue
		}
		if m.Subject != x.subject || !slices.Equal(m.To, []string{x.loan.email}) {
			t.Errorf("%s: %q to %v, want %q to %s", x.id, m.Subject, m.To, x.subject, x.loan.email)
		}
		if m.Received.Before(x.at) {
			t.Errorf("%q for %s came at %s, before its time %s", m.Subject, x.loan.loan, m.Received.Format(time.StampMicro), x.at.Format(time.StampMicro))
		}
		if seen[m.MessageID] {
			c.repeats++
			if m.Received.Before(killed) {
				t.Errorf("%q for %s came again before any kill", m.Subject, x.loan.loan)
			}
			continue
		}
		seen[m.MessageID] = true
		if strings.HasPrefix(x.subject, "Due soon: ") {
			c.dueSoon++
			c.latestDueSoon = max(c.latestDueSoon, m.Received.Sub(x.at))
		} else {
			c.overdue++
		}
	}
	if c.latestDueSoon > remindBefore/2 {
		t.Errorf("a due-soon reminder came %s after its time, more than REMIND_BEFORE/2", c.latestDueSoon)
	}
	missing := 0
	for id, x := range e.byID {
		if !seen[id] {
			if missing++; missing <= 10 {
				t.Errorf("%q for %s (due %s) never came", x.subject, x.loan.loan, x.at.Format(time.StampMilli))
			}
		}
	}
	return c
}

// timersOf reads the outbox's timers of the loans: due time by key.
func timersOf(t *testing.T, pool *pgxpool.Pool, loans []*remindLoan) map[string]time.Time {
	t.Helper()
	var keys []string
	for _, l := range loans {
		keys = append(keys, l.key("due-soon"), l.key("overdue"))
	}
	rows, err := pool.Query(context.Background(),
		`SELECT key, due_at FROM processor_timers WHERE processor = $1 AND key = ANY($2)`, notifications.OutboxName, keys)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var key string
		var due time.Time
		if err := rows.Scan(&key, &due); err != nil {
			t.Fatal(err)
		}
		out[key] = due
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// timersMoved says how the renewed loans' timers differ from their new due time's: the
// due-soon reminder REMIND_BEFORE before it, the first overdue notice OVERDUE_AFTER after it.
func timersMoved(t *testing.T, pool *pgxpool.Pool, renewed []*remindLoan) error {
	t.Helper()
	got := timersOf(t, pool, renewed)
	for _, l := range renewed {
		for key, want := range map[string]time.Time{
			l.key("due-soon"): timerTime(l.renewedTo.Add(-remindBefore)),
			l.key("overdue"):  timerTime(l.renewedTo.Add(overdueAfter)),
		} {
			if at, ok := got[key]; !ok || !at.Equal(want) {
				return fmt.Errorf("%s is due at %s (scheduled: %v), want %s", key, at.UTC().Format(time.StampMicro), ok, want.Format(time.StampMicro))
			}
		}
	}
	return nil
}

// eventuallyNil polls check until it returns nil, failing the test with its last error once
// timeout has passed.
func eventuallyNil(t *testing.T, timeout time.Duration, check func() error, what string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not true after %s: %s: %v", timeout, what, err)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition with a deadline
	}
}
