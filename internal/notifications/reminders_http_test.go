package notifications_test

// Reminders through a real SMTP server in the test process, on both stores. The memory store's
// timers go by the service's clock, so tests that travel in time run there with a test clock;
// PostgreSQL's go by the database's clock, so the tests there take loans of seconds.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/processor"
	"library/internal/testkit/apitest"
	"library/internal/testkit/smtptest"
)

// reminderID is a reminder's Message-ID: a digest of its timer's key and due time, the
// installation, MAIL_FROM's domain.
var reminderID = regexp.MustCompile(`^<notifications\.t[a-z2-7]{24}\.[0-9A-Za-z-]+@library\.test>$`)

// remindingConfig is a service sending to smtp from desk@library.test, with loans of period,
// on the wall clock (the database's timers go by it) unless a test clock is set later.
func remindingConfig(smtp *smtptest.Server, period time.Duration, tune func(*app.Config)) app.Config {
	cfg := apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: "desk@library.test", LoanPeriod: period})
	cfg.Tuning.Now = time.Now
	if tune != nil {
		tune(&cfg)
	}
	return cfg
}

// sentTo are the emails to addr whose subject starts with prefix, in the order they came.
func sentTo(smtp *smtptest.Server, addr, prefix string) []smtptest.Message {
	var out []smtptest.Message
	for _, m := range smtp.Messages() {
		if len(m.To) == 1 && m.To[0] == addr && strings.HasPrefix(m.Subject, prefix) {
			out = append(out, m)
		}
	}
	return out
}

// waitSent waits until n emails to addr with the subject prefix have come, and returns them.
func waitSent(t *testing.T, smtp *smtptest.Server, addr, prefix string, n int, within time.Duration) []smtptest.Message {
	t.Helper()
	apitest.Eventually(t, within, func() bool { return len(sentTo(smtp, addr, prefix)) >= n }, "%d emails %q to %s", n, prefix, addr)
	return sentTo(smtp, addr, prefix)
}

// waitTimers waits until the outbox has read the whole log and its timers are as cond wants.
func waitTimers(t *testing.T, a *apitest.API, cond func(processor.TimerStatus) bool, msg string) processor.TimerStatus {
	t.Helper()
	var last processor.TimerStatus
	apitest.Eventually(t, 10*time.Second, func() bool {
		s := apitest.ProcessorStatus(t, a, "notifications")
		if s.Lag != 0 || s.Timers == nil {
			return false
		}
		last = *s.Timers
		return cond(last)
	}, "%s (timers %+v)", msg, last)
	return last
}

// dueAt is the due time a lend or a renewal recorded.
func dueAt(t *testing.T, r apitest.Result) time.Time {
	t.Helper()
	require.NotEmpty(t, r.Events)
	var loan struct {
		DueAt time.Time `json:"dueAt"`
	}
	require.NoError(t, json.Unmarshal(r.Events[0].Data, &loan))
	require.False(t, loan.DueAt.IsZero(), "%s has a due time", r.Events[0].Type)
	return loan.DueAt
}

// renew renews a loan under key and checks its 201.
func renew(t *testing.T, a *apitest.API, bookID, loanID, key string) apitest.Result {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/books/"+bookID+"/loans/"+loanID+"/renewals", nil, "Idempotency-Key", key)
	return apitest.RequireResult(t, r, http.StatusCreated, "book-"+bookID)
}

// giveBack returns a loan and checks its 201.
func giveBack(t *testing.T, a *apitest.API, bookID, loanID string) {
	t.Helper()
	r := a.Call(t, http.MethodPost, "/books/"+bookID+"/returns", apitest.Obj{"loanId": loanID})
	apitest.RequireResult(t, r, http.StatusCreated, "book-"+bookID)
}

// A loan's due-soon reminder comes once, REMIND_BEFORE before its due time, to the member's
// address, from MAIL_FROM, with its own Message-ID; then only the overdue notice waits.
func TestHTTPDueSoonReminder(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	cfg := remindingConfig(smtp, 3*time.Second, func(c *app.Config) { c.RemindBefore, c.OverdueAfter = 2*time.Second, time.Hour })
	apitest.ForEachStore(t, cfg, func(t *testing.T, a *apitest.API) {
		member := "rita-" + a.Store
		addr := member + "@example.org"
		apitest.SetContact(t, a, member, "Rita", addr)
		apitest.AddBook(t, a, "dune")
		due := dueAt(t, apitest.Lend(t, a, "dune", "loan-1", member))

		got := waitSent(t, smtp, addr, "Due soon", 1, 10*time.Second)[0]
		assert.Equal(t, "Due soon: Dune", got.Subject)
		assert.Equal(t, "desk@library.test", got.From)
		assert.Regexp(t, reminderID, got.MessageID)
		assert.Contains(t, got.Body, "Hello Rita,")
		assert.Contains(t, got.Body, "Dune by Frank Herbert is due back by "+due.Format("2 January 2006, 15:04 MST"))
		assert.Contains(t, got.Body, "loan-1")
		assert.False(t, got.Received.Before(due.Add(-2*time.Second)), "not before its time: received %s, due %s", got.Received, due)
		loanEmail := waitSent(t, smtp, addr, "You borrowed", 1, 10*time.Second)[0]
		assert.NotEqual(t, loanEmail.MessageID, got.MessageID)

		waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 1 && s.Failing == 0 }, "only the overdue notice waits")
		assert.Len(t, sentTo(smtp, addr, "Due soon"), 1, "once")
	})
}

// Overdue notices come at OVERDUE_AFTER after the due time, then every OVERDUE_EVERY, each
// never before its time, OVERDUE_NOTICES of them, each with a Message-ID of its own; then no
// timer is left.
func TestHTTPOverdueNoticesAtTheirPace(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	cfg := remindingConfig(smtp, time.Second, func(c *app.Config) {
		c.OverdueAfter, c.OverdueEvery, c.OverdueNotices = time.Second, time.Second, 3
	})
	apitest.ForEachStore(t, cfg, func(t *testing.T, a *apitest.API) {
		member := "otto-" + a.Store
		addr := member + "@example.org"
		apitest.SetContact(t, a, member, "Otto", addr)
		apitest.AddBook(t, a, "dune")
		due := dueAt(t, apitest.Lend(t, a, "dune", "loan-1", member))

		waitSent(t, smtp, addr, "Overdue", 3, 20*time.Second)
		waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 0 }, "no timer left")
		notices := sentTo(smtp, addr, "Overdue")
		require.Len(t, notices, 3, "OVERDUE_NOTICES notices")
		ids := map[string]bool{}
		for i, m := range notices {
			n := i + 1
			assert.Equal(t, "Overdue: Dune", m.Subject)
			assert.Regexp(t, reminderID, m.MessageID)
			assert.Contains(t, m.Body, fmt.Sprintf("Overdue notice %d of 3", n))
			notBefore := due.Add(time.Second + time.Duration(n-1)*time.Second)
			assert.False(t, m.Received.Before(notBefore.Add(-10*time.Millisecond)), "notice %d at %s, before its time %s", n, m.Received, notBefore)
			ids[m.MessageID] = true
		}
		assert.Len(t, ids, 3, "a Message-ID each")
		assert.Empty(t, sentTo(smtp, addr, "Due soon"), "a loan shorter than REMIND_BEFORE gets no due-soon reminder")
	})
}

// A return cancels the loan's reminders: none waits once the return is read, so no overdue
// notice ever comes, however late it gets.
func TestHTTPReturnCancelsTheReminders(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	cfg := apitest.FastBackground(app.Config{SMTPURL: smtp.URL(), MailFrom: "desk@library.test"})
	apitest.ForEachStore(t, cfg, func(t *testing.T, a *apitest.API) {
		member := "rex-" + a.Store
		addr := member + "@example.org"
		apitest.SetContact(t, a, member, "Rex", addr)
		apitest.AddBook(t, a, "dune")
		apitest.Lend(t, a, "dune", "loan-1", member)
		waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 2 }, "the due-soon reminder and the overdue notice")

		giveBack(t, a, "dune", "loan-1")
		waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 0 }, "both cancelled")
		if a.Store == "memory" { // a month later, by the service's clock
			a.Clock.Advance(30 * 24 * time.Hour)
			waitTimers(t, a, func(s processor.TimerStatus) bool { return s.Waiting == 0 }, "still none")
		}
		assert.Empty(t, sentTo(smtp, addr, "Due soon"))
		assert.Empty(t, sentTo(smtp, addr, "Overdue"))
		assert.Len(t, sentTo(smtp, addr, "You borrowed"), 1)
	})
}
