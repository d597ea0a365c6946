package pgdriver

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"library/internal/processor"
	"library/internal/testkit/pgtest"
)

// A view's transaction commits without waiting for the disk, and only it: the setting is the
// transaction's own, so the connection it ran on waits for the disk again afterwards.
func TestAViewsTransactionAloneCommitsWithoutWaitingForTheDisk(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	// One connection, which waits for the disk (the tests' server does not): the view's
	// transaction and the look after it share it.
	u, err := url.Parse(pgtest.NewDatabase(t))
	require.NoError(t, err)
	q := u.Query()
	q.Set("pool_max_conns", "1")
	q.Set("synchronous_commit", "on")
	u.RawQuery = q.Encode()
	pool := pgtest.Connect(t, u.String())
	v := ViewTx{Pool: pool, Checkpoints: NewCheckpoints(pool), Build: processor.Build{View: "catalog", Number: 1}, What: "the catalog"}
	setting := func(q interface {
		QueryRow(context.Context, string, ...any) pgx.Row
	}) string {
		var s string
		require.NoError(t, q.QueryRow(ctx, `SHOW synchronous_commit`).Scan(&s))
		return s
	}
	var inside string
	require.NoError(t, v.InTx(ctx, func(tx pgx.Tx) error {
		inside = setting(tx)
		return nil
	}))
	require.Equal(t, "off", inside)
	require.Equal(t, "on", setting(pool), "after it, on the same connection")
}
