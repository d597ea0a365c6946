package core

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/aggregate/window"
	"library/internal/eventstore"
)

// tallyCodec keeps a tally's total in snapshots.
func tallyCodec(version int) *SnapshotCodec[tally] {
	return &SnapshotCodec[tally]{
		Version: version,
		Encode:  func(s tally) ([]byte, error) { return json.Marshal(map[string]int{"total": s.total}) },
		Decode: func(b []byte) (tally, error) {
			var v map[string]int
			err := json.Unmarshal(b, &v)
			return tally{total: v["total"]}, err
		},
	}
}

func snapshottedTallies() Type[tally] {
	t := tallyType()
	t.Snapshot = tallyCodec(1)
	return t
}

// loadCounter is a log that counts what loads read: how many events each LoadStream returned.
type loadCounter struct {
	*eventstore.Memory
	mu        sync.Mutex
	tails     []int
	snapshots int
	failSave  error
}

func (l *loadCounter) LoadStream(ctx context.Context, streamID string, schemaVersion int) (*eventstore.Snapshot, []eventstore.Event, error) {
	snap, tail, err := l.Memory.LoadStream(ctx, streamID, schemaVersion)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tails = append(l.tails, len(tail))
	if snap != nil {
		l.snapshots++
	}
	return snap, tail, err
}

func (l *loadCounter) SaveSnapshot(ctx context.Context, s eventstore.Snapshot) error {
	if l.failSave != nil {
		return l.failSave
	}
	return l.Memory.SaveSnapshot(ctx, s)
}

// A stream gets a snapshot every SnapshotEvery events, after the command that crossed the mark
// is answered; a cold load then reads the snapshot and the events after it, not the stream.
func TestSnapshotsEveryNEvents(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := &loadCounter{Memory: eventstore.NewMemory(nil)}
	repo := NewRepository(log, snapshottedTallies(), Options{SnapshotEvery: 10})
	for i := range 25 {
		_, err := repo.Execute(ctx, "a", add(1, fmt.Sprintf("k-%d", i)))
		require.NoError(t, err)
	}
	snap, tail, err := log.Memory.LoadStream(ctx, "tally-a", 1)
	require.NoError(t, err)
	require.NotNil(t, snap)
	require.EqualValues(t, 20, snap.Version, "the last mark passed")
	require.Len(t, tail, 5)

	cold := NewRepository(log, snapshottedTallies(), Options{SnapshotEvery: 10}) // another replica, nothing kept
	loaded, err := cold.Load(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, 25, loaded.State.total)
	require.EqualValues(t, 25, loaded.Version)
	require.Equal(t, []int{5}, log.tails[len(log.tails)-1:], "only the events after the snapshot were read")

	// Its window came from the snapshot: a key from before the snapshot is still replayed.
	again, err := cold.Execute(ctx, "a", add(1, "k-3"))
	require.NoError(t, err)
	require.True(t, again.Replayed)
	require.EqualValues(t, 4, again.Version)
}

// A snapshot that can't be written is only logged: the command succeeded, and loads read the
// stream without one.
func TestAFailedSnapshotOnlyLogs(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	var logs bytes.Buffer
	log := &loadCounter{Memory: eventstore.NewMemory(nil), failSave: errors.New("disk full")}
	repo := NewRepository(log, snapshottedTallies(), Options{SnapshotEvery: 5, Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	for range 6 {
		_, err := repo.Execute(ctx, "a", add(1, ""))
		require.NoError(t, err)
	}
	require.Contains(t, logs.String(), "snapshot not written")
	require.Contains(t, logs.String(), "disk full")
	loaded, err := NewRepository(log, snapshottedTallies(), Options{SnapshotEvery: 5}).Load(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, 6, loaded.State.total)
}

// tallies2 is the tally with a changed state: it also counts its events. Its snapshots are of
// version 2, so the tally's version-1 snapshots are not read as its own.
type tally2 struct{ total, count int }

func tally2Type(version int) Type[tally2] {
	return Type[tally2]{
		Name: "tally", New: func() tally2 { return tally2{} },
		Apply:  func(s tally2, e Event) tally2 { s.total += e.(added).N; s.count++; return s },
		Events: []Codec{EventCodec[added]()},
		Clone:  func(s tally2) tally2 { return s },
		Snapshot: &SnapshotCodec[tally2]{Version: version,
			Encode: func(s tally2) ([]byte, error) {
				return json.Marshal(map[string]int{"total": s.total, "count": s.count})
			},
			Decode: func(b []byte) (tally2, error) {
				var v map[string]int
				err := json.Unmarshal(b, &v)
				return tally2{total: v["total"], count: v["count"]}, err
			},
		},
	}
}

// After the state changes shape, with its snapshot version bumped, the old snapshots are
// ignored and written again, never misread.
func TestAChangedStateIgnoresOldSnapshots(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	log := &loadCounter{Memory: eventstore.NewMemory(nil)}
	old := NewRepository(log, snapshottedTallies(), Options{SnapshotEvery: 4})
	for range 9 {
		_, err := old.Execute(ctx, "a", add(2, ""))
		require.NoError(t, err)
	}
	snap, _, err := log.Memory.LoadStream(ctx, "tally-a", 1)
	require.NoError(t, err)
	require.NotNil(t, snap, "the old state's snapshot")

	repo := NewRepository(log, tally2Type(2), Options{SnapshotEvery: 4})
	loaded, err := repo.Load(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, tally2{total: 18, count: 9}, loaded.State, "folded from the start, not from the old snapshot")
	rewritten, _, err := log.Memory.LoadStream(ctx, "tally-a", 2)
	require.NoError(t, err)
	require.NotNil(t, rewritten, "written again in the new shape after the long read")
	cold, err := NewRepository(log, tally2Type(2), Options{SnapshotEvery: 4}).Load(ctx, "a")
	require.NoError(t, err)
	require.Equal(t, tally2{total: 18, count: 9}, cold.State)
}

// Folding a snapshot and the events after it is folding the whole stream, for any history and
// any snapshot point: the state, the version, and the window of keys, so that a replay from a
// snapshot answers byte for byte as one from the whole stream.
func TestSnapshotPlusTailIsTheWholeStream(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		ctx := context.Background()
		every := rapid.IntRange(1, 12).Draw(t, "every")
		window := rapid.IntRange(1, 8).Draw(t, "window")
		log := eventstore.NewMemory(nil)
		writer := NewRepository(log, snapshottedTallies(), Options{SnapshotEvery: every, CommandIDsPerStream: window})
		keys := rapid.SampledFrom([]string{"", "k1", "k2", "k3", "k4", "k5", "k6"})
		var sent []Command[tally]
		for i := range rapid.IntRange(1, 40).Draw(t, "commands") {
			cmd := add(rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("n%d", i)), keys.Draw(t, fmt.Sprintf("key%d", i)))
			if _, err := writer.Execute(ctx, "a", cmd); err == nil {
				sent = append(sent, cmd)
			}
		}
		whole := NewRepository(log, tallyType(), Options{CommandIDsPerStream: window, CacheBytes: -1})
		fromSnapshot := NewRepository(log, snapshottedTallies(), Options{SnapshotEvery: every, CommandIDsPerStream: window, CacheBytes: -1})
		a, err := whole.Load(ctx, "a")
		require.NoError(t, err)
		b, err := fromSnapshot.Load(ctx, "a")
		require.NoError(t, err)
		require.Equal(t, a.State, b.State)
		require.Equal(t, a.Version, b.Version)
		require.Equal(t, a.Position, b.Position)
		require.Equal(t, a.Commands.All(), b.Commands.All(), "the window of keys")
		for _, cmd := range sent {
			ra, errA := whole.replayOf(ctx, "a", cmd)
			rb, errB := fromSnapshot.replayOf(ctx, "a", cmd)
			require.Equal(t, errA, errB)
			ja, err := json.Marshal(ra)
			require.NoError(t, err)
			jb, err := json.Marshal(rb)
			require.NoError(t, err)
			require.Equal(t, string(ja), string(jb), "a replay answers byte for byte")
		}
	})
}

// replayOf is what a retry of cmd on the stream would be answered from the log, without running
// it: the replay of its key, if the window remembers it.
func (r *Repository[S]) replayOf(ctx context.Context, id string, cmd Command[S]) (Result, error) {
	loaded, err := r.Load(ctx, id)
	if err != nil {
		return Result{}, err
	}
	past, ok := loaded.Commands.Find(cmd.Origin.CommandID)
	if !ok {
		return Result{}, nil
	}
	fingerprints, err := r.fp.Get(ctx)
	if err != nil {
		return Result{}, err
	}
	fp, legacy, err := fingerprints.Payload(cmd.Payload)
	if err != nil {
		return Result{}, err
	}
	return r.replay(ctx, r.typ.StreamID(id), waiterIdentity{name: cmd.Name, fp: fp, legacyFP: legacy, actor: window.PersonOf(cmd.Origin.Actor)}, past)
}
