package notifications_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/processor"
	"library/internal/testkit/apitest"
	"library/internal/testkit/smtptest"
)

// A renewal moves the loan's reminders to its new due time: nothing is sent at the old time,
// and the due-soon reminder comes once, before the new due time, naming it. In memory, on the
// service's clock: a loan of 14 days renewed on its first day; the old reminder's time passes
// with nothing due, the new one's sends it.
func TestHTTPRenewalMovesTheReminder(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	clock := apitest.NewClock()
	cfg := apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: "desk@library.test", DatabaseURL: apitest.Stores[0].DatabaseURL(t)})
	cfg.Tuning.Now = clock.Now
	a := &apitest.API{Base: apitest.StartService(t, cfg), Store: "memory", Clock: clock}
	addr := "rosa@example.org"
	apitest.SetContact(t, a, "rosa", "Rosa", addr)
	apitest.AddBook(t, a, "dune")
	oldDue := dueAt(t, apitest.Lend(t, a, "dune", "loan-1", "rosa"))
	clock.Advance(24 * time.Hour)
	newDue := dueAt(t, renew(t, a, "dune", "loan-1", "renew-1"))
	require.Equal(t, oldDue.Add(14*24*time.Hour), newDue)
	newSoon := newDue.Add(-48 * time.Hour)
	waitTimers(t, a, func(s processor.TimerStatus) bool {
		return s.Waiting == 2 && s.NextDue != nil && s.NextDue.Equal(newSoon)
	},
		"the reminder moved to the new due time")

	clock.Advance(oldDue.Add(-47 * time.Hour).Sub(clock.Now())) // an hour past the old reminder's time
	waitTimers(t, a, func(s processor.TimerStatus) bool {
		return s.Waiting == 2 && s.NextDue.Equal(newSoon) && s.OldestOverdueSeconds == 0
	}, "nothing due at the old time")
	assert.Empty(t, sentTo(smtp, addr, "Due soon"))

	clock.Advance(newSoon.Add(time.Minute).Sub(clock.Now()))
	got := waitSent(t, smtp, addr, "Due soon", 1, 10*time.Second)
	assert.Contains(t, got[0].Body, "due back by "+newDue.Format("2 January 2006, 15:04 MST"))
	waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 1 }, "the overdue notice waits")
	assert.Len(t, sentTo(smtp, addr, "Due soon"), 1, "once")
}

// The same on PostgreSQL, whose timers go by the database's clock: a loan of 6 s, whose
// reminder would come after 3 s, renewed at once to 12 s: its reminder comes after 9 s, once,
// naming the new due time.
func TestHTTPRenewalMovesTheReminderOnPostgres(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	cfg := remindingConfig(smtp, 6*time.Second, func(c *app.Config) {
		c.RemindBefore, c.OverdueAfter, c.DatabaseURL = 3*time.Second, time.Hour, apitest.Stores[1].DatabaseURL(t)
	})
	a := &apitest.API{Base: apitest.StartService(t, cfg), Store: "postgres"}
	addr := "ruth@example.org"
	apitest.SetContact(t, a, "ruth", "Ruth", addr)
	apitest.AddBook(t, a, "dune")
	oldDue := dueAt(t, apitest.Lend(t, a, "dune", "loan-1", "ruth"))
	newDue := dueAt(t, renew(t, a, "dune", "loan-1", "renew-1"))
	require.Equal(t, oldDue.Add(6*time.Second), newDue)
	require.True(t, time.Now().Before(oldDue.Add(-3*time.Second)), "renewed before the old reminder's time, or the test says nothing")

	got := waitSent(t, smtp, addr, "Due soon", 1, 20*time.Second)
	assert.False(t, got[0].Received.Before(newDue.Add(-3*time.Second).Add(-10*time.Millisecond)),
		"at the new time (%s), not the old: received %s", newDue.Add(-3*time.Second), got[0].Received)
	assert.Contains(t, got[0].Body, "due back by "+newDue.Format("2 January 2006, 15:04 MST"))
	waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 1 }, "the overdue notice waits")
	assert.Len(t, sentTo(smtp, addr, "Due soon"), 1, "once")
}
