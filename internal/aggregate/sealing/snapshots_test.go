package sealing_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/eventlog"
	"library/internal/aggregate/sealing"
	"library/internal/aggregate/snapshots"
	"library/internal/aggregate/stack"
	"library/internal/eventstore"
	"library/internal/pii"
)

// named gives a person a name: a personal value.
type named struct {
	Name string `json:"name"`
}

func (named) EventType() string { return "Named" }

func (e named) SealPersonal(seal func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Name, err = seal(e.Name)
	return e, err
}

func (e named) OpenPersonal(open func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Name, err = open(e.Name)
	return e, err
}

// forgotten records that the person was erased: their name is gone from the state.
type forgotten struct{}

func (forgotten) EventType() string { return "Forgotten" }

// person is a state that holds a personal value, and is kept in snapshots.
type person struct{ Name string }

func personType() aggregate.Type[person] {
	return aggregate.Type[person]{
		Name: "person",
		New:  func() person { return person{} },
		Apply: func(p person, e aggregate.Event) person {
			switch e := e.(type) {
			case named:
				p.Name = e.Name
			case forgotten:
				p.Name = ""
			}
			return p
		},
		Events: []aggregate.Codec{aggregate.EventCodec[named](), aggregate.EventCodec[forgotten]()},
		Clone:  func(p person) person { return p },
		Snapshot: &aggregate.SnapshotCodec[person]{Version: 1,
			Encode: func(p person) ([]byte, error) { return json.Marshal(p) },
			Decode: func(b []byte) (person, error) {
				var p person
				err := json.Unmarshal(b, &p)
				return p, err
			},
		},
		Personal: func(p person) bool { return p.Name != "" },
	}
}

// namedBeforeSealing writes person-p's name in clear, as the service did before it sealed
// personal values, and returns the state a sealing repository then folds: it holds the name,
// and its owner has no key.
func namedBeforeSealing(t *testing.T, log *eventstore.Memory, repo *core.Repository[person]) aggregate.Loaded[person] {
	t.Helper()
	ctx := context.Background()
	opts := aggregate.Options{SnapshotEvery: -1}
	before := core.New(stack.Store(log, personType(), opts), personType(), opts)
	_, err := before.Execute(ctx, "p", aggregate.Command[person]{Name: "name", Payload: named{Name: "Olga"},
		Decide: func(person) ([]aggregate.Event, error) { return []aggregate.Event{named{Name: "Olga"}}, nil }})
	require.NoError(t, err)
	loaded, err := repo.Load(ctx, "p")
	require.NoError(t, err)
	require.Equal(t, "Olga", loaded.State.Name)
	_, err = log.DataKey(ctx, "p")
	require.ErrorIs(t, err, pii.ErrNoKey)
	return loaded
}

// A snapshot of a state whose personal values were written before sealing makes its owner a
// key, and is sealed with it. But a snapshot written late, of a state folded before its owner
// was erased, makes no key: the owner is refused one for good, and no snapshot is written.
func TestASnapshotMakesAKeyUnlessItsOwnerWasErased(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	newRepo := func(log *eventstore.Memory) *core.Repository[person] {
		ring := pii.NewKeyring(pii.KEKs{pii.NewKEK("1", [32]byte{1})}, log)
		opts := aggregate.Options{Cipher: ring, SnapshotEvery: 1000}
		return core.New(stack.Store(log, personType(), opts), personType(), opts)
	}
	// newSnapshots is the store of snapshots of such a repository: one due at every event.
	newSnapshots := func(log *eventstore.Memory) *snapshots.Store[person] {
		ring := pii.NewKeyring(pii.KEKs{pii.NewKEK("1", [32]byte{1})}, log)
		logger := slog.New(slog.DiscardHandler)
		return snapshots.Wrap(sealing.Wrap(eventlog.New(log, personType()), personType(), ring), log, personType(),
			snapshots.Options[person]{Every: 1, CommandIDsPerStream: 100, Sealer: sealing.NewSnapshots(personType(), ring, logger), Logger: logger})
	}
	// write writes loaded as its stream's snapshot, as a repository does after the append that
	// brought it there.
	write := func(log *eventstore.Memory, loaded aggregate.Loaded[person]) {
		newSnapshots(log).Keep(ctx, "person-p", loaded.Version-1, loaded)(ctx)
	}

	t.Run("never erased", func(t *testing.T) {
		t.Parallel()
		log := eventstore.NewMemory(nil)
		repo := newRepo(log)
		write(log, namedBeforeSealing(t, log, repo))
		snap, _, err := log.LoadStream(ctx, "person-p", 1)
		require.NoError(t, err)
		require.NotNil(t, snap, "the snapshot is written")
		require.True(t, pii.IsSealed(string(snap.State)), "sealed")
		_, err = log.DataKey(ctx, "p")
		require.NoError(t, err, "with a key made for it")
		cold, err := newSnapshots(log).Load(ctx, "person-p")
		require.NoError(t, err)
		require.NotNil(t, cold.From, "read from the snapshot")
		require.Equal(t, "Olga", cold.From.State.Name)
	})

	t.Run("erased since the state was folded", func(t *testing.T) {
		t.Parallel()
		log := eventstore.NewMemory(nil)
		repo := newRepo(log)
		stale := namedBeforeSealing(t, log, repo)
		_, err := log.Erase(ctx, "person-p", stale.Version, []eventstore.NewEvent{{Type: "Forgotten", Data: []byte(`{}`)}}, "p")
		require.NoError(t, err)
		write(log, stale) // a late writer
		snap, _, err := log.LoadStream(ctx, "person-p", 1)
		require.NoError(t, err)
		require.Nil(t, snap, "no snapshot is written")
		_, err = log.DataKey(ctx, "p")
		require.ErrorIs(t, err, pii.ErrNoKey, "no key is made for an erased owner")
	})
}
