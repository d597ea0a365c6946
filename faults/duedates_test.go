//go:build faults

package faults

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"library/internal/calendar"
)

// The due-dates test's settings. The loans are due on one day at dueIn from the start, and that
// day is closed once they are made; their due time moves to the end of the next day, a day or
// two away, so REMIND_BEFORE is set for the due-soon reminder of the new due time to come
// remindAfter after the old due time. The old due time's overdue notice, OVERDUE_AFTER after
// it, would come before that: it must not.
const (
	dueLoans     = 100
	dueMembers   = 20
	dueZone      = "Asia/Kolkata" // a zone whose days are not UTC's
	dueIn        = 60 * time.Second
	remindAfter  = 10 * time.Second
	dueOverdue   = 5 * time.Second
	dueKillAfter = 5 // moves in the log when the saga's holder is killed
)

// 100 loans on two replicas, all due on one day; the day is closed, and once the due-dates saga
// has moved a few of them, the replica holding its lease gets SIGKILL (it is restarted at
// once) and the other takes over. Every loan is moved exactly once, to the end of the next day
// in LIBRARY_TIMEZONE, under the command id the loan and the day make; a replay of the saga
// then writes nothing. Each loan's due-soon reminder comes once, for the new due time, under
// the Message-ID the test works out from it; none comes for the old due time, nor its overdue
// notice, and the overdue timers wait at the new due time.
func TestSIGKILLOfTheDueDatesHolderWhileADayCloses(t *testing.T) {
	t.Parallel() // it mostly waits for the clock: see the package comment
	began := time.Now()
	zone, err := time.LoadLocation(dueZone)
	if err != nil {
		t.Fatal(err)
	}
	cal := calendar.NewCalendar().In(zone)
	oldDue := began.Add(dueIn).UTC().Truncate(time.Second)
	closed := cal.DateOf(oldDue)
	newDue := cal.EndOfDay(closed.AddDays(1)).UTC()
	remindAt := oldDue.Add(remindAfter)
	remindBefore := newDue.Sub(remindAt)

	s := newSystem(t)
	s.dumpOnFailure()
	settings := []string{"LIBRARY_TIMEZONE=" + dueZone, "REMIND_BEFORE=" + remindBefore.String(), "OVERDUE_AFTER=" + dueOverdue.String()}
	a := s.start("a", settings...)
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) && s.runsDueDates(a) }, "a holds every lease")
	b := s.start("b", settings...) // after: started together, b may take a lease first, and a wait for it
	replicas := []*replica{a, b}
	watch := watchCheckpoints(s.pool)
	loans, lentIn := s.lendAllUntil(t, replicas, oldDue)
	if left := time.Until(oldDue); left < dueIn/4 {
		t.Fatalf("the loans were made %s before their due time: too late to move them before it", left)
	}

	closing := s.must(b, http.StatusCreated, http.MethodPut, "/calendar/closed/"+closed.String(), "")
	atKill := s.movesWhen(t, func(n int) bool { return n >= dueKillAfter }, 20*time.Second)
	killed := time.Now()
	a.kill()
	if atKill >= dueLoans {
		t.Fatalf("all %d loans had moved before the kill: it came too late to test anything", atKill)
	}
	eventually(t, 20*time.Second, func() bool { return s.runsDueDates(b) }, "b takes the due-dates saga over after a was killed")
	takeover := time.Since(killed)
	a.restart(t)
	s.movesWhen(t, func(n int) bool { return n >= dueLoans }, time.Until(oldDue))
	movedIn := s.lastMoveAfter(t, closing.Body)
	s.checkMovedOnce(t, loans, closed, newDue)

	replayed := s.replayWritesNothing(t, b)

	exp := newExpectations(t, s.pool)
	for _, l := range loans {
		id := exp.ids.ForTimer(l.key("due-soon"), timerTime(remindAt))
		exp.byID[id] = expected{id: id, loan: l, subject: "Due soon: " + l.title, at: timerTime(remindAt)}
	}
	exp.await(t, s.smtp, "Due soon: ", dueLoans, time.Until(remindAt)+remindAfter)
	got := exp.check(t, s.smtp, killed)
	if got.repeats > 0 {
		t.Errorf("%d due-soon reminders came twice: no outbox holder was killed while they went", got.repeats)
	}
	eventuallyNil(t, 10*time.Second, func() error { return overdueTimersAt(t, s, loans, newDue.Add(dueOverdue)) }, "the overdue timers at the new due time")
	s.remindersSayTheNewDueTime(t, newDue)
	loansMade, loanMail, loanRepeats := loanEmails(t, s.pool, s.smtp, 30*time.Second)
	nothingParked(t, s.pool)
	watch.check(t)
	t.Logf("FAULTS due-dates: loans=%d zone=%s lent-in=%s closed=%s moved-before-kill=%d takeover=%s all-moved-in=%s moves=%d (one per loan, %s to %s) replay-wrote=%d due-soon=%d/%d (each for the new due time, its own Message-ID) repeats=%d latest-due-soon=%s unexpected=%d loan-emails=%d/%d (repeats %d) wall=%s",
		dueLoans, dueZone, lentIn.Round(time.Millisecond), closed, atKill, takeover.Round(time.Millisecond), movedIn.Round(time.Millisecond), dueLoans,
		oldDue.Format(time.RFC3339), newDue.Format(time.RFC3339), replayed, got.dueSoon, dueLoans, got.repeats, got.latestDueSoon.Round(time.Millisecond),
		got.unexpected, loanMail, loansMade, loanRepeats, time.Since(began).Round(time.Second))
}

// runsDueDates reports whether r holds the due-dates saga's lease, by its metrics.
func (s *system) runsDueDates(r *replica) bool {
	held, err := s.leaseHeld(r, "due-dates")
	return err == nil && held
}

// lendAllUntil opens the members' accounts, each at a domain of their own, adds dueLoans
// books and lends each until due, through the replicas in turn; it returns the loans and how
// long the lending took.
func (s *system) lendAllUntil(t *testing.T, replicas []*replica, due time.Time) ([]*remindLoan, time.Duration) {
	t.Helper()
	for m := range dueMembers {
		s.must(replicas[m%2], http.StatusCreated, http.MethodPut, fmt.Sprintf("/accounts/dm%d", m),
			fmt.Sprintf(`{"name":"Member %d","email":%q}`, m, memberEmail(m)))
	}
	loans := make([]*remindLoan, dueLoans)
	for i := range loans {
		loans[i] = &remindLoan{book: fmt.Sprintf("d%d", i), loan: fmt.Sprintf("loan-d%d", i), member: fmt.Sprintf("dm%d", i%dueMembers),
			email: memberEmail(i % dueMembers), title: fmt.Sprintf("Closed %d", i), dueAt: due}
		s.must(replicas[i%2], http.StatusCreated, http.MethodPost, "/books", fmt.Sprintf(`{"id":%q,"title":%q,"author":"A"}`, loans[i].book, loans[i].title))
	}
	lending := time.Now()
	for i, l := range loans {
		s.must(replicas[i%2], http.StatusCreated, http.MethodPost, "/books/"+l.book+"/loans",
			fmt.Sprintf(`{"loanId":%q,"memberId":%q,"dueAt":%q}`, l.loan, l.member, due.Format(time.RFC3339)))
	}
	return loans, time.Since(lending)
}

// movesWhen polls the log's DueDateMoved events, every few milliseconds, until enough says
// their count will do, and returns the count.
func (s *system) movesWhen(t *testing.T, enough func(int) bool, within time.Duration) int {
	t.Helper()
	var n int
	deadline := time.Now().Add(within)
	for {
		if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE type = 'DueDateMoved'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if enough(n) {
			return n
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d loans moved after %s", n, within)
		}
		time.Sleep(2 * time.Millisecond) // polling the log, closely enough to kill mid-way
	}
}

// lastMoveAfter is how long after the closing (the command's answer) the last move was
// recorded.
func (s *system) lastMoveAfter(t *testing.T, closingAnswer string) time.Duration {
	t.Helper()
	var answer struct {
		Position int64 `json:"position"`
	}
	if err := json.Unmarshal([]byte(closingAnswer), &answer); err != nil {
		t.Fatal(err)
	}
	var took time.Duration
	err := s.pool.QueryRow(context.Background(), `
SELECT (SELECT max(recorded_at) FROM events WHERE type = 'DueDateMoved') - recorded_at FROM events WHERE position = $1`, answer.Position).Scan(&took)
	if err != nil {
		t.Fatal(err)
	}
	return took
}

// checkMovedOnce checks every loan's moves in the log: one each, from its due time to the end of
// the next day, for the day closed, under the command id its loan and the day make.
func (s *system) checkMovedOnce(t *testing.T, loans []*remindLoan, closed calendar.Date, newDue time.Time) {
	t.Helper()
	rows, err := s.pool.Query(context.Background(),
		`SELECT stream_id, data, metadata->>'commandId' FROM events WHERE type = 'DueDateMoved' ORDER BY position`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	type move struct {
		LoanID string    `json:"loanId"`
		From   time.Time `json:"from"`
		DueAt  time.Time `json:"dueAt"`
		Reason string    `json:"reason"`
		Date   string    `json:"date"`
	}
	moves := map[string][]move{}
	for rows.Next() {
		var stream, command string
		var data []byte
		if err := rows.Scan(&stream, &data, &command); err != nil {
			t.Fatal(err)
		}
		var m move
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		if want := "due-date:" + m.LoanID + ":" + closed.String(); command != want {
			t.Errorf("%s moved under the command id %q, want %q", m.LoanID, command, want)
		}
		moves[stream] = append(moves[stream], m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, l := range loans {
		got := moves["book-"+l.book]
		want := move{LoanID: l.loan, From: l.dueAt, DueAt: newDue, Reason: "closed", Date: closed.String()}
		if len(got) != 1 || !got[0].From.Equal(want.From) || !got[0].DueAt.Equal(want.DueAt) || got[0].LoanID != want.LoanID ||
			got[0].Reason != want.Reason || got[0].Date != want.Date {
			t.Errorf("%s: moved %+v, want once %+v", l.loan, got, want)
		}
	}
	if len(moves) != len(loans) {
		t.Errorf("%d books moved, want %d", len(moves), len(loans))
	}
}

// replayWritesNothing replays the due-dates saga from the start on its holder, waits until it
// has read the log again, and returns how many events the replay wrote to the books' streams:
// none is right.
func (s *system) replayWritesNothing(t *testing.T, holder *replica) int {
	t.Helper()
	count := func() int {
		var n int
		if err := s.pool.QueryRow(context.Background(), `SELECT count(*) FROM events WHERE stream_id LIKE 'book-%'`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := count()
	generation, _ := s.dueDatesGeneration(holder)
	s.must(holder, http.StatusAccepted, http.MethodPost, "/admin/processors/due-dates/replay", "", "Authorization", "Bearer "+adminToken)
	eventually(t, 30*time.Second, func() bool {
		g, lag := s.dueDatesGeneration(holder)
		return g > generation && lag == 0
	}, "the due-dates saga read the log again")
	wrote := count() - before
	if wrote != 0 {
		t.Errorf("the replay of the due-dates saga wrote %d events to the books' streams", wrote)
	}
	return wrote
}

// dueDatesGeneration is the due-dates saga's generation (one more for each replay) and lag, as
// r's /status shows them; -1 when r does not answer.
func (s *system) dueDatesGeneration(r *replica) (generation, lag int64) {
	a, err := s.call(r, http.MethodGet, "/status", "")
	if err != nil || a.Status != http.StatusOK {
		return -1, -1
	}
	var st struct {
		Processors []struct {
			Name       string `json:"name"`
			Generation int64  `json:"generation"`
			Lag        int64  `json:"lag"`
		} `json:"processors"`
	}
	if json.Unmarshal([]byte(a.Body), &st) != nil {
		return -1, -1
	}
	for _, p := range st.Processors {
		if p.Name == "due-dates" {
			return p.Generation, p.Lag
		}
	}
	return -1, -1
}

// overdueTimersAt checks that each loan's overdue timer waits for the new due time's notice.
func overdueTimersAt(t *testing.T, s *system, loans []*remindLoan, at time.Time) error {
	t.Helper()
	timers := timersOf(t, s.pool, loans)
	for _, l := range loans {
		if got, ok := timers[l.key("overdue")]; !ok || !got.Equal(timerTime(at)) {
			return fmt.Errorf("%s is due at %s (scheduled: %v), want %s", l.key("overdue"), got.UTC(), ok, at)
		}
		if _, ok := timers[l.key("due-soon")]; ok {
			return fmt.Errorf("%s is still there after its reminder came", l.key("due-soon"))
		}
	}
	return nil
}

// remindersSayTheNewDueTime checks that every due-soon reminder gives the new due time.
func (s *system) remindersSayTheNewDueTime(t *testing.T, newDue time.Time) {
	t.Helper()
	want := newDue.Format("2 January 2006, 15:04 MST")
	for _, m := range s.smtp.Messages() {
		if strings.HasPrefix(m.Subject, "Due soon: ") && !strings.Contains(m.Body, want) {
			t.Errorf("%q says nothing of the new due time %s: %s", m.Subject, want, m.Body)
		}
	}
}
