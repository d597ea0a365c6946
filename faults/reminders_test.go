//go:build faults

package faults

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"library/internal/config"
	"library/internal/testkit/smtptest"
)

// The reminders' settings, in seconds so that a loan runs its course within the test: a loan
// of 30 s, its due-soon reminder 20 s before the due time, overdue notices 2 s after it and
// 3 s after that, two in all. The returns and renewals come between the last due-soon reminder
// and the first due time: REMIND_BEFORE, less the time the loans took to make, which a loaded
// machine has stretched past 10 s.
const (
	remindLoans    = 100
	remindMembers  = 20
	loanPeriod     = 30 * time.Second
	remindBefore   = 20 * time.Second
	overdueAfter   = 2 * time.Second
	overdueEvery   = 3 * time.Second
	overdueNotices = 2
	// lateLoans (loans 0 to 19) are kept past their due time; renewedLoans (20 to 39) are
	// renewed once their due-soon reminder has come; the rest are returned then.
	lateLoans    = 20
	renewedLoans = 20
	// killAfter is how many due-soon reminders have come when the outbox's holder is killed.
	killAfter = remindLoans / 4
)

// paceTolerance is how late a reminder may come and how far the spacing of two notices may
// stray from OVERDUE_EVERY: a third of it, wide for a machine under load, narrow enough that
// a notice on the wrong schedule shows.
const paceTolerance = overdueEvery / 3

// 100 loans on two replicas, their due-soon reminders 10 s later; once a quarter of them have
// come, the replica holding the outbox's lease gets SIGKILL (it is restarted at once), and the
// other takes over. Every loan gets exactly one due-soon reminder: its own Message-ID, to its
// member, with its book's title, never before its time; a Message-ID the relay accepted twice
// can only be one in flight at the kill (at most SMTP_MAX_IN_FLIGHT). Then 60 loans are
// returned and 20 renewed before their due time: the return cancels their timers, the renewal
// moves them to the new due time (its due-soon reminder comes then), and neither gets an
// overdue notice. The 20 loans kept get their two overdue notices at OVERDUE_AFTER and
// OVERDUE_EVERY, and no third.
func TestSIGKILLOfTheOutboxHolderWhileRemindersFire(t *testing.T) {
	t.Parallel() // it mostly waits for the clock: see the package comment
	began := time.Now()
	s := newSystem(t)
	s.dumpOnFailure()
	settings := []string{"LOAN_PERIOD=" + loanPeriod.String(), "REMIND_BEFORE=" + remindBefore.String(),
		"OVERDUE_AFTER=" + overdueAfter.String(), "OVERDUE_EVERY=" + overdueEvery.String(), fmt.Sprintf("OVERDUE_NOTICES=%d", overdueNotices)}
	a := s.start("a", settings...)
	eventually(t, 30*time.Second, func() bool { return s.holdsAll(a) }, "a holds every lease")
	b := s.start("b", settings...) // after: started together, b may take a lease first, and a wait for it
	replicas := []*replica{a, b}
	watch := watchCheckpoints(s.pool)

	for m := range remindMembers {
		s.must(replicas[m%2], http.StatusCreated, http.MethodPut, fmt.Sprintf("/accounts/rm%d", m),
			fmt.Sprintf(`{"name":"Member %d","email":%q}`, m, memberEmail(m)))
	}
	loans := make([]*remindLoan, remindLoans)
	for i := range loans {
		loans[i] = &remindLoan{book: fmt.Sprintf("r%d", i), loan: fmt.Sprintf("loan-r%d", i), member: fmt.Sprintf("rm%d", i%remindMembers),
			email: memberEmail(i % remindMembers), title: fmt.Sprintf("Reminded %d", i)}
		s.must(replicas[i%2], http.StatusCreated, http.MethodPost, "/books",
			fmt.Sprintf(`{"id":%q,"title":%q,"author":"A"}`, loans[i].book, loans[i].title))
	}
	lending := time.Now()
	for i, l := range loans {
		lent := s.must(replicas[i%2], http.StatusCreated, http.MethodPost, "/books/"+l.book+"/loans",
			fmt.Sprintf(`{"loanId":%q,"memberId":%q}`, l.loan, l.member))
		l.dueAt = dueAtOf(t, lent.Body)
	}
	lentIn := time.Since(lending)
	exp := newExpectations(t, s.pool)
	for _, l := range loans {
		exp.dueSoon(l, l.dueAt)
	}

	// The kill, with reminders firing: a holds the outbox's lease, as it held every lease at
	// the start, and b takes it over.
	if held, _ := s.leaseHeld(a, "notifications"); !held {
		t.Fatalf("a does not hold the outbox's lease")
	}
	eventually(t, loanPeriod, func() bool { return exp.arrived(s.smtp, "Due soon: ") >= killAfter }, "%d due-soon reminders", killAfter)
	killed := time.Now()
	a.kill()
	atKill := exp.arrived(s.smtp, "Due soon: ")
	if atKill >= remindLoans {
		t.Fatalf("all %d due-soon reminders had come before the kill: it came too late to test anything", atKill)
	}
	eventually(t, 10*time.Second, func() bool { ok, _ := s.leaseHeld(b, "notifications"); return ok }, "b takes the outbox over after a was killed")
	takeover := time.Since(killed)
	a.restart(t)
	lastDueSoon := slices.MaxFunc(loans, func(x, y *remindLoan) int { return x.dueAt.Compare(y.dueAt) }).dueAt.Add(-remindBefore)
	exp.await(t, s.smtp, "Due soon: ", remindLoans, time.Until(lastDueSoon)+remindBefore/2)
	silence := longestSilence(s.smtp, "Due soon: ", killed)

	// Returns and renewals, each before its loan's due time.
	returned, renewed := loans[lateLoans+renewedLoans:], loans[lateLoans:lateLoans+renewedLoans]
	for i, l := range returned {
		s.must(replicas[i%2], http.StatusCreated, http.MethodPost, "/books/"+l.book+"/returns", fmt.Sprintf(`{"loanId":%q}`, l.loan))
	}
	for i, l := range renewed {
		answer := s.must(replicas[i%2], http.StatusCreated, http.MethodPost, "/books/"+l.book+"/loans/"+l.loan+"/renewals", "",
			"Idempotency-Key", "renew-"+l.loan)
		l.renewedTo = dueAtOf(t, answer.Body)
		exp.dueSoon(l, l.renewedTo)
	}
	endedInTime := time.Now()
	firstDue := slices.MinFunc(loans, func(x, y *remindLoan) int { return x.dueAt.Compare(y.dueAt) }).dueAt
	if !endedInTime.Before(firstDue) {
		t.Fatalf("the returns and renewals ended at %s, after the first due time %s: too late to test them", endedInTime, firstDue)
	}
	// A return cancels the loan's timers, and a renewal moves them, before any comes due.
	eventuallyNil(t, time.Until(firstDue), func() error {
		if left := timersOf(t, s.pool, returned); len(left) > 0 {
			return fmt.Errorf("%d timers left, such as %s", len(left), slices.Sorted(maps.Keys(left))[0])
		}
		return nil
	}, "the returned loans' timers cancelled")
	eventuallyNil(t, time.Until(firstDue), func() error { return timersMoved(t, s.pool, renewed) }, "the renewed loans' timers moved")

	// The kept loans' overdue notices, at their pace, and then no timer left.
	late := loans[:lateLoans]
	for _, l := range late {
		for n := 1; n <= overdueNotices; n++ {
			exp.overdue(l, n)
		}
	}
	lastNotice := late[len(late)-1].dueAt.Add(overdueAfter + (overdueNotices-1)*overdueEvery)
	exp.await(t, s.smtp, "Overdue: ", lateLoans*overdueNotices, time.Until(lastNotice)+2*paceTolerance)
	eventually(t, 2*paceTolerance, func() bool { return len(timersOf(t, s.pool, late)) == 0 }, "no timer left after the last notice")
	firstLate, spacing := overdueTimes(t, s.smtp, exp, late)

	// The renewed loans' due-soon reminders for their new due time.
	lastRenewed := renewed[len(renewed)-1].renewedTo.Add(-remindBefore)
	exp.await(t, s.smtp, "Due soon: ", remindLoans+renewedLoans, time.Until(lastRenewed)+2*paceTolerance)

	// Nothing else came: wait, if need be, until every returned or renewed loan's first overdue
	// notice would have come (the wait for the renewed loans' reminders has covered it).
	quietUntil := slices.MaxFunc(loans[lateLoans:], func(x, y *remindLoan) int { return x.dueAt.Compare(y.dueAt) }).dueAt.Add(overdueAfter + paceTolerance)
	if wait := time.Until(quietUntil); wait > 0 {
		time.Sleep(wait) // the time by which a notice that should not come would have come
	}
	got := exp.check(t, s.smtp, killed)
	if got.repeats > config.Defaults().SMTPMaxInFlight {
		t.Errorf("%d reminders sent again after the takeover: more than the emails in flight (%d)", got.repeats, config.Defaults().SMTPMaxInFlight)
	}
	loansMade, loanMail, loanRepeats := loanEmails(t, s.pool, s.smtp, 30*time.Second)
	nothingParked(t, s.pool)
	watch.check(t)
	t.Logf("FAULTS reminders: loans=%d lent-in=%s due-soon-before-kill=%d takeover=%s longest-silence-after-kill=%s due-soon=%d/%d (one per loan and due time, each its own Message-ID) renewed=%d repeats=%d latest-due-soon=%s returned=%d overdue-notices=%d/%d first-notices=%s spacing=%s (configured %s) unexpected=%d loan-emails=%d/%d (repeats %d) wall=%s",
		remindLoans, lentIn.Round(time.Millisecond), atKill, takeover.Round(time.Millisecond), silence.Round(time.Millisecond), got.dueSoon, remindLoans+renewedLoans, len(renewed), got.repeats,
		got.latestDueSoon.Round(time.Millisecond), len(returned), got.overdue, lateLoans*overdueNotices, firstLate, spacing, overdueEvery, got.unexpected,
		loanMail, loansMade, loanRepeats, time.Since(began).Round(time.Second))
}

// longestSilence is the longest time without an email whose subject starts with prefix, from
// since to the last such email: after a kill, how long the reminders stopped.
func longestSilence(smtp *smtptest.Server, prefix string, since time.Time) time.Duration {
	times := []time.Time{since}
	for _, m := range smtp.Messages() {
		if strings.HasPrefix(m.Subject, prefix) && m.Received.After(since) {
			times = append(times, m.Received)
		}
	}
	slices.SortFunc(times, time.Time.Compare)
	longest := time.Duration(0)
	for i := 1; i < len(times); i++ {
		longest = max(longest, times[i].Sub(times[i-1]))
	}
	return longest
}

// dueAtOf reads the due time from a lend's or a renewal's answer.
func dueAtOf(t *testing.T, body string) time.Time {
	t.Helper()
	var result struct {
		Events []struct {
			Data struct {
				DueAt time.Time `json:"dueAt"`
			} `json:"data"`
		} `json:"events"`
	}
	if err := json.Unmarshal([]byte(body), &result); err != nil || len(result.Events) == 0 || result.Events[0].Data.DueAt.IsZero() {
		t.Fatalf("no due time in %s (%v)", body, err)
	}
	return result.Events[0].Data.DueAt
}

// overdueTimes checks the kept loans' notices against their schedule: each no earlier than
// its time and at most paceTolerance after it, the second OVERDUE_EVERY after the first give
// or take paceTolerance. It returns the range of the first notices' delays and of the gaps.
func overdueTimes(t *testing.T, smtp *smtptest.Server, exp *expectations, late []*remindLoan) (delays, gaps string) {
	t.Helper()
	var after, between []time.Duration
	for _, l := range late {
		times := make([]time.Time, overdueNotices)
		for n := 1; n <= overdueNotices; n++ {
			e := exp.byID[exp.overdueID(l, n)]
			first, ok := exp.firstArrival(smtp, e.id)
			if !ok {
				t.Errorf("%s: overdue notice %d never came", l.loan, n)
				return "", ""
			}
			times[n-1] = first
			if delay := first.Sub(e.at); delay > paceTolerance {
				t.Errorf("%s: overdue notice %d came %s after its time %s, more than %s", l.loan, n, delay, e.at, paceTolerance)
			}
		}
		after = append(after, times[0].Sub(l.dueAt))
		for n := 1; n < overdueNotices; n++ {
			gap := times[n].Sub(times[n-1])
			between = append(between, gap)
			if gap < overdueEvery-paceTolerance || gap > overdueEvery+paceTolerance {
				t.Errorf("%s: notices %d and %d came %s apart, want %s ± %s", l.loan, n, n+1, gap, overdueEvery, paceTolerance)
			}
		}
	}
	span := func(ds []time.Duration) string {
		return fmt.Sprintf("%s to %s", slices.Min(ds).Round(time.Millisecond), slices.Max(ds).Round(time.Millisecond))
	}
	return span(after) + " after the due time", span(between)
}
