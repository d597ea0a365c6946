package secrethash

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
)

// A gate lets n in at once; the next waits until one leaves, or gives up when its context ends.
func TestGate(t *testing.T) {
	t.Parallel()
	g := NewGate(2)
	first, err := g.Enter(context.Background())
	require.NoError(t, err)
	_, err = g.Enter(context.Background())
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = g.Enter(ctx)
	require.ErrorIs(t, err, context.Canceled, "full: a caller whose context ended is not let in")
	require.True(t, errs.Is(err, errs.Unavailable), "a busy moment, to try again after")
	first()
	third, err := g.Enter(context.Background())
	require.NoError(t, err, "a slot given back is taken")
	third()
	var none *Gate
	leave, err := none.Enter(ctx)
	require.NoError(t, err, "no gate: no wait")
	leave()
}
