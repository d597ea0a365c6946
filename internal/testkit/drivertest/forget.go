package drivertest

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
)

// Forgetter is checkpoints that can forget a member, as an erasure asks them to.
type Forgetter interface {
	processor.Checkpoints
	ForgetMember(ctx context.Context, memberID, streamID string) (int, error)
}

// TestForgetMember is the contract of ForgetMember: it rewrites to processor.ErasedReason the
// reasons of the parked and deferred events that name the member in their data (memberId),
// and of those of their account's stream, which name no one: an event that is either is
// rewritten, whatever the other says. Everyone else's keep theirs.
func TestForgetMember(t *testing.T, newCheckpoints func(t *testing.T) Forgetter) {
	ctx := context.Background()
	c := newCheckpoints(t)
	event := func(position int64, streamID, data string) eventstore.Event {
		e := Parkable(uint64(position), position)
		e.StreamID, e.Data = streamID, []byte(data)
		return e
	}
	const quoted = "550 no mailbox erin.zweistein@example.org"
	erins := []eventstore.Event{
		event(1, "book-dune", `{"loanId":"loan-1","memberId":"m-erin"}`), // names her, on a book's stream
		event(2, "account-m-erin", `{"amount":300}`),                     // of her account, naming no one
	}
	others := []eventstore.Event{
		event(3, "book-emma", `{"loanId":"loan-2","memberId":"m-fred"}`),
		event(4, "account-m-fred", `{"amount":300}`),
	}
	next := time.Date(2026, 12, 3, 9, 0, 0, 0, time.UTC)
	for _, e := range append(append([]eventstore.Event(nil), erins...), others...) {
		require.NoError(t, c.Park(ctx, "notifications", processor.Parked{Event: e, Reason: quoted, Attempts: 6}))
		require.NoError(t, c.Defer(ctx, "late-fines", processor.Deferred{Event: e, Reason: quoted, Attempts: 1, NextAttempt: next}))
	}

	n, err := c.ForgetMember(ctx, "m-erin", "account-m-erin")
	require.NoError(t, err)
	require.Equal(t, 2*len(erins), n, "her parked and deferred events")

	want := map[int64]string{1: processor.ErasedReason, 2: processor.ErasedReason, 3: quoted, 4: quoted}
	parked, err := c.ListParked(ctx, "notifications", 0)
	require.NoError(t, err)
	gotParked := map[int64]string{}
	for _, p := range parked {
		gotParked[p.Event.Position] = p.Reason
	}
	require.Equal(t, want, gotParked, "the parked events' reasons, by position")
	gotDeferred := map[int64]string{}
	for _, d := range Due(t, c, "late-fines", next) {
		gotDeferred[d.Event.Position] = d.Reason
	}
	require.Equal(t, want, gotDeferred, "the deferred events' reasons, by position")
}
