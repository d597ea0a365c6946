package drivertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
)

// Pos builds a position. Transaction ids above 2^32 check that xid8 keeps all 64 bits.
func Pos(generation int64, tx uint64, position int64) processor.Position {
	return processor.Position{Generation: generation, Checkpoint: eventstore.Checkpoint{TransactionID: 1<<40 + tx, Position: position}}
}

// Parkable is an event as the log would have recorded it.
func Parkable(tx uint64, position int64) eventstore.Event {
	return eventstore.Event{
		StreamID: fmt.Sprintf("book-%d", position), Version: position, Position: position,
		TransactionID: 1<<40 + tx, Type: "BookLent", Data: []byte(`{"member": "alice", "days": 14}`),
		Metadata:   eventstore.Metadata{CommandID: "cmd-1", Command: "lend", Fingerprint: "f1", CorrelationID: "req-1"},
		RecordedAt: time.Date(2026, 3, 4, 5, 6, 7, 123456000, time.UTC),
	}
}

// DeferredPositions are the positions of deferred events, in their order.
func DeferredPositions(deferred []processor.Deferred) []int64 {
	out := make([]int64, len(deferred))
	for i, d := range deferred {
		out[i] = d.Event.Position
	}
	return out
}

// Due returns the deferred events of name that are due at now, the earliest first.
func Due(t *testing.T, c processor.Checkpoints, name string, now time.Time) []processor.Deferred {
	t.Helper()
	return DueLimit(t, c, name, now, 0)
}

// DueLimit is Due, up to limit events.
func DueLimit(t *testing.T, c processor.Checkpoints, name string, now time.Time, limit int) []processor.Deferred {
	t.Helper()
	d, err := c.Due(context.Background(), name, now, limit)
	require.NoError(t, err)
	return d
}

// CountDeferred counts the deferred events of name.
func CountDeferred(t testing.TB, c processor.Checkpoints, name string) int {
	t.Helper()
	n, err := c.CountDeferred(context.Background(), name)
	require.NoError(t, err)
	return n
}

// ParkedPositions are the positions of parked events, in their order.
func ParkedPositions(parked []processor.Parked) []int64 {
	out := make([]int64, len(parked))
	for i, p := range parked {
		out[i] = p.Event.Position
	}
	return out
}

// RequireSameEvent compares a parked event with the original. The data is compared as JSON:
// PostgreSQL keeps it as jsonb, which may lay it out differently.
func RequireSameEvent(t *testing.T, want, got eventstore.Event) {
	t.Helper()
	require.JSONEq(t, string(want.Data), string(got.Data))
	require.True(t, want.RecordedAt.Equal(got.RecordedAt), "recorded at %v, got %v", want.RecordedAt, got.RecordedAt)
	want.Data, got.Data = nil, nil
	want.RecordedAt, got.RecordedAt = time.Time{}, time.Time{}
	require.Equal(t, want, got)
}

// LoadPosition returns the position of name.
func LoadPosition(t testing.TB, cps processor.Checkpoints, name string) processor.Position {
	t.Helper()
	p, err := cps.Load(context.Background(), name)
	require.NoError(t, err)
	return p
}

// CountParked counts the parked events of name.
func CountParked(t testing.TB, cps processor.Checkpoints, name string) int {
	t.Helper()
	n, err := cps.CountParked(context.Background(), name)
	require.NoError(t, err)
	return n
}
