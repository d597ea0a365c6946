package core

import (
	"context"
	"encoding/json"
	"fmt"
	"library/internal/aggregate/cache"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/errs"
	"library/internal/eventstore"
)

// Two repositories on one log stand for two replicas, each with aggregates kept in memory that
// the other's appends leave behind.

// take removes n from the tally; it is refused when the tally holds less.
func take(n int, key string) Command[tally] {
	return Command[tally]{
		Name:    "take",
		Origin:  Origin{CommandID: key},
		Payload: map[string]int{"n": n},
		Decide: func(s tally) ([]Event, error) {
			if s.total < n {
				return nil, errs.E(errs.InvalidRequest, "the tally holds %d, less than %d", s.total, n)
			}
			return []Event{added{N: -n}}, nil
		},
	}
}

func twoReplicas(t *testing.T) (a, b *Repository[tally], store *eventstore.Memory) {
	t.Helper()
	store = eventstore.NewMemory(nil)
	return NewRepository(store, tallyType(), Options{}), NewRepository(store, tallyType(), Options{}), store
}

// aBehind returns two replicas where a keeps the tally at version 1 (1 added) and b has since
// added n: the log is at version 2.
func aBehind(t *testing.T, n int) (a, b *Repository[tally]) {
	t.Helper()
	ctx := context.Background()
	a, b, _ = twoReplicas(t)
	_, err := a.Execute(ctx, "x", add(1, ""))
	require.NoError(t, err)
	_, err = b.Execute(ctx, "x", add(n, ""))
	require.NoError(t, err)
	return a, b
}

func TestAKeptAggregateThatIsBehindIsNeverTheReasonForARefusal(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, _ := twoReplicas(t)
	_, err := a.Execute(ctx, "x", add(1, "")) // a keeps the tally at 1
	require.NoError(t, err)
	_, err = b.Execute(ctx, "x", add(5, "")) // the log says 6
	require.NoError(t, err)

	result, err := a.Execute(ctx, "x", take(3, "take-3"))
	require.NoError(t, err, "decided again on what the log says")
	require.Equal(t, int64(3), result.Version)
	loaded, err := b.Load(ctx, "x")
	require.NoError(t, err)
	require.Equal(t, 3, loaded.State.total)
}

func TestAKeptAggregateThatIsBehindAnswersNothingToDoAtTheLogsVersion(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := aBehind(t, 2)

	result, err := a.Execute(ctx, "x", add(0, ""))
	require.NoError(t, err)
	require.False(t, result.Recorded())
	require.Equal(t, int64(2), result.Version, "the version of the log, not of the kept aggregate")
}

func TestARetryOnTheOtherReplicaGetsTheFirstAnswer(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, store := twoReplicas(t)
	_, err := a.Execute(ctx, "x", add(1, "first")) // a keeps version 1
	require.NoError(t, err)
	first, err := b.Execute(ctx, "x", add(2, "paid"))
	require.NoError(t, err)

	retry, err := a.Execute(ctx, "x", add(2, "paid"))
	require.NoError(t, err)
	require.True(t, retry.Replayed)
	require.Equal(t, mustJSON(t, first), mustJSON(t, retry))
	stored, err := store.ReadStream(ctx, "tally-x", 0)
	require.NoError(t, err)
	require.Len(t, stored, 2, "the retry wrote nothing")

	// Kept aggregates answer their own retries without reading the log.
	again, err := b.Execute(ctx, "x", add(2, "paid"))
	require.NoError(t, err)
	require.Equal(t, mustJSON(t, first), mustJSON(t, again))
}

func TestKeptAggregatesAreNeverChangedByLaterCommands(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	// A state with a map, which Apply changes in place: only Clone keeps the kept one intact.
	type seen struct{ ids map[string]bool }
	typ := Type[seen]{
		Name: "seen",
		New:  func() seen { return seen{ids: map[string]bool{}} },
		Apply: func(s seen, e Event) seen {
			s.ids[fmt.Sprint(e.(added).N)] = true
			return s
		},
		Events: []Codec{EventCodec[added]()},
		Clone: func(s seen) seen {
			ids := make(map[string]bool, len(s.ids))
			for k, v := range s.ids {
				ids[k] = v
			}
			return seen{ids: ids}
		},
	}
	repo := NewRepository(store, typ, Options{})
	mark := func(n int) Command[seen] {
		return Command[seen]{Name: "mark", Payload: n, Decide: func(seen) ([]Event, error) { return []Event{added{N: n}}, nil }}
	}
	_, err := repo.Execute(ctx, "s", mark(1))
	require.NoError(t, err)
	before, err := repo.Load(ctx, "s")
	require.NoError(t, err)
	_, err = repo.Execute(ctx, "s", mark(2))
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"1": true}, before.State.ids, "a state handed out earlier did not change")
	after, err := repo.Load(ctx, "s")
	require.NoError(t, err)
	require.Equal(t, map[string]bool{"1": true, "2": true}, after.State.ids)
}

// A log that no longer holds what was kept (restored from a backup, say) is read whole again.
func TestAKeptAggregateAheadOfTheLogIsReadAgain(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	swappable := &swappableLog{}
	swappable.current.Store(eventstore.NewMemory(nil))
	repo := NewRepository(swappable, tallyType(), Options{})
	for range 3 {
		_, err := repo.Execute(ctx, "x", add(1, ""))
		require.NoError(t, err)
	}
	restored := eventstore.NewMemory(nil)
	_, err := restored.Append(ctx, "tally-x", 0, []eventstore.NewEvent{{Type: "Added", Data: json.RawMessage(`{"n":10}`)}})
	require.NoError(t, err)
	swappable.current.Store(restored)

	result, err := repo.Execute(ctx, "x", add(1, ""))
	require.NoError(t, err)
	require.Equal(t, int64(2), result.Version)
	loaded, err := repo.Load(ctx, "x")
	require.NoError(t, err)
	require.Equal(t, 11, loaded.State.total)
}

type swappableLog struct {
	current atomic.Pointer[eventstore.Memory]
}

func (l *swappableLog) ReadStream(ctx context.Context, streamID string, after int64) ([]eventstore.Event, error) {
	return l.current.Load().ReadStream(ctx, streamID, after)
}

func (l *swappableLog) Append(ctx context.Context, streamID string, expected int64, events []eventstore.NewEvent) ([]eventstore.Event, error) {
	return l.current.Load().Append(ctx, streamID, expected, events)
}

func (l *swappableLog) AppendAll(ctx context.Context, parts []eventstore.StreamAppend) ([][]eventstore.Event, error) {
	return l.current.Load().AppendAll(ctx, parts)
}

func (l *swappableLog) ReadVersions(ctx context.Context, streamID string, from, to int64) ([]eventstore.Event, error) {
	return l.current.Load().ReadVersions(ctx, streamID, from, to)
}

func (l *swappableLog) LoadStream(ctx context.Context, streamID string, schemaVersion int) (*eventstore.Snapshot, []eventstore.Event, error) {
	return l.current.Load().LoadStream(ctx, streamID, schemaVersion)
}

func (l *swappableLog) Erase(ctx context.Context, streamID string, expected int64, events []eventstore.NewEvent, owner string) ([]eventstore.Event, error) {
	return l.current.Load().Erase(ctx, streamID, expected, events, owner)
}

func (l *swappableLog) SaveSnapshot(ctx context.Context, s eventstore.Snapshot) error {
	return l.current.Load().SaveSnapshot(ctx, s)
}

func TestTheCacheKeepsToItsBound(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	repo := NewRepository(eventstore.NewMemory(nil), tallyType(), Options{CacheBytes: 1500})
	for i := range 20 {
		_, err := repo.Execute(ctx, fmt.Sprint(i%7), add(1, ""))
		require.NoError(t, err)
		require.LessOrEqual(t, repo.store.(*cache.Store[tally]).Bytes(), 1500)
	}
	for i := range 7 {
		loaded, err := repo.Load(ctx, fmt.Sprint(i))
		require.NoError(t, err)
		require.Equal(t, int(loaded.Version), loaded.State.total, "a dropped aggregate is read again")
	}
}

// Many goroutines on two replicas, with keys sent twice: every key is recorded once and the
// total is exact.
func TestConcurrentCommandsOnTwoReplicasRecordEveryKeyOnce(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b, store := twoReplicas(t)
	const keys = 100
	var wg sync.WaitGroup
	for i := range keys * 2 {
		repo := a
		if i%3 == 0 {
			repo = b
		}
		wg.Go(func() {
			_, err := repo.Execute(ctx, "x", add(1, fmt.Sprint("key-", i%keys)))
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	stored, err := store.ReadStream(ctx, "tally-x", 0)
	require.NoError(t, err)
	require.Len(t, stored, keys)
	for _, repo := range []*Repository[tally]{a, b} {
		loaded, err := repo.Load(ctx, "x")
		require.NoError(t, err)
		require.Equal(t, keys, loaded.State.total)
	}
}

func TestLoadAtLeastReadsOnlyWhenTheKeptAggregateIsOlder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, _ := aBehind(t, 2)

	kept, err := a.LoadAtLeast(ctx, "x", 1)
	require.NoError(t, err)
	require.Equal(t, int64(1), kept.Version, "recent enough: the kept one, without a read")
	read, err := a.LoadAtLeast(ctx, "x", 2)
	require.NoError(t, err)
	require.Equal(t, int64(2), read.Version)
	require.Equal(t, 3, read.State.total)
	unknown, err := a.LoadAtLeast(ctx, "y", 1)
	require.NoError(t, err)
	require.Equal(t, int64(0), unknown.Version)
}

// Commands on one stream in one process queue rather than race: none of them conflicts, and
// those that wait together are appended together.
func TestCommandsOnOneStreamInOneProcessTakeTurns(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := &countingLog{Memory: eventstore.NewMemory(nil)}
	repo := NewRepository(log, tallyType(), Options{MaxAttempts: 1})
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			if _, err := repo.Execute(ctx, "x", add(1, fmt.Sprint(i))); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	loaded, err := repo.Load(ctx, "x")
	require.NoError(t, err)
	require.Equal(t, 64, loaded.State.total)
	require.Equal(t, int64(64), loaded.Version)
	require.LessOrEqual(t, log.appends.Load(), int64(64), "no append failed (MaxAttempts is 1)")
	t.Logf("64 commands in %d appends", log.appends.Load())
	require.Eventually(t, repo.queues.Idle, 10*time.Second, time.Millisecond, "no queue is left behind: a leader answers before it lets go")
}

// A command that waits for its turn on a stream gives up when its context ends, as a problem
// the client may retry, and leaves nothing behind.
func TestAWaitForTheStreamEndsWithTheContext(t *testing.T) {
	t.Parallel()
	repo := NewRepository(eventstore.NewMemory(nil), tallyType(), Options{})
	release, started := make(chan struct{}), make(chan struct{})
	slow := add(1, "")
	slow.Decide = func(tally) ([]Event, error) {
		close(started)
		<-release
		return []Event{added{N: 1}}, nil
	}
	done := make(chan error, 1)
	go func() {
		_, err := repo.Execute(context.Background(), "x", slow)
		done <- err
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	_, err := repo.Execute(ctx, "x", add(1, ""))
	require.True(t, errs.Is(err, errs.Unavailable), "got %v", err)
	close(release)
	require.NoError(t, <-done)
	res, err := repo.Execute(context.Background(), "x", add(1, ""))
	require.NoError(t, err)
	require.Equal(t, int64(2), res.Version, "the command that gave up was not run")
}

type countingLog struct {
	*eventstore.Memory
	appends atomic.Int64
}

func (l *countingLog) Append(ctx context.Context, streamID string, expected int64, events []eventstore.NewEvent) ([]eventstore.Event, error) {
	l.appends.Add(1)
	return l.Memory.Append(ctx, streamID, expected, events)
}
