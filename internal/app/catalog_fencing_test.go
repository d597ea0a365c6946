package app_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/books"
	"library/internal/catalog"
	"library/internal/catalog/catalogpg"
	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/pgdriver"
	"library/internal/testkit/drivertest"
	"library/internal/testkit/pgtest"
)

// Holders racing one catalog batch by hand, on PostgreSQL: every one of them read the same
// checkpoint and applies the same batch in its own transaction; exactly one commits, the rest
// are fenced and write nothing, and the checkpoint is the winner's. So it is on the catalog's
// first build, in the tables the migrations made, and on a rebuild, in a schema of its own.
func TestCatalogHoldersRacingOneBatch(t *testing.T) {
	t.Parallel()
	for _, rebuild := range []bool{false, true} {
		t.Run(fmt.Sprintf("rebuild=%v", rebuild), func(t *testing.T) {
			t.Parallel()
			racingOneBatch(t, rebuild)
		})
	}
}

func racingOneBatch(t *testing.T, rebuild bool) {
	ctx := context.Background()
	pool := pgtest.NewPool(t)
	checkpoints := pgdriver.NewCheckpoints(pool)
	view := catalogpg.New(pool, checkpoints)
	build, model := drivertest.Answering(t, checkpoints, catalog.Name, view)
	if rebuild {
		build, model = drivertest.Rebuild(t, checkpoints, catalog.Name, view)
	}

	var batch []eventstore.Event
	for i := 1; i <= 20; i++ {
		data, err := json.Marshal(books.BookAdded{ID: fmt.Sprint(i), Title: "Book", Author: "Author"})
		require.NoError(t, err)
		batch = append(batch, eventstore.Event{StreamID: fmt.Sprintf("book-%d", i), Version: 1, Position: int64(i),
			TransactionID: 100, Type: "BookAdded", Data: data})
	}
	to := processor.Position{Checkpoint: batch[len(batch)-1].Checkpoint()}

	const holders = 12
	results := make([]error, holders)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range holders {
		wg.Go(func() {
			<-start
			results[i] = model.Apply(ctx, processor.Position{}, to, batch)
		})
	}
	close(start)
	wg.Wait()

	won := 0
	for _, err := range results {
		switch {
		case err == nil:
			won++
		case errors.Is(err, processor.ErrFenced):
		default:
			t.Fatalf("a holder failed otherwise: %v", err)
		}
	}
	require.Equal(t, 1, won, "exactly one holder commits the batch")
	after, err := checkpoints.TakeOver(ctx, build)
	require.NoError(t, err)
	require.Equal(t, processor.BuildAnswering, after.State)
	page, pos, err := view.List(ctx, catalog.Filter{})
	require.NoError(t, err)
	require.Len(t, page.Books, 20)
	require.Equal(t, to, pos)

	// A holder that is one batch behind can't apply the next batch either.
	next := processor.Position{Checkpoint: eventstore.Checkpoint{TransactionID: 101, Position: 21}}
	require.ErrorIs(t, model.Apply(ctx, processor.Position{}, next, batch[:1]), processor.ErrFenced)
}
