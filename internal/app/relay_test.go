package app_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/testkit/smtptest"
)

// lendTo opens an account with addr and lends it a new book; it returns the loan.
func lendTo(t *testing.T, a *api, n int, addr string) result {
	t.Helper()
	member := fmt.Sprintf("member-%d", n)
	setContact(t, a, member, fmt.Sprintf("Member %d", n), addr)
	book := fmt.Sprintf("book-%d", n)
	addBook(t, a, book)
	return lend(t, a, book, "loan-"+book, member)
}

// requireEachOnce waits for one email per loan and checks that none came twice.
func requireEachOnce(t *testing.T, smtp *smtptest.Server, loans []result) {
	t.Helper()
	got := smtp.WaitForMessages(t, len(loans), 30*time.Second)
	seen := map[int64]int{}
	for _, m := range got {
		seen[emailPosition(t, m.MessageID)]++
	}
	for _, l := range loans {
		assert.Equal(t, 1, seen[l.Position], "emails for the loan at %d", l.Position)
	}
	assert.Len(t, seen, len(loans), "no email but the loans'")
}

// A slow relay (2 s to answer each recipient) gets up to SMTP_MAX_IN_FLIGHT emails at once,
// each in a conversation of its own, and never more. The wait is at RCPT and long, so that the
// conversations overlap however slowly a busy machine starts them, and short of the client's
// SMTP timeout.
func TestLoanEmailsInFlightAtOnce(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{4, 16} {
		t.Run(fmt.Sprint(limit), func(t *testing.T) {
			t.Parallel()
			smtp := smtptest.Start(t)
			// The loans wait while the relay takes no mail, so that they are all ready at once
			// however slowly they were made.
			smtp.Refuse(421, "not yet")
			cfg := fastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: stores[1].DatabaseURL(t),
				SMTPMaxInFlight: limit, SMTPMaxPerDomain: limit})
			a := &api{Base: startService(t, cfg), Store: "postgres"}
			var loans []result
			for i := range 2 * limit {
				loans = append(loans, lendTo(t, a, i, fmt.Sprintf("reader-%d@example.org", i)))
			}
			eventually(t, 20*time.Second, func() bool {
				s := processorStatus(t, a, "notifications")
				return s.Relay != nil && s.Relay.State == "down"
			}, "sending paused while the relay refuses")
			smtp.DelayRecipient("example.org", 2*time.Second)
			smtp.Refuse(0, "")
			requireEachOnce(t, smtp, loans)
			assert.LessOrEqual(t, smtp.MaxConversations(), limit, "never more than SMTP_MAX_IN_FLIGHT at once")
			assert.GreaterOrEqual(t, smtp.MaxConversations(), min(limit, 4), "many at once")
			caughtUp(t, a, "notifications")
		})
	}
}

// A relay that accepts an email and then drops the connection (or takes one message per
// connection) gets each email once.
func TestLoanEmailsToARelayThatDropsTheConnection(t *testing.T) {
	t.Parallel()
	for _, s := range stores {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			smtp := smtptest.Start(t)
			smtp.CloseAfterAccept(true)
			a := &api{Base: startService(t, fastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: s.DatabaseURL(t)})), Store: s.Name}
			var loans []result
			for i := range 20 {
				loans = append(loans, lendTo(t, a, i, fmt.Sprintf("reader-%d@example.org", i)))
			}
			requireEachOnce(t, smtp, loans)
			s := caughtUp(t, a, "notifications")
			assert.Zero(t, s.Deferred)
			assert.Zero(t, s.Parked)
			assert.Len(t, smtp.Messages(), len(loans), "still none twice")
		})
	}
}

// An address the relay refuses for good (550) is parked at its first attempt, with the relay's
// reply, and the members after it get their emails meanwhile.
func TestOneBadAddressHoldsUpNoOne(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	const bad = "nobody@example.org"
	smtp.RefuseRecipient(bad, 550, "no such user")
	cfg := fastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: stores[1].DatabaseURL(t)})
	cfg.Tuning.Processors.Retry = app.Backoff{Attempts: 6, First: time.Hour, Max: time.Hour}
	a := &api{Base: startService(t, cfg), Store: "postgres"}
	lendTo(t, a, 0, bad)
	var loans []result
	for i := 1; i <= 10; i++ {
		loans = append(loans, lendTo(t, a, i, fmt.Sprintf("reader-%d@example.org", i)))
	}
	requireEachOnce(t, smtp, loans)
	s := caughtUp(t, a, "notifications")
	assert.Equal(t, 1, s.Parked)
	assert.Zero(t, s.Deferred)
	assert.Equal(t, 1, smtp.Attempts(bad), "refused for good: never tried again")
	parked := listParked(t, a, "notifications")
	require.Len(t, parked.Parked, 1)
	assert.Contains(t, parked.Parked[0].Reason, "550")
	assert.Contains(t, parked.Parked[0].Reason, "no such user", "with the relay's reply")
	assert.Equal(t, 1, parked.Parked[0].Attempts)
}

// An address the relay refuses for now (452) is deferred off the line: the members after it get
// their emails, the checkpoint passes it, /status counts it, and it is tried again on the
// backoff schedule, then parked when its attempts run out.
func TestTemporaryRefusalIsDeferredOffTheLine(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	const full = "full@example.org"
	smtp.RefuseRecipient(full, 452, "mailbox full")
	cfg := fastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: stores[1].DatabaseURL(t)})
	cfg.Tuning.Processors.Retry = app.Backoff{Attempts: 3, First: 300 * time.Millisecond, Max: 300 * time.Millisecond}
	a := &api{Base: startService(t, cfg), Store: "postgres"}
	lendTo(t, a, 0, full)
	var loans []result
	for i := 1; i <= 10; i++ {
		loans = append(loans, lendTo(t, a, i, fmt.Sprintf("reader-%d@example.org", i)))
	}
	requireEachOnce(t, smtp, loans)
	s := caughtUp(t, a, "notifications")
	if s.Parked == 0 { // it may already be out of attempts on a slow machine
		assert.Equal(t, 1, s.Deferred, "kept as deferred, the checkpoint past it")
	}
	eventually(t, 20*time.Second, func() bool {
		s := processorStatus(t, a, "notifications")
		return s.Parked == 1 && s.Deferred == 0
	}, "parked once its attempts ran out")
	assert.Equal(t, 3, smtp.Attempts(full), "tried three times")
	parked := listParked(t, a, "notifications")
	require.Len(t, parked.Parked, 1)
	assert.Contains(t, parked.Parked[0].Reason, "452")
	assert.Equal(t, 3, parked.Parked[0].Attempts)

	// The member makes room; retry-parked sends it.
	smtp.RefuseRecipient(full, 0, "")
	require.Equal(t, 202, admin(t, a, "notifications", "retry-parked").Status)
	smtp.WaitForMessages(t, len(loans)+1, 20*time.Second)
	eventually(t, 20*time.Second, func() bool {
		s := processorStatus(t, a, "notifications")
		return s.Parked == 0 && s.Deferred == 0
	}, "nothing parked or deferred")
}

// A relay that takes no mail (421) pauses all sending: /status and the metrics say the relay is
// down, no email uses up an attempt, and everything goes once the relay is back.
func TestRelayDownPausesSending(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	smtp.Refuse(421, "too busy, come back later")
	a := launch(t, fastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: stores[1].DatabaseURL(t)})).API("postgres")
	var loans []result
	for i := range 5 {
		loans = append(loans, lendTo(t, a, i, fmt.Sprintf("reader-%d@example.org", i)))
	}
	eventually(t, 20*time.Second, func() bool {
		s := processorStatus(t, a, "notifications")
		return s.Relay != nil && s.Relay.State == "down" && s.Relay.Since != nil
	}, "/status says the relay is down")
	m := scrapeMetrics(t, a)
	m.require(t, 0, "library_email_relay_up")
	failures, _ := m.value("library_email_failures_total", "class", "relayDown", "reason", "421")
	assert.GreaterOrEqual(t, failures, 1.0)
	s := processorStatus(t, a, "notifications")
	require.NotNil(t, s.LastError)
	assert.Contains(t, *s.LastError, "421")
	assert.NotContains(t, *s.LastError, "127.0.0.1", "/status names no relay host")
	assert.NotContains(t, *s.LastError, "too busy", "nor quotes the relay")
	assert.NotContains(t, *s.LastError, "@example.org", "nor an address")
	assert.Zero(t, s.Parked, "a relay that is down is no email's fault")
	assert.Zero(t, s.Deferred)

	smtp.Refuse(0, "")
	requireEachOnce(t, smtp, loans)
	eventually(t, 20*time.Second, func() bool {
		s := processorStatus(t, a, "notifications")
		return s.Relay != nil && s.Relay.State == "up" && s.Lag == 0 && s.LastError == nil
	}, "the relay is up again and the error gone")
	scrapeMetrics(t, a).require(t, 1, "library_email_relay_up")
}

// SMTP_MAX_RATE reaches the mailer the service wires: at 10 per second, loan emails that are
// all ready at once still reach the relay about 100 ms apart. They are made ready together by
// holding the relay down while the loans are made, so that only the cap can space them (without
// it, 16 go at once). The cap spaces the starts of the conversations, and a conversation's own
// length varies (on a loaded machine, by tens of milliseconds either way, so that one gap shrinks
// as its neighbour grows), so the gaps are judged by the time all of them took.
func TestMaxRateSpacesTheEmails(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	smtp.Refuse(421, "not yet")
	cfg := fastBackground(app.Config{SMTPURL: smtp.URL(), SMTPMaxRate: 10})
	a := &api{Base: startService(t, cfg), Store: "memory"}
	var loans []result
	for i := range 6 {
		loans = append(loans, lendTo(t, a, i, fmt.Sprintf("reader-%d@example.org", i)))
	}
	eventually(t, 20*time.Second, func() bool {
		s := processorStatus(t, a, "notifications")
		return s.Relay != nil && s.Relay.State == "down"
	}, "sending paused while the relay refuses")
	smtp.Refuse(0, "")
	requireEachOnce(t, smtp, loans)

	got := smtp.Messages()
	slices.SortFunc(got, func(x, y smtptest.Message) int { return x.Received.Compare(y.Received) })
	var gaps []time.Duration
	for i := 1; i < len(got); i++ {
		gaps = append(gaps, got[i].Received.Sub(got[i-1].Received))
	}
	span := got[len(got)-1].Received.Sub(got[0].Received)
	assert.GreaterOrEqual(t, span, 400*time.Millisecond, "six emails at 10 per second take about half a second (gaps %v)", gaps)
}
