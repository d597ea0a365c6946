package processor

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
)

// A handler schedules and cancels through the context it was given, and only through it; what
// it asks is recorded in order, to be written with its outcome.
func TestScheduleAndCancelAreRecordedInOrder(t *testing.T) {
	t.Parallel()
	ctx, recorded := RecordTimers(context.Background())
	at := time.Date(2026, 5, 1, 12, 0, 0, 123456789, time.FixedZone("CEST", 2*60*60))
	require.NoError(t, Schedule(ctx, "reminder:book-dune:loan-1", at, map[string]string{"loanId": "loan-1"}))
	require.NoError(t, Cancel(ctx, "overdue:book-dune:loan-1"))
	require.NoError(t, Schedule(ctx, "hold:book-emma", at.Add(time.Hour), nil))
	require.Equal(t, []TimerChange{
		{Key: "reminder:book-dune:loan-1", At: time.Date(2026, 5, 1, 10, 0, 0, 123456000, time.UTC), Data: []byte(`{"loanId":"loan-1"}`)},
		{Key: "overdue:book-dune:loan-1", Cancel: true},
		{Key: "hold:book-emma", At: time.Date(2026, 5, 1, 11, 0, 0, 123456000, time.UTC), Data: []byte(`null`)},
	}, recorded.Changes(), "in UTC, to the microsecond, as PostgreSQL keeps it")
	require.Nil(t, (*TimerRecorder)(nil).Changes())
}

// A timer is an id, a time and a few ids: anything else is refused, and nothing is recorded.
func TestScheduleRefusesWhatIsNotATimer(t *testing.T) {
	t.Parallel()
	ctx, recorded := RecordTimers(context.Background())
	at := time.Now()
	for why, err := range map[string]error{
		"outside a handler":    Schedule(context.Background(), "k", at, nil),
		"cancel outside":       Cancel(context.Background(), "k"),
		"no key":               Schedule(ctx, "", at, nil),
		"a key too long":       Schedule(ctx, strings.Repeat("k", MaxTimerKeyLength+1), at, nil),
		"a key not UTF-8":      Schedule(ctx, "k\xff", at, nil),
		"cancel without a key": Cancel(ctx, ""),
		"no time":              Schedule(ctx, "k", time.Time{}, nil),
		"data too large":       Schedule(ctx, "k", at, strings.Repeat("x", MaxTimerDataBytes)),
		"data that is no JSON": Schedule(ctx, "k", at, math.Inf(1)),
	} {
		require.Error(t, err, why)
		require.True(t, errs.Is(err, errs.Internal), "%s: a handler's bug, not a client's: %v", why, err)
	}
	require.Empty(t, recorded.Changes())
	require.NoError(t, Schedule(ctx, strings.Repeat("k", MaxTimerKeyLength), at, strings.Repeat("x", MaxTimerDataBytes-2)), "at the bounds")
}
