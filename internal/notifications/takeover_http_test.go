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

// Two replicas on one database: the holder of the outbox's lease sends the loan email, the
// due-soon reminder and the first overdue notice, and stops; the other takes over and sends the
// rest of the notices, which the first one's last fire scheduled. Every email comes once, each
// with a Message-ID of its own.
func TestHTTPRemindersAcrossATakeover(t *testing.T) {
	t.Parallel()
	smtp := smtptest.Start(t)
	cfg := remindingConfig(smtp, 4*time.Second, func(c *app.Config) {
		c.RemindBefore, c.OverdueAfter, c.OverdueEvery, c.OverdueNotices = 3*time.Second, time.Second, time.Second, 3
		c.DatabaseURL = apitest.Stores[1].DatabaseURL(t)
	})
	replicas := make([]*apitest.API, 2)
	stops := make([]func(), 2)
	for i, id := range []string{"first", "second"} {
		cfg.ReplicaID = id
		base, stop := apitest.RunService(t, cfg)
		replicas[i], stops[i] = &apitest.API{Base: base, Store: "postgres"}, stop
	}
	holder := func() int {
		for i, r := range replicas {
			if stops[i] != nil && apitest.ProcessorStatus(t, r, "notifications").HoldsLease {
				return i
			}
		}
		return -1
	}
	var first int
	apitest.Eventually(t, 10*time.Second, func() bool { first = holder(); return first >= 0 }, "a holder of the outbox's lease")

	a := replicas[first]
	addr := "tara@example.org"
	apitest.SetContact(t, a, "tara", "Tara", addr)
	apitest.AddBook(t, a, "dune")
	apitest.Lend(t, a, "dune", "loan-1", "tara")
	waitSent(t, smtp, addr, "Overdue", 1, 20*time.Second)
	stops[first]()
	stops[first] = nil
	other := replicas[1-first]
	apitest.Eventually(t, 10*time.Second, func() bool { return holder() == 1-first }, "the other replica holds the lease")

	waitSent(t, smtp, addr, "Overdue", 3, 20*time.Second)
	waitTimers(t, other, func(s processor.TimerStatus) bool { return s.Waiting == 0 }, "no timer left")
	all := sentTo(smtp, addr, "")
	ids := map[string]int{}
	for _, m := range all {
		ids[m.MessageID]++
	}
	require.Len(t, all, 5, "the loan email, the due-soon reminder and three notices")
	assert.Len(t, ids, 5, "each with a Message-ID of its own, sent once: %v", ids)
	assert.Len(t, sentTo(smtp, addr, "Due soon"), 1)
	assert.Len(t, sentTo(smtp, addr, "Overdue"), 3)
}
