package gate

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// An open gate lets every attempt through. A paused attempt closes it: the next attempt waits
// for the backoff and goes as the probe, alone; while it is out nobody else goes; its getting
// through opens the gate for all.
func TestAPausedAttemptClosesTheGateUntilAProbeGetsThrough(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	g := New()
	probe, ok := g.Enter(ctx, ctx)
	require.True(t, ok)
	require.False(t, probe, "an open gate needs no probe")

	g.Paused(false)
	closed, _ := g.State()
	require.True(t, closed)
	began := time.Now()
	probe, ok = g.Enter(ctx, ctx)
	require.True(t, ok)
	require.True(t, probe, "the first attempt after the backoff is the probe")
	require.GreaterOrEqual(t, time.Since(began), 90*time.Millisecond, "it waited for the backoff")

	waiting, stop := context.WithTimeout(ctx, 300*time.Millisecond)
	defer stop()
	_, ok = g.Enter(waiting, waiting)
	require.False(t, ok, "nobody else goes while the probe is out")

	g.Passed()
	closed, _ = g.State()
	require.False(t, closed)
	probe, ok = g.Enter(ctx, ctx)
	require.True(t, ok)
	require.False(t, probe)
}
