package catalog_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/catalog"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/httpapi"
	"library/internal/processor"
)

// reachedOnly locates the event at position 1, where the catalog is already; no other event
// exists (yet), so a read that waits for one waits until its time is up.
type reachedOnly struct{}

func (reachedOnly) Locate(_ context.Context, position int64) (eventstore.Checkpoint, error) {
	if position == 1 {
		return eventstore.Checkpoint{}, nil
	}
	return eventstore.Checkpoint{}, errs.E(errs.NotFound, "there is no event at position %d", position)
}

// CATALOG_MAX_WAITS: with every place taken by reads that can't finish, one more read that
// would wait is answered NotCaughtUp at once (503 with Retry-After over HTTP), while a read
// that need not wait is served; places are given back as reads end.
func TestCatalogWaitLimit(t *testing.T) {
	t.Parallel()
	const places = 3
	waits := catalog.NewWaitLimit(places)
	query := catalog.Query{
		Catalog: catalog.NewMemory(processor.NewMemoryCheckpoints(time.Now)),
		Log:     reachedOnly{},
		Wait:    time.Hour, // the waiting reads end when the test cancels them
		Waits:   waits,
	}
	filter, err := catalog.ParseFilter("", "", "", "")
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(context.Background())
	var waiting sync.WaitGroup
	for range places {
		waiting.Go(func() {
			_, _, err := query.List(ctx, filter, 99)
			assert.ErrorIs(t, err, context.Canceled)
		})
	}
	require.Eventually(t, func() bool { return waits.Waiting() == places }, 10*time.Second, time.Millisecond, "every place taken")

	done := make(chan error, 1)
	go func() {
		_, _, err := query.List(context.Background(), filter, 100)
		done <- err
	}()
	select {
	case err := <-done:
		require.True(t, errs.Is(err, errs.NotCaughtUp), "%v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("one more read waited instead of being refused at once")
	}

	_, _, err = query.List(context.Background(), filter, 1)
	require.NoError(t, err, "a read whose position is reached takes no place")

	api := httpapi.New(httpapi.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, catalog.Routes{Query: query})
	rec := httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/books?minPosition=100", nil))
	require.Equal(t, http.StatusServiceUnavailable, rec.Code, rec.Body.String())
	require.Equal(t, "1", rec.Header().Get("Retry-After"))
	var p httpapi.Problem
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &p))
	require.Equal(t, errs.NotCaughtUp, p.Code)
	rec = httptest.NewRecorder()
	api.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/books?minPosition=1", nil))
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())

	cancel()
	waiting.Wait()
	require.Equal(t, 0, waits.Waiting(), "places given back")
	short, stop := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer stop()
	_, _, err = query.List(short, filter, 100)
	require.ErrorIs(t, err, context.DeadlineExceeded, "a place is free again: the read waits")
}
