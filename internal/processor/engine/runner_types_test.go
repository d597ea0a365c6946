package engine

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/processor"
	"library/internal/processor/memdriver"
	"library/internal/testkit/drivertest"
)

// readCounter counts a processor's reads of the log, and records the types it subscribes to.
type readCounter struct {
	eventstore.Store
	reads      atomic.Int64
	mu         sync.Mutex
	subscribed [][]string
}

func (s *readCounter) Subscribe(ctx context.Context, types ...string) <-chan struct{} {
	s.mu.Lock()
	s.subscribed = append(s.subscribed, types)
	s.mu.Unlock()
	return s.Store.Subscribe(ctx, types...)
}

func (s *readCounter) ReadTypes(ctx context.Context, after eventstore.Checkpoint, limit int, types []string) (eventstore.Page, error) {
	s.reads.Add(1)
	return s.Store.ReadTypes(ctx, after, limit, types)
}

// saveCounter counts the moves of a handler processor's checkpoint.
type saveCounter struct {
	*memdriver.Checkpoints
	saves atomic.Int64
}

func (c *saveCounter) Save(ctx context.Context, name string, from, to processor.Position, timers ...processor.TimerChange) error {
	c.saves.Add(1)
	return c.Checkpoints.Save(ctx, name, from, to, timers...)
}

// appendOne appends one event of type typ to a stream of its own.
func appendOne(t *testing.T, store eventstore.Store, typ string, n int) eventstore.Event {
	t.Helper()
	got, err := store.Append(context.Background(), fmt.Sprintf("%s-%d", typ, n), 0,
		[]eventstore.NewEvent{{Type: typ, Data: []byte(`{}`)}})
	require.NoError(t, err)
	return got[0]
}

// A processor that reads some types handles those only; it is woken by appends of those types
// only, its checkpoint passes the others without a move for each read that passes them, and its
// lag counts none of them.
func TestAProcessorReadsOnlyItsTypes(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	store := &readCounter{Store: env.store}
	cps := &saveCounter{Checkpoints: env.cps}
	cfg := memoryConfig(store, cps, env.leases)
	cfg.Options.PollInterval = 5 * time.Millisecond // reads come by the poll: one after each payment
	h := drivertest.NewRecorder(nil)
	p := saga("fines", h)
	p.Types = []string{"BookReturned"}
	g := startGroup(t, cfg, p)

	first := appendOne(t, env.store, "BookReturned", 0)
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == 1 }, "the first return is handled")
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return drivertest.LoadPosition(t, env.cps, "fines").Checkpoint == first.Checkpoint()
	}, "and saved")
	saves := cps.saves.Load()
	for i := range 20 {
		appendOne(t, env.store, "PaymentReceived", i)
		reads := store.reads.Load()
		drivertest.Eventually(t, 5*time.Second, func() bool { return store.reads.Load() > reads+1 }, "a read after payment %d", i)
	}
	last := appendOne(t, env.store, "BookReturned", 1)
	drivertest.Eventually(t, 5*time.Second, func() bool { return h.Count() == 2 }, "the second return is handled")
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return drivertest.LoadPosition(t, env.cps, "fines").Checkpoint == last.Checkpoint()
	}, "and saved")

	require.Equal(t, []int64{first.Position, last.Position}, h.Positions(), "only its type")
	require.LessOrEqual(t, cps.saves.Load()-saves, int64(2), "its checkpoint moved for each read past payments")
	store.mu.Lock()
	require.Contains(t, store.subscribed, []string{"BookReturned"}, "woken by its type only")
	for _, types := range store.subscribed {
		require.True(t, len(types) == 0 || slices.Equal(types, []string{"BookReturned"}), "subscribed to %v", types)
	}
	store.mu.Unlock()

	for i := range 20 {
		appendOne(t, env.store, "PaymentReceived", 100+i)
	}
	status, err := g.Status(context.Background())
	require.NoError(t, err)
	require.Zero(t, status[0].Lag, "payments count in the lag of a processor that reads no payment")
}

// A view model that reads some types applies those only, and its checkpoint is moved past the
// others without a write for each.
func TestAViewModelReadsOnlyItsTypes(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	view := newMemoryView(env.cps)
	cfg := env.config()
	cfg.Options.PollInterval = time.Hour
	startGroup(t, cfg, processor.Processor{Name: "shelf", Kind: processor.KindViewModel, View: view, Types: []string{"BookAdded"}})

	var wanted []int64
	for i := range 30 {
		if i%10 == 0 {
			wanted = append(wanted, appendOne(t, env.store, "BookAdded", i).Position)
			continue
		}
		appendOne(t, env.store, "PaymentReceived", i)
	}
	drivertest.Eventually(t, 5*time.Second, func() bool { rows, _, _ := view.snapshot(); return len(rows) == len(wanted) }, "the books are applied")
	rows, _, _ := view.snapshot()
	require.Equal(t, wanted, rows)
}

// A view that reads data only (Processor.DataOnly) is given each event's schema version alone
// of its metadata; another view reads whole events.
func TestAViewThatReadsDataOnlyIsGivenTheSchemaAloneOfTheMetadata(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	lean, whole := newMemoryView(env.cps), newMemoryView(env.cps)
	startGroup(t, env.config(),
		processor.Processor{Name: "lean", Kind: processor.KindViewModel, View: lean, Types: []string{"BookAdded"}, DataOnly: true},
		processor.Processor{Name: "whole", Kind: processor.KindViewModel, View: whole, Types: []string{"BookAdded"}})
	meta := eventstore.Metadata{CommandID: "add-1", Command: "addBook", CorrelationID: "req-1",
		Actor: eventstore.Actor{Subject: "alice", Role: "staff"}, Schema: 2}
	got, err := env.store.Append(context.Background(), "book-1", 0, []eventstore.NewEvent{{Type: "BookAdded", Data: []byte(`{}`), Metadata: meta}})
	require.NoError(t, err)
	at := got[0].Position
	applied := func(v *memoryView) (eventstore.Metadata, bool) {
		v.mu.Lock()
		defer v.mu.Unlock()
		m, ok := v.meta[at]
		return m, ok
	}
	drivertest.Eventually(t, 5*time.Second, func() bool {
		_, a := applied(lean)
		_, b := applied(whole)
		return a && b
	}, "both views apply the event")
	m, _ := applied(lean)
	require.Equal(t, eventstore.Metadata{Schema: 2}, m)
	m, _ = applied(whole)
	require.Equal(t, meta, m)
}

// A saga that has something to do with older events alone (Processor.SchemaBelow) is given the
// events of its types written at a schema version below it, no newer one, and its checkpoint
// moves past the newer as past other types'.
func TestASagaOfOlderEventsIsGivenThoseAlone(t *testing.T) {
	t.Parallel()
	env := newMemoryEnv()
	h := drivertest.NewRecorder(nil)
	p := saga("adopt", h)
	p.Types, p.SchemaBelow = []string{"BookAdded"}, 2
	startGroup(t, env.config(), p)
	var older []int64
	var last eventstore.Event
	for i, schema := range []int{0, 2, 1, 3, 2, 0, 2} {
		got, err := env.store.Append(context.Background(), fmt.Sprint("book-", i), 0,
			[]eventstore.NewEvent{{Type: "BookAdded", Data: []byte(`{}`), Metadata: eventstore.Metadata{Schema: schema}}})
		require.NoError(t, err)
		if last = got[0]; schema < 2 {
			older = append(older, last.Position)
		}
	}
	drivertest.Eventually(t, 5*time.Second, func() bool {
		return drivertest.LoadPosition(t, env.cps, "adopt").Checkpoint == last.Checkpoint()
	}, "the saga reads to the last event, a newer one")
	require.Equal(t, older, h.Positions(), "the older events alone, in order")
}
