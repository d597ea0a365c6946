package pgdriver

import (
	"context"
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"library/internal/processor"
	"library/internal/testkit/drivertest"
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

// A batch written fresh adds its rows as new (here with a COPY of its own, as the catalog's
// titles are). One that finds a key taken writes nothing, and is written again with its rows
// as upserts: the rows and the checkpoint end as the upserts leave them. A holder fenced
// meanwhile is fenced either way. (The loans view's tests find a key taken in the batch.)
func TestABatchThatFindsAKeyTakenIsWrittenAgainAsUpserts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.Connect(t, pgtest.NewDatabase(t))
	_, err := pool.Exec(ctx, `CREATE TABLE added (id text PRIMARY KEY, n int NOT NULL)`)
	require.NoError(t, err)
	v := ViewTx{Pool: pool, Checkpoints: NewCheckpoints(pool), Build: processor.Build{View: "catalog", Number: 1}, What: "the catalog"}
	// add writes rows ids, each as n, and returns how each try was written: fresh or not.
	add := func(from, to processor.Position, n int, ids ...string) ([]bool, error) {
		var tries []bool
		err := v.ApplyAdding(ctx, from, to, func(tx pgx.Tx, b *pgx.Batch, fresh bool) error {
			tries = append(tries, fresh)
			if !fresh {
				b.Queue(`INSERT INTO added SELECT id, $2 FROM unnest($1::text[]) AS id
ON CONFLICT (id) DO UPDATE SET n = excluded.n`, ids, n)
				return nil
			}
			var rows [][]any
			for _, id := range ids {
				rows = append(rows, []any{id, n})
			}
			_, err := tx.CopyFrom(ctx, pgx.Identifier{"added"}, []string{"id", "n"}, pgx.CopyFromRows(rows))
			return err
		})
		return tries, err
	}
	rows := func() map[string]int {
		got := map[string]int{}
		r, err := pool.Query(ctx, `SELECT id, n FROM added`)
		require.NoError(t, err)
		for r.Next() {
			var id string
			var n int
			require.NoError(t, r.Scan(&id, &n))
			got[id] = n
		}
		require.NoError(t, r.Err())
		return got
	}

	tries, err := add(processor.Position{}, drivertest.Pos(0, 1, 1), 1, "a", "b")
	require.NoError(t, err)
	require.Equal(t, []bool{true}, tries, "all new: written once, fresh")

	tries, err = add(drivertest.Pos(0, 1, 1), drivertest.Pos(0, 1, 2), 2, "b", "c")
	require.NoError(t, err)
	require.Equal(t, []bool{true, false}, tries, "b taken: written again as upserts")
	require.Equal(t, map[string]int{"a": 1, "b": 2, "c": 2}, rows())
	require.Equal(t, drivertest.Pos(0, 1, 2), drivertest.LoadPosition(t, v.Checkpoints, v.Build.Name()))

	_, err = add(drivertest.Pos(0, 1, 1), drivertest.Pos(0, 1, 3), 3, "c", "d")
	require.ErrorIs(t, err, processor.ErrFenced, "a holder behind the checkpoint")
	require.Equal(t, map[string]int{"a": 1, "b": 2, "c": 2}, rows(), "and nothing written")
}
