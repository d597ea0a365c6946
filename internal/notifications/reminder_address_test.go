package notifications

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/processor"
)

// overdueWithoutAddress lends a book to a member, sends its loan email, then takes the member's
// address away, and returns the loan's first overdue notice as its timer.
func (env outboxEnv) overdueWithoutAddress(t *testing.T, o *Outbox) processor.Timer {
	t.Helper()
	changes := handled(t, o, env.lend(t, "dune", "reader@example.org"))
	env.srv.WaitForMessages(t, 1, waitFor) // the loan email
	env.setAddress(t, "")
	require.Len(t, changes, 2)
	require.Equal(t, 1, dataOf(t, changes[1]).Notice)
	return timerOf(changes[1])
}

// setAddress gives the member of the book "dune" an address, or takes it away ("").
func (env outboxEnv) setAddress(t *testing.T, email string) {
	t.Helper()
	_, err := env.accounts.SetContact(t.Context(), "m-dune", accounts.SetContact{Name: "Member dune", Email: email}, aggregate.Origin{})
	require.NoError(t, err)
}

// lastFor is what a timer key ends as after changes made in order: the last one for it wins,
// as the store writes them.
func lastFor(t *testing.T, key string, changes []processor.TimerChange) processor.TimerChange {
	t.Helper()
	var last *processor.TimerChange
	for i := range changes {
		if changes[i].Key == key {
			last = &changes[i]
		}
	}
	require.NotNil(t, last, "no change to %s", key)
	return *last
}

// An overdue notice that waits for its member's address keeps its timer for its next look: the
// next notice is not scheduled over it (they share the loan's key). Once the address comes,
// the waiting notice goes, and only then is the next one scheduled, OVERDUE_EVERY after the
// waiting one's own time.
func TestOutboxOverdueNoticeWaitingForAnAddressIsNotSkipped(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	first := env.overdueWithoutAddress(t, o)
	clock := first.At.Add(time.Second)
	o.Now = func() time.Time { return clock }

	look := fired(t, o, first)
	require.Len(t, look, 1, "one change: the look again, and no next notice")
	again := lastFor(t, first.Key, look)
	require.False(t, again.Cancel)
	require.Equal(t, 1, dataOf(t, again).Notice, "the key still holds the waiting notice")
	require.Equal(t, first.At, dataOf(t, again).At, "keeping its due time")
	require.Equal(t, timerTime(clock.Add(DefaultAddressPoll)), again.At)

	env.setAddress(t, "back@example.org")
	clock = again.At
	next := fired(t, o, timerOf(again))
	msgs := env.srv.WaitForMessages(t, 2, waitFor)
	require.Equal(t, "Overdue: Title dune", msgs[1].Subject)
	require.Contains(t, msgs[1].Body, "Overdue notice 1 of 3")
	require.Len(t, next, 1, "now the next notice")
	require.Equal(t, 2, dataOf(t, next[0]).Notice)
	require.Equal(t, first.At.Add(DefaultReminders.OverdueEvery), next[0].At)
}

// A reminder that waits for its member's address is given up EMAIL_ADDRESS_WAIT after its due
// time, however many times it looked again meanwhile (each look a new timer time): the wait is
// counted from the due time, not from the latest look. The next notice is then scheduled, and
// comes at its own time once there is an address.
func TestOutboxReminderGivesUpAddressWaitAfterItsDueTime(t *testing.T) {
	t.Parallel()
	env := newOutboxEnv(t)
	o := env.outbox(t)
	o.AddressWait, o.AddressPoll = 10*time.Minute, time.Minute
	first := env.overdueWithoutAddress(t, o)
	var clock time.Time
	o.Now = func() time.Time { return clock }

	// Each look fires at its timer's time, as the store hands it out; 10 looks of a minute
	// reach the end of the wait, so 20 is far past it.
	timer, looks := first, 0
	var after []processor.TimerChange
	for ; looks < 20; looks++ {
		clock = timer.At
		after = fired(t, o, timer)
		require.Len(t, after, 1)
		if dataOf(t, after[0]).Notice != 1 {
			break
		}
		timer = timerOf(after[0])
	}
	require.Equal(t, 10, looks, "looked again every AddressPoll until AddressWait after the due time")
	require.Equal(t, first.At.Add(o.AddressWait), clock, "given up AddressWait after its due time")
	env.seen.mu.Lock()
	parked := env.seen.parked
	env.seen.mu.Unlock()
	require.Equal(t, 1, parked, "given up, counted as parked")
	require.Len(t, env.srv.Messages(), 1, "only the loan email")

	next := after[0]
	require.Equal(t, 2, dataOf(t, next).Notice, "the next notice is scheduled")
	require.Equal(t, first.At.Add(DefaultReminders.OverdueEvery), next.At)
	env.setAddress(t, "back@example.org")
	clock = next.At
	fired(t, o, timerOf(next))
	msgs := env.srv.WaitForMessages(t, 2, waitFor)
	require.Contains(t, msgs[1].Body, "Overdue notice 2 of 3", "the next notice comes")
}
