package core

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/errs"
	"library/internal/eventstore"
)

const (
	waitFor = 10 * time.Second
	tick    = time.Millisecond
)

// gatedLog holds the next append once it is armed, until released, so that the commands that
// come meanwhile wait together and are run as one group; it can fail the append after that.
type gatedLog struct {
	*eventstore.Memory
	mu       sync.Mutex
	gate     chan struct{} // closed to let the held append go; nil: no gate
	entered  chan struct{} // closed when an append is held
	appends  [][]eventstore.NewEvent
	failNext error
}

func newGatedLog() *gatedLog { return &gatedLog{Memory: eventstore.NewMemory(nil)} }

// arm makes the next append wait for release; failing, when set, fails the append after it.
func (l *gatedLog) arm(failing error) (entered <-chan struct{}, release func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.gate, l.entered = make(chan struct{}), make(chan struct{})
	gate := l.gate
	l.failNext = failing
	return l.entered, func() { close(gate) }
}

func (l *gatedLog) Append(ctx context.Context, streamID string, expected int64, events []eventstore.NewEvent) ([]eventstore.Event, error) {
	l.mu.Lock()
	gate, entered := l.gate, l.entered
	l.gate = nil
	var fail error
	if gate == nil {
		fail, l.failNext = l.failNext, nil
	}
	l.appends = append(l.appends, events)
	l.mu.Unlock()
	if gate != nil {
		close(entered)
		<-gate
	}
	if fail != nil {
		return nil, fail
	}
	return l.Memory.Append(ctx, streamID, expected, events)
}

// grouped runs first and holds its append, runs the others at once (they queue behind it and
// form the next group, whose append fails with failing when that is set), lets the held append
// go, and returns every answer.
func grouped(t *testing.T, repo *Repository[tally], log *gatedLog, failing error, first Command[tally], others ...Command[tally]) (outcome, []outcome) {
	t.Helper()
	ctx := context.Background()
	entered, release := log.arm(failing)
	firstDone := make(chan outcome, 1)
	go func() {
		res, err := repo.Execute(ctx, "x", first)
		firstDone <- outcome{res, err}
	}()
	<-entered
	outs := make([]outcome, len(others))
	var wg sync.WaitGroup
	for i, cmd := range others { // one after another, so that they queue in this order
		wg.Go(func() {
			res, err := repo.Execute(ctx, "x", cmd)
			outs[i] = outcome{res, err}
		})
		require.Eventually(t, func() bool { return queued(repo, "tally-x") == i+1 }, waitFor, tick, "command %d queues", i)
	}
	release()
	wg.Wait()
	return <-firstDone, outs
}

func queued(repo *Repository[tally], streamID string) int {
	return repo.queues.Waiting(streamID)
}

// Commands that wait together are decided in turn, each on what the one before left, and
// appended together: one append, the events in order, each command its own answer.
func TestAGroupIsDecidedInTurnAndAppendedOnce(t *testing.T) {
	t.Parallel()
	log := newGatedLog()
	repo := NewRepository(log, tallyType(), Options{})
	upTo := func(limit int, key string) Command[tally] { // adds 1 while the total is under limit
		c := add(1, key)
		c.Payload = map[string]int{"limit": limit}
		c.Decide = func(s tally) ([]Event, error) {
			if s.total >= limit {
				return nil, errs.E(errs.InvalidRequest, "the total is %d already", s.total)
			}
			return []Event{added{N: 1}}, nil
		}
		return c
	}
	first, outs := grouped(t, repo, log, nil, add(1, "a"), upTo(2, "b"), upTo(3, "c"), upTo(3, "d"), add(0, "e"))
	require.NoError(t, first.err)
	require.Len(t, log.appends, 2, "the first command's append, then the group's")
	require.Len(t, log.appends[1], 3, "b's and c's events, and e's marker")
	byKey := map[string]outcome{"b": outs[0], "c": outs[1], "d": outs[2], "e": outs[3]}
	require.NoError(t, byKey["b"].err)
	require.Equal(t, int64(2), byKey["b"].result.Version)
	require.NoError(t, byKey["c"].err)
	require.Equal(t, int64(3), byKey["c"].result.Version)
	require.True(t, errs.Is(byKey["d"].err, errs.InvalidRequest), "d decided on the total c left: %v", byKey["d"].err)
	require.NoError(t, byKey["e"].err)
	require.Equal(t, int64(4), byKey["e"].result.Version, "a keyed command that changes nothing is recorded")
	require.Empty(t, byKey["e"].result.Events)
	loaded, err := repo.Load(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, 3, loaded.State.total)
	stored, err := log.ReadStream(context.Background(), "tally-x", 0)
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c", "e"}, commandIDs(stored), "each command's events carry its own key")
}

// One key twice in a group: written once, and both get the first answer, byte for byte; the
// same key with another payload is refused.
func TestAKeyTwiceInOneGroup(t *testing.T) {
	t.Parallel()
	log := newGatedLog()
	repo := NewRepository(log, tallyType(), Options{})
	_, outs := grouped(t, repo, log, nil, add(1, "first"), add(5, "pay"), add(5, "pay"), add(6, "pay"), add(5, "pay"))
	var answers [][]byte
	replays, refused := 0, 0
	for _, o := range outs {
		if errs.Is(o.err, errs.IdempotencyKeyReused) {
			refused++
			continue
		}
		require.NoError(t, o.err)
		if o.result.Replayed {
			replays++
		}
		b, err := json.Marshal(o.result)
		require.NoError(t, err)
		answers = append(answers, b)
	}
	require.Equal(t, 1, refused, "another payload under the key")
	require.Equal(t, 2, replays, "the repeats are replays")
	require.Len(t, answers, 3)
	for _, a := range answers[1:] {
		require.Equal(t, string(answers[0]), string(a), "byte for byte the first answer")
	}
	loaded, err := repo.Load(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, 6, loaded.State.total, "1 and 5, once")
}

// A group whose append fails: every command of it gets the failure, but for an answer from
// the stream's past, which stands; nothing is written, and the next group goes on.
func TestAGroupWhoseAppendFails(t *testing.T) {
	t.Parallel()
	log := newGatedLog()
	repo := NewRepository(log, tallyType(), Options{})
	past, err := repo.Execute(context.Background(), "x", add(2, "old"))
	require.NoError(t, err)
	unavailable := errs.E(errs.Unavailable, "the event store is unreachable")
	first, outs := grouped(t, repo, log, unavailable, add(1, "a"), add(1, "b"), add(2, "old"), add(-1, "c"))
	require.NoError(t, first.err)
	require.True(t, errs.Is(outs[0].err, errs.Unavailable))
	require.NoError(t, outs[1].err, "an answer from the past stands")
	require.True(t, outs[1].result.Replayed)
	require.Equal(t, past.Position, outs[1].result.Position)
	require.True(t, errs.Is(outs[2].err, errs.Unavailable), "decided among events that may not be in the log")
	loaded, err := repo.Load(context.Background(), "x")
	require.NoError(t, err)
	require.Equal(t, 3, loaded.State.total, "2, then the first command's 1")
	res, err := repo.Execute(context.Background(), "x", add(1, "b"))
	require.NoError(t, err)
	require.False(t, res.Replayed, "b was not written, so its retry runs")
}

func commandIDs(events []eventstore.Event) []string {
	var ids []string
	for _, e := range events {
		ids = append(ids, e.Metadata.CommandID)
	}
	return ids
}

// Random commands on one stream, many at once, from two repositories on one log as two
// replicas would be: whatever the grouping and the races, each key is written once, every
// answer under one key is the first, and the total is what the written commands added.
func TestGroupsProperty(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		log := eventstore.NewMemory(nil)
		repos := []*Repository[tally]{NewRepository(log, tallyType(), Options{}), NewRepository(log, tallyType(), Options{CacheBytes: -1})}
		n := rapid.IntRange(1, 40).Draw(t, "commands")
		keys := rapid.SampledFrom([]string{"", "k1", "k2", "k3"})
		amounts := rapid.SampledFrom([]int{-1, 0, 1, 2, 5})
		type call struct {
			key  string
			n    int
			repo int
		}
		calls := make([]call, n)
		for i := range calls {
			calls[i] = call{keys.Draw(t, "key"), amounts.Draw(t, "n"), rapid.IntRange(0, 1).Draw(t, "repo")}
		}
		outs := make([]outcome, n)
		var wg sync.WaitGroup
		for i, c := range calls {
			wg.Go(func() {
				res, err := repos[c.repo].Execute(context.Background(), "x", add(c.n, c.key))
				outs[i] = outcome{res, err}
			})
		}
		wg.Wait()

		stored, err := log.ReadStream(context.Background(), "tally-x", 0)
		require.NoError(t, err)
		total, seen := 0, map[string]bool{}
		for _, e := range stored {
			if id := e.Metadata.CommandID; id != "" {
				require.False(t, seen[id], "key %s written twice", id)
				seen[id] = true
			}
			if e.Type == "Added" {
				var a added
				require.NoError(t, json.Unmarshal(e.Data, &a))
				total += a.N
			}
		}
		first := map[string]string{} // key: payload and answer of its written command
		for i, c := range calls {
			o := outs[i]
			if c.key == "" || o.err != nil || o.result.Version == 0 {
				continue // nothing recorded (a keyed command with nothing to do on an empty stream leaves its key free)
			}
			b, err := json.Marshal(o.result)
			require.NoError(t, err)
			answer := fmt.Sprintf("%d %s", c.n, b)
			if prev, ok := first[c.key]; ok {
				require.Equal(t, prev, answer, "key %s answered two ways", c.key)
			}
			first[c.key] = answer
		}
		loaded, err := repos[1].Load(context.Background(), "x")
		require.NoError(t, err)
		require.Equal(t, total, loaded.State.total)
		for _, r := range repos { // a leader answers before it lets go of the stream
			deadline := time.Now().Add(waitFor)
			for !r.queues.Idle() && time.Now().Before(deadline) {
				time.Sleep(tick)
			}
			require.True(t, r.queues.Idle(), "no queue is left behind")
		}
	})
}
