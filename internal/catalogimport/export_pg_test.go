package catalogimport_test

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/catalogimport"
	"library/internal/eventstore/pgstore"
	"library/internal/testkit/pgtest"
)

// An export while a transaction that began before the import is still running elsewhere (the
// read horizon held back) waits for it to end, rather than export a catalogue without the
// titles behind the horizon; once it has ended, the export has them all.
func TestAnExportWaitsForTheReadHorizon(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	store := pgstore.New(pool, slog.New(slog.DiscardHandler))
	t.Cleanup(store.Close)
	ts, bs := servicesOn(store)

	holder, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = holder.Rollback(ctx) }()
	_, err = holder.Exec(ctx, `SELECT pg_current_xact_id()`) // it has an id now: the horizon stays below it
	require.NoError(t, err)
	im := &catalogimport.Importer{Log: store, Titles: ts, Books: bs, Actor: operator}
	_, err = im.Import(ctx, []catalogimport.Record{dune(), emma()})
	require.NoError(t, err)

	var got []string
	export := func(ctx context.Context) error {
		got = nil
		return catalogimport.Export(ctx, store, ts, bs, func(r catalogimport.Record) error {
			got = append(got, r.Title)
			return nil
		})
	}
	held, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	// It waits while the horizon is held back, until its context ends (in a read of the log,
	// or between two): never an export that ends well without the titles.
	require.Error(t, export(held), "it waits while the horizon is held back")
	require.ErrorIs(t, held.Err(), context.DeadlineExceeded)
	require.Empty(t, got)

	require.NoError(t, holder.Commit(ctx))
	require.NoError(t, export(ctx))
	require.Equal(t, []string{"Dune", "Emma"}, got)
}
