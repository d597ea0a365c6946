package notifications_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/processor"
	"library/internal/testkit/apitest"
	"library/internal/testkit/smtptest"
)

// A loan email to a member with no address yet (no email on the account, or no account at
// all) waits for it: deferred, not parked, with its loan's reminders scheduled meanwhile; it
// goes once, soon after the member gives an address, and nothing else waits then.
func TestHTTPLoanEmailWaitsForTheAddress(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	apitest.ForEachStore(t, apitest.FastBackground(app.Config{SMTPURL: smtp.URL()}), func(t *testing.T, a *apitest.API) {
		bob, nell := "bob-"+a.Store, "nell-"+a.Store
		apitest.SetContact(t, a, bob, "Bob", "")
		apitest.AddBook(t, a, "emma")
		apitest.AddBook(t, a, "dune")
		apitest.Lend(t, a, "emma", "loan-1", bob)
		apitest.Lend(t, a, "dune", "loan-2", nell) // no account at all

		s := apitest.CaughtUp(t, a, "notifications")
		assert.Equal(t, 2, s.Deferred, "both wait")
		assert.Zero(t, s.Parked)
		assert.Nil(t, s.LastError, "waiting is no failure")
		waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 4 }, "each loan's reminders, scheduled meanwhile")
		assert.Empty(t, sentTo(smtp, bob+"@example.org", ""))
		assert.Empty(t, sentTo(smtp, nell+"@example.org", ""))

		apitest.SetContact(t, a, bob, "Bob", bob+"@example.org")
		waitSent(t, smtp, bob+"@example.org", "You borrowed", 1, 10*time.Second)
		apitest.Eventually(t, 10*time.Second, func() bool { return apitest.ProcessorStatus(t, a, "notifications").Deferred == 1 }, "only Nell's waits")

		apitest.SetContact(t, a, nell, "Nell", nell+"@example.org")
		waitSent(t, smtp, nell+"@example.org", "You borrowed", 1, 10*time.Second)
		apitest.Eventually(t, 10*time.Second, func() bool {
			s := apitest.ProcessorStatus(t, a, "notifications")
			return s.Deferred == 0 && s.Parked == 0
		}, "nothing waits, nothing parked")
		assert.Len(t, sentTo(smtp, bob+"@example.org", ""), 1, "once")
		assert.Len(t, sentTo(smtp, nell+"@example.org", ""), 1, "once")
	})
}

// A loan email whose member gives no address within EMAIL_ADDRESS_WAIT of the loan is parked,
// saying so; retry-parked sends it once the member has one. In memory, 72 hours pass on the
// service's clock; on PostgreSQL, a wait of a second on the wall clock.
func TestHTTPLoanEmailParkedAfterTheAddressWait(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	for _, store := range apitest.Stores {
		t.Run(store.Name, func(t *testing.T) {
			t.Parallel()
			cfg := apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: store.DatabaseURL(t)})
			clock := apitest.NewClock()
			if store.Name == "memory" {
				cfg.Tuning.Now = clock.Now
			} else {
				cfg.Tuning.Now, cfg.EmailAddressWait = time.Now, time.Second
			}
			a := &apitest.API{Base: apitest.StartService(t, cfg), Store: store.Name, Clock: clock}
			carl := "carl-" + store.Name
			apitest.SetContact(t, a, carl, "Carl", "")
			apitest.AddBook(t, a, "emma")
			apitest.Lend(t, a, "emma", "loan-1", carl)
			if store.Name == "memory" {
				s := apitest.CaughtUp(t, a, "notifications")
				require.Equal(t, 1, s.Deferred, "it waits first")
				require.Zero(t, s.Parked)
				clock.Advance(72 * time.Hour)
			}
			apitest.Eventually(t, 10*time.Second, func() bool {
				s := apitest.ProcessorStatus(t, a, "notifications")
				return s.Parked == 1 && s.Deferred == 0
			}, "parked once the wait is over")
			parked := apitest.ListParked(t, a, "notifications").Parked
			require.Len(t, parked, 1)
			assert.Contains(t, parked[0].Reason, "no email address")
			assert.Empty(t, sentTo(smtp, carl+"@example.org", ""))

			apitest.SetContact(t, a, carl, "Carl", carl+"@example.org")
			r := apitest.Admin(t, a, "notifications", "retry-parked")
			require.Equal(t, http.StatusAccepted, r.Status)
			assert.JSONEq(t, `{"requeued":1}`, string(r.Body))
			waitSent(t, smtp, carl+"@example.org", "You borrowed", 1, 10*time.Second)
			apitest.Eventually(t, 10*time.Second, func() bool { return apitest.ProcessorStatus(t, a, "notifications").Parked == 0 }, "nothing parked")
			assert.Len(t, sentTo(smtp, carl+"@example.org", ""), 1, "once")
		})
	}
}

// A reminder waits for its member's address as a loan email does: the due-soon reminder of a
// member whose address is gone looks again until it comes, then goes once, with nothing sent
// meanwhile; an overdue notice still without an address EMAIL_ADDRESS_WAIT after its time is
// given up, and the next notice comes when it is due. In memory, on the service's clock.
func TestHTTPReminderWaitsForTheAddress(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	clock := apitest.NewClock()
	cfg := apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: "desk@library.test"})
	cfg.Tuning.Now = clock.Now
	a := &apitest.API{Base: apitest.StartService(t, cfg), Store: "memory", Clock: clock}
	addr := "vera@example.org"
	apitest.SetContact(t, a, "vera", "Vera", addr)
	apitest.AddBook(t, a, "dune")
	due := dueAt(t, apitest.Lend(t, a, "dune", "loan-1", "vera"))
	waitSent(t, smtp, addr, "You borrowed", 1, 10*time.Second)
	apitest.SetContact(t, a, "vera", "Vera", "")

	soon := due.Add(-48 * time.Hour)
	clock.Advance(soon.Add(time.Second).Sub(clock.Now()))
	waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 2 && s.NextDue.After(soon) && s.Failing == 0 },
		"the reminder looks again later")
	assert.Empty(t, sentTo(smtp, addr, "Due soon"))

	apitest.SetContact(t, a, "vera", "Vera", addr)
	clock.Advance(time.Minute)
	got := waitSent(t, smtp, addr, "Due soon", 1, 10*time.Second)
	assert.Regexp(t, reminderID, got[0].MessageID)
	waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 1 }, "only the overdue notice waits")

	apitest.SetContact(t, a, "vera", "Vera", "")
	first := due.Add(24 * time.Hour)
	clock.Advance(first.Add(72 * time.Hour).Sub(clock.Now()))
	second := first.Add(168 * time.Hour)
	waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 1 && s.NextDue.Equal(second) },
		"the first notice given up, the second one scheduled")
	assert.Empty(t, sentTo(smtp, addr, "Overdue"))

	apitest.SetContact(t, a, "vera", "Vera", addr)
	clock.Advance(second.Sub(clock.Now()))
	notice := waitSent(t, smtp, addr, "Overdue", 1, 10*time.Second)
	assert.Contains(t, notice[0].Body, "Overdue notice 2 of 3")
	assert.Len(t, sentTo(smtp, addr, "Due soon"), 1, "once")
}
