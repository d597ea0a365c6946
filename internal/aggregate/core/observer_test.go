package core

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

// outcomes records what the observer was told, in order.
type outcomes struct {
	mu   sync.Mutex
	seen []string
}

func (o *outcomes) CacheLookup(string, bool, int) {}

func (o *outcomes) CommandDone(command string, outcome Outcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.seen = append(o.seen, command+" "+string(outcome))
}

func (o *outcomes) take() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	seen := o.seen
	o.seen = nil
	return seen
}

// unavailableLog fails every read the way the PostgreSQL store does when the database is down.
type unavailableLog struct{ *eventstore.Memory }

func (unavailableLog) ReadStream(context.Context, string, int64) ([]eventstore.Event, error) {
	return nil, errs.E(errs.Unavailable, "the database is unavailable")
}

// Every command is reported once, with an outcome that tells the client's mistakes from the
// service's failures.
func TestObserverIsToldEveryOutcome(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	seen := &outcomes{}
	repo, _ := newTallies(t, Options{Observer: seen})

	_, err := repo.Execute(ctx, "a", add(1, "k"))
	require.NoError(t, err)
	_, err = repo.Execute(ctx, "a", add(1, "k"))
	require.NoError(t, err)
	_, err = repo.Execute(ctx, "a", add(0, ""))
	require.NoError(t, err)
	_, err = repo.Execute(ctx, "a", add(-1, ""))
	require.Error(t, err)
	_, err = repo.Execute(ctx, "a", add(2, "k")) // same key, other payload
	require.True(t, errs.Is(err, errs.IdempotencyKeyReused))
	invalid := add(1, "")
	invalid.Validate = func() error { return errs.E(errs.InvalidRequest, "no") }
	_, err = repo.Execute(ctx, "a", invalid)
	require.Error(t, err)
	require.Equal(t, []string{"add recorded", "add replayed", "add unchanged", "add refused", "add refused", "add refused"}, seen.take())

	conflicting := &conflictingLog{Memory: eventstore.NewMemory(nil)}
	conflicting.races.Store(1000)
	_, err = NewRepository(conflicting, tallyType(), Options{MaxAttempts: 2, Observer: seen}).Execute(ctx, "a", add(1, ""))
	require.True(t, errs.Is(err, errs.ConcurrencyConflict))
	require.Equal(t, []string{"add conflict"}, seen.take())

	_, err = NewRepository(unavailableLog{eventstore.NewMemory(nil)}, tallyType(), Options{Observer: seen}).Execute(ctx, "a", add(1, ""))
	require.True(t, errs.Is(err, errs.Unavailable))
	require.Equal(t, []string{"add failed"}, seen.take())
}

// A nil Observer is allowed: nobody is told.
func TestObserverDefaultsToNobody(t *testing.T) {
	t.Parallel()
	repo, _ := newTallies(t, Options{})
	_, err := repo.Execute(context.Background(), "a", add(1, ""))
	require.NoError(t, err)
}
