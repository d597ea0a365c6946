package circulation_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/calendar"
	"library/internal/circulation"
	"library/internal/eventstore"
)

// A Reader keeps the desk it read: a change made through its own services is read at the next
// decision; one made elsewhere (another replica's services on the same log) once Refresh is
// over, and at once with Refresh 0.
func TestReaderKeepsTheDeskUntilAChange(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := eventstore.NewMemory(nil)
	reader := func(refresh time.Duration) *circulation.Reader {
		r := &circulation.Reader{Rules: circulation.NewService(log, aggregate.Options{}), Calendar: calendar.NewService(log, aggregate.Options{}),
			Defaults: circulation.Defaults(env), Zone: time.UTC, Refresh: refresh}
		return r.Watch()
	}
	here, keeping, reading := reader(time.Hour), reader(time.Hour), reader(0)
	for _, r := range []*circulation.Reader{here, keeping, reading} {
		d, err := r.Desk(ctx)
		require.NoError(t, err)
		require.Zero(t, d.Rules.Version)
	}
	_, err := here.Rules.Set(ctx, circulation.SetRules{Rows: []circulation.Row{{Key: circulation.Key{Group: "*", MaterialType: "dvd"}, Renewals: new(1)}}}, 0, aggregate.Origin{})
	require.NoError(t, err)
	day := calendar.NewDate(2026, time.December, 24)
	_, err = here.Calendar.Close(ctx, day, aggregate.Origin{})
	require.NoError(t, err)

	d, err := here.Desk(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), d.Rules.Version, "a change made here is read at once")
	require.False(t, d.Calendar.Open(day))
	d, err = keeping.Desk(ctx)
	require.NoError(t, err)
	require.Zero(t, d.Rules.Version, "one made elsewhere waits for the refresh")
	d, err = reading.Desk(ctx)
	require.NoError(t, err)
	require.Equal(t, int64(1), d.Rules.Version, "unless the reader keeps nothing")
	require.False(t, d.Calendar.Open(day))
}
