package notifications

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/engine"
	"library/internal/processor/memdriver"
	"library/internal/smtpclient"
	"library/internal/testkit/smtptest"
)

// outboxRun is an outbox running under a processor group in memory, as the service runs it.
type outboxRun struct {
	group *engine.Group
	cps   *memdriver.Checkpoints
}

// run runs o under a processor group over env's log, with retry as the schedule of deferred
// emails; it is stopped when the test ends.
func (env outboxEnv) run(t *testing.T, o *Outbox, retry processor.Backoff) outboxRun {
	t.Helper()
	cps := memdriver.NewCheckpoints(nil)
	g, err := engine.NewGroup(engine.Config{
		Store: env.store, Checkpoints: cps, Leases: memdriver.NewLeases(), Logger: slog.New(slog.DiscardHandler),
		Options: processor.Options{Retry: retry, PollInterval: 50 * time.Millisecond},
	}, o.Processor())
	require.NoError(t, err)
	g.Start(context.Background())
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		require.NoError(t, g.Stop(ctx))
	})
	return outboxRun{group: g, cps: cps}
}

func (r outboxRun) status(t *testing.T) processor.Status {
	t.Helper()
	st, err := r.group.Status(context.Background())
	require.NoError(t, err)
	require.Len(t, st, 1)
	return st[0]
}

// requireOnceEach checks that each event's email arrived exactly once, and no other.
func requireOnceEach(t *testing.T, msgs []smtptest.Message, events []eventstore.Event) {
	t.Helper()
	seen := map[int64]int{}
	for _, m := range msgs {
		p, ok := PositionOf(m.MessageID)
		require.True(t, ok, m.MessageID)
		seen[p]++
	}
	for _, e := range events {
		require.Equal(t, 1, seen[e.Position], "emails for the loan at %d", e.Position)
	}
	require.Len(t, seen, len(events), "no email but these loans'")
}

// One recipient that the relay refuses for now (a 454, or a 421 after which it keeps the
// connection) or stalls on past the timeout, while it takes everything else: that email is
// deferred and parked once its attempts run out, the 100 other loans' emails all arrive, once
// each, and the relay is never reported down.
func TestOutboxParksOneStalledRecipientWhileOthersGo(t *testing.T) {
	t.Parallel()
	const stalled = "stalled@example.org"
	for _, tc := range []struct {
		name   string
		stall  func(*smtptest.Server)
		reason string
	}{
		{"454 at RCPT", func(s *smtptest.Server) { s.RefuseRecipientKeepOpen(stalled, 454, "4.7.0 try again later") }, "454"},
		{"421 at RCPT, connection kept", func(s *smtptest.Server) { s.RefuseRecipientKeepOpen(stalled, 421, "4.7.0 try again later") }, "421"},
		{"timeout at RCPT", func(s *smtptest.Server) { s.DelayRecipient(stalled, time.Hour) }, "RCPT failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			env := newOutboxEnv(t)
			tc.stall(env.srv)
			cfg, err := smtpclient.ParseURL(env.srv.URL())
			require.NoError(t, err)
			cfg.Timeout = 300 * time.Millisecond
			mailer := smtpMailer{smtpclient.New(cfg, nil)}
			t.Cleanup(func() { _ = mailer.Close() })
			o := env.outbox(t)
			o.Mailer, o.InFlight = mailer, 16

			env.lend(t, "stalled", stalled) // first in the log
			var others []eventstore.Event
			for i := range 100 {
				others = append(others, env.lend(t, fmt.Sprint(i), fmt.Sprintf("reader-%d@domain-%d.example", i, i%10)))
			}
			run := env.run(t, o, processor.Backoff{Attempts: 3, First: 100 * time.Millisecond, Max: 100 * time.Millisecond})

			requireOnceEach(t, env.srv.WaitForMessages(t, len(others), 30*time.Second), others)
			eventuallyTrue(t, 20*time.Second, func() bool {
				st := run.status(t)
				return st.Parked == 1 && st.Deferred == 0 && st.Lag == 0
			}, "the stalled email parked once its attempts ran out")
			require.Equal(t, 3, env.srv.Attempts(stalled), "tried as often as the schedule says")
			parked, err := run.cps.ListParked(context.Background(), OutboxName, 0)
			require.NoError(t, err)
			require.Len(t, parked, 1)
			require.Contains(t, parked[0].Reason, tc.reason)
			require.NotContains(t, parked[0].Reason, stalled)
			require.Len(t, env.srv.Messages(), len(others), "none to the stalled recipient, none twice")

			env.seen.mu.Lock()
			defer env.seen.mu.Unlock()
			require.Zero(t, env.seen.relayDown, "the relay was never reported down")
			// The stalled email's three attempts; on a loaded machine another email may also miss
			// the 300 ms timeout once, and be sent on its retry (none went twice: above).
			require.GreaterOrEqual(t, len(env.seen.failed), 3, "the stalled email's attempts failed")
			for _, class := range env.seen.failed {
				require.Equal(t, Temporary, class, "each for now, none for good")
			}
			require.Equal(t, processor.Relay{State: "up"}, o.Relay())
		})
	}
}

// An email whose recipient domain has all its slots in use is handed back to the processor
// (processor.Later) without being sent, while emails to other domains go; once a slot frees,
// its channel is closed and it goes.
func TestOutboxHandsBackAnEmailWhoseDomainIsFull(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	env.srv.DelayRecipient("slow.example", 500*time.Millisecond)
	cfg, err := smtpclient.ParseURL(env.srv.URL())
	require.NoError(t, err)
	cfg.Timeout, cfg.MaxPerDomain = waitFor, 1
	o := env.outbox(t)
	o.Mailer = smtpMailer{smtpclient.New(cfg, nil)}
	first, second := env.lend(t, "a", "a@Slow.Example"), env.lend(t, "b", "b@slow.example")
	other := env.lend(t, "c", "c@other.example")

	done := make(chan error, 1)
	go func() { done <- o.Handle(handling(t), first) }()
	eventuallyTrue(t, waitFor, func() bool { return env.srv.Attempts("a@slow.example") == 1 }, "the first is at RCPT")
	err = o.Handle(handling(t), second)
	var wait *processor.LaterError
	require.ErrorAs(t, err, &wait, "handed back: %v", err)
	require.Zero(t, env.srv.Attempts("b@slow.example"), "not sent")
	require.NoError(t, o.Handle(handling(t), other), "another domain goes meanwhile")
	select {
	case <-wait.Ready:
		t.Fatal("told to go again while the slot is in use")
	default:
	}
	require.NoError(t, <-done)
	select {
	case <-wait.Ready:
	case <-time.After(waitFor):
		t.Fatal("not told when the slot freed")
	}
	require.NoError(t, o.Handle(handling(t), second))
	require.Len(t, env.srv.WaitForMessages(t, 3, waitFor), 3)
	require.Equal(t, 1, env.srv.MaxConversationsTo("slow.example"))
	env.seen.mu.Lock()
	defer env.seen.mu.Unlock()
	require.Empty(t, env.seen.failed, "waiting for a slot is no failure")
}

// One slow domain (each RCPT to it takes 2 s) first in the log, with 60 emails to other domains
// after it: the slow domain never has more than its 4 conversations at once, and the others
// don't wait for it; they are all sent before its second round of 4 is. (The delay is long
// enough that sending 60 emails on a loaded machine takes less; at 400 ms it sometimes did not.)
func TestOutboxSlowDomainHoldsUpNoOne(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	const delay = 2 * time.Second
	env.srv.DelayRecipient("slow.example", delay)
	o := env.outbox(t)
	o.InFlight = 16
	// The members and books first, so that the loans are side by side in the log, within the
	// processor's read-ahead (see the package comment).
	for i := range 20 {
		env.prepare(t, fmt.Sprint("slow-", i), fmt.Sprintf("reader-%d@slow.example", i))
	}
	for i := range 60 {
		env.prepare(t, fmt.Sprint("fast-", i), fmt.Sprintf("reader-%d@fast-%d.example", i, i%15))
	}
	var slow, fast []eventstore.Event
	for i := range 20 {
		slow = append(slow, env.lendPrepared(t, fmt.Sprint("slow-", i)))
	}
	for i := range 60 {
		fast = append(fast, env.lendPrepared(t, fmt.Sprint("fast-", i)))
	}
	run := env.run(t, o, processor.Backoff{Attempts: 3, First: time.Hour, Max: time.Hour})

	msgs := env.srv.WaitForMessages(t, len(slow)+len(fast), 30*time.Second)
	requireOnceEach(t, msgs, append(slices.Clone(slow), fast...))
	var slowAt, fastAt []time.Time
	for _, m := range msgs {
		if strings.HasSuffix(m.To[0], "@slow.example") {
			slowAt = append(slowAt, m.Received)
		} else {
			fastAt = append(fastAt, m.Received)
		}
	}
	slices.SortFunc(slowAt, time.Time.Compare)
	slices.SortFunc(fastAt, time.Time.Compare)
	lastFast := fastAt[len(fastAt)-1]
	require.True(t, lastFast.Before(slowAt[4]),
		"the other domains' emails were all sent (the last %s after the first slow one) before the slow domain's second round (%s after)",
		lastFast.Sub(slowAt[0]), slowAt[4].Sub(slowAt[0]))
	require.Equal(t, 4, env.srv.MaxConversationsTo("slow.example"), "its 4 slots, never more")
	require.GreaterOrEqual(t, slowAt[len(slowAt)-1].Sub(slowAt[0]), 3*delay, "five rounds of four: the limit held")
	st := run.status(t)
	require.Zero(t, st.Deferred, "waiting for a slot uses up no attempt")
	require.Zero(t, st.Parked)
}

// prepare adds a member with the given address and a book, both named after id, for
// lendPrepared.
func (env outboxEnv) prepare(t *testing.T, id, email string) {
	t.Helper()
	_, err := env.accounts.SetContact(t.Context(), "m-"+id, accounts.SetContact{Name: "Member " + id, Email: email}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = env.books.Add(t.Context(), books.AddBook{ID: id, Title: "Title " + id, Author: "Author"}, aggregate.Origin{})
	require.NoError(t, err)
}

// lendPrepared lends the book id to the member id (see prepare) and returns the BookLent event.
func (env outboxEnv) lendPrepared(t *testing.T, id string) eventstore.Event {
	t.Helper()
	_, err := env.books.Lend(t.Context(), id, books.LendBook{LoanID: "loan-" + id, MemberID: "m-" + id}, aggregate.Origin{})
	require.NoError(t, err)
	events, err := env.store.ReadStream(t.Context(), books.Type().StreamID(id), 1)
	require.NoError(t, err)
	require.Len(t, events, 1)
	return events[0]
}

// eventuallyTrue polls cond until it holds or timeout passes.
func eventuallyTrue(t *testing.T, timeout time.Duration, cond func() bool, msg string) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("not true after %s: %s", timeout, msg)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
