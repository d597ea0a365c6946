package app_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/app"
	"library/internal/config"
	"library/internal/testkit/smtptest"
)

// A relay that answers one recipient's RCPT with a 454, or with a 421 after which it keeps the
// connection, while it takes all other mail: that email is deferred, tried on the backoff
// schedule and parked when its attempts run out, the 100 other loans' emails all arrive, once
// each, and the relay is never reported down (no relayDown failure at all).
func TestOneRecipientRefusedForNowHoldsUpNoOne(t *testing.T) {
	t.Parallel()
	for _, code := range []int{454, 421} {
		t.Run(fmt.Sprint(code), func(t *testing.T) {
			t.Parallel()
			smtp := smtptest.Start(t)
			const stalled = "stalled@example.org"
			smtp.RefuseRecipientKeepOpen(stalled, code, "4.7.0 try again later")
			cfg := fastBackground(app.Config{SMTPURL: smtp.URL(), DatabaseURL: stores[1].DatabaseURL(t)})
			cfg.Tuning.Processors.Retry = app.Backoff{Attempts: 3, First: 300 * time.Millisecond, Max: 300 * time.Millisecond}
			a := launch(t, cfg).API("postgres")
			lendTo(t, a, 0, stalled)
			var loans []result
			for i := 1; i <= 100; i++ {
				loans = append(loans, lendTo(t, a, i, fmt.Sprintf("reader-%d@domain-%d.example", i, i%10)))
			}
			requireEachOnce(t, smtp, loans)
			eventually(t, 20*time.Second, func() bool {
				s := processorStatus(t, a, "notifications")
				return s.Parked == 1 && s.Deferred == 0 && s.Lag == 0
			}, "the refused email parked once its attempts ran out")
			assert.Equal(t, 3, smtp.Attempts(stalled), "tried three times")
			parked := listParked(t, a, "notifications")
			require.Len(t, parked.Parked, 1)
			assert.Contains(t, parked.Parked[0].Reason, fmt.Sprint(code))
			assert.Equal(t, 3, parked.Parked[0].Attempts)

			s := processorStatus(t, a, "notifications")
			require.NotNil(t, s.Relay)
			assert.Equal(t, "up", s.Relay.State)
			m := scrapeMetrics(t, a)
			m.require(t, 1, "library_email_relay_up")
			m.require(t, 3, "library_email_failures_total", "class", "temporary", "reason", fmt.Sprint(code))
			for _, series := range m.families["library_email_failures_total"].GetMetric() {
				for _, l := range series.GetLabel() {
					assert.False(t, l.GetName() == "class" && l.GetValue() == "relayDown", "a relayDown failure: %v", series)
				}
			}
			assert.Len(t, smtp.Messages(), len(loans), "none to the refused address, none twice")
		})
	}
}

// One slow recipient domain (each RCPT to it hangs until the test lets it go), first in line
// with 20 loans, and 40 loans to other domains after it, all ready at once: the slow domain
// never has more than SMTP_MAX_PER_DOMAIN conversations open (4 by default), and the others
// don't wait for it: they are all sent while its conversations hang. Nothing is deferred for
// the wait, and once it ends the slow domain's emails go too, each once.
func TestOneSlowDomainHoldsUpNoOne(t *testing.T) {
	t.Parallel()
	for _, limit := range []int{0, 2} { // 0: the default
		want := limit
		if want == 0 {
			want = config.Defaults().SMTPMaxPerDomain
		}
		t.Run(fmt.Sprint(want), func(t *testing.T) {
			t.Parallel()
			smtp := smtptest.Start(t)
			// The slow domain's RCPTs hang until the others are all sent, however long a busy
			// machine takes to lend 60 books: no conversation gives up meanwhile.
			cfg := fastBackground(app.Config{SMTPURL: smtp.URL(), SMTPMaxPerDomain: limit, SMTPTimeout: time.Minute})
			a := &api{Base: startService(t, cfg), Store: "memory"}
			// Members and books first, so that the loans are side by side in the log, the slow
			// domain's first; its RCPTs hang from the start (well within the SMTP timeout).
			const slowN, fastN = 20, 40
			for i := range slowN + fastN {
				addr := fmt.Sprintf("reader-%d@fast-%d.example", i, i%10)
				if i < slowN {
					addr = fmt.Sprintf("reader-%d@slow.example", i)
				}
				setContact(t, a, fmt.Sprintf("member-%d", i), "Member", addr)
				addBook(t, a, fmt.Sprintf("book-%d", i))
			}
			release := smtp.HoldRecipient("slow.example")
			t.Cleanup(release)
			var loans []result
			for i := range slowN + fastN {
				loans = append(loans, lend(t, a, fmt.Sprintf("book-%d", i), fmt.Sprintf("loan-%d", i), fmt.Sprintf("member-%d", i)))
			}

			// The slow domain's conversations hang on their RCPT; every other email goes by.
			fast := func() int {
				n := 0
				for _, m := range smtp.Messages() {
					if !strings.HasSuffix(m.To[0], "@slow.example") {
						n++
					}
				}
				return n
			}
			eventually(t, 20*time.Second, func() bool { return fast() == fastN && smtp.MaxConversationsTo("slow.example") >= want },
				"the other domains' %d emails sent while the slow domain's %d conversations hang", fastN, want)
			assert.Equal(t, want, smtp.MaxConversationsTo("slow.example"), "SMTP_MAX_PER_DOMAIN conversations to it, never more")
			for _, m := range smtp.Messages() {
				assert.False(t, strings.HasSuffix(m.To[0], "@slow.example"), "an email to the held domain got through: %s", m.To[0])
			}
			release()
			requireEachOnce(t, smtp, loans)
			assert.Equal(t, want, smtp.MaxConversationsTo("slow.example"), "SMTP_MAX_PER_DOMAIN conversations to it, never more")
			s := caughtUp(t, a, "notifications")
			assert.Zero(t, s.Deferred, "waiting for a slot uses up no attempt")
			assert.Zero(t, s.Parked)
		})
	}
}
