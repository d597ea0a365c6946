package calendar_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
	"library/internal/calendar"
	"library/internal/eventstore"
)

// The calendar's commands run through package aggregate as any aggregate's: one stream,
// calendar-library, whose events are stored under the names below, in the shapes below, and
// read back as they were written.
func TestTheCalendarsStream(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := eventstore.NewMemory(nil)
	typ := calendar.Type()
	repo := core.New(stack.Store(log, typ, aggregate.Options{}), typ, aggregate.Options{})
	execute := func(name, key string, c command) aggregate.Result {
		t.Helper()
		res, err := repo.Execute(ctx, calendar.ID, aggregate.Command[calendar.Calendar]{
			Name: name, Origin: aggregate.Origin{CommandID: key}, Payload: c, Validate: c.Validate, Decide: c.Decide,
		})
		require.NoError(t, err)
		return res
	}
	christmas := date(t, "2026-12-25")
	assert.True(t, execute("closeDay", "k1", calendar.CloseDay{Date: christmas}).Recorded())
	assert.False(t, execute("closeDay", "k2", calendar.CloseDay{Date: christmas}).Recorded(), "closed already")
	assert.True(t, execute("setWeekly", "k3", calendar.SetWeekly{Closed: []string{"Saturday", "sunday"}}).Recorded())
	assert.False(t, execute("reopenDay", "", calendar.ReopenDay{Date: christmas.AddDays(1)}).Recorded(), "never closed")
	assert.True(t, execute("closeDay", "k1", calendar.CloseDay{Date: christmas}).Replayed, "a retry is answered from the log")

	assert.Equal(t, "calendar-library", calendar.StreamID())
	stored, err := log.ReadStream(ctx, calendar.StreamID(), 0)
	require.NoError(t, err)
	want := []struct{ typ, data string }{
		{"CalendarDayClosed", `{"date":"2026-12-25"}`},
		{aggregate.NothingChanged, `{}`},
		{"CalendarWeeklyClosingSet", `{"closed":["sunday","saturday"]}`},
		// The reopening had no key, and decided nothing: nothing to answer again, nothing kept.
	}
	require.Len(t, stored, len(want))
	for i, w := range want {
		assert.Equal(t, w.typ, stored[i].Type, "event %d", i)
		if w.typ != aggregate.NothingChanged {
			assert.JSONEq(t, w.data, string(stored[i].Data), "event %d", i)
		}
	}
	decoded, err := typ.Decode(stored[0])
	require.NoError(t, err)
	assert.Equal(t, calendar.DayClosed{Date: christmas}, decoded)
	reopened, err := typ.Decode(eventstore.Event{Type: "CalendarDayReopened", Data: []byte(`{"date":"2026-12-25"}`)})
	require.NoError(t, err)
	assert.Equal(t, calendar.DayReopened{Date: christmas}, reopened)
	_, err = typ.Decode(eventstore.Event{Type: "CalendarDayClosed", Data: []byte(`{"date":"Christmas"}`)})
	assert.Error(t, err, "a date that can't be read")

	loaded, err := repo.Load(ctx, calendar.ID)
	require.NoError(t, err)
	c := loaded.State.In(zone(t, "Europe/London"))
	assert.False(t, c.Open(christmas))
	assert.False(t, c.Open(date(t, "2026-12-27")), "a Sunday")
	assert.True(t, c.Open(date(t, "2026-12-28")))
	assert.Equal(t, []string{"sunday", "saturday"}, c.WeeklyNames())
}
