package aggregate

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/eventstore"
	"library/internal/pii"
)

// named gives a person a name: a personal value.
type named struct {
	Name string `json:"name"`
}

func (named) EventType() string { return "Named" }

func (e named) SealPersonal(seal func(string) (string, error)) (Event, error) {
	var err error
	e.Name, err = seal(e.Name)
	return e, err
}

func (e named) OpenPersonal(open func(string) (string, error)) (Event, error) {
	var err error
	e.Name, err = open(e.Name)
	return e, err
}

// forgotten records that the person was erased: their name is gone from the state.
type forgotten struct{}

func (forgotten) EventType() string { return "Forgotten" }

// person is a state that holds a personal value, and is kept in snapshots.
type person struct{ Name string }

func personType() Type[person] {
	return Type[person]{
		Name: "person",
		New:  func() person { return person{} },
		Apply: func(p person, e Event) person {
			switch e := e.(type) {
			case named:
				p.Name = e.Name
			case forgotten:
				p.Name = ""
			}
			return p
		},
		Events: []Codec{EventCodec[named](), EventCodec[forgotten]()},
		Clone:  func(p person) person { return p },
		Snapshot: &SnapshotCodec[person]{Version: 1,
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
func namedBeforeSealing(t *testing.T, log *eventstore.Memory, repo *Repository[person]) Loaded[person] {
	t.Helper()
	ctx := context.Background()
	before := NewRepository(log, personType(), Options{SnapshotEvery: -1})
	_, err := before.Execute(ctx, "p", Command[person]{Name: "name", Payload: named{Name: "Olga"},
		Decide: func(person) ([]Event, error) { return []Event{named{Name: "Olga"}}, nil }})
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
	newRepo := func(log *eventstore.Memory) *Repository[person] {
		ring := pii.NewKeyring(pii.KEKs{pii.NewKEK("1", [32]byte{1})}, log)
		return NewRepository(log, personType(), Options{Cipher: ring, SnapshotEvery: 1000})
	}

	t.Run("never erased", func(t *testing.T) {
		t.Parallel()
		log := eventstore.NewMemory(nil)
		repo := newRepo(log)
		repo.snapshot(ctx, "person-p", namedBeforeSealing(t, log, repo))
		snap, _, err := log.LoadStream(ctx, "person-p", 1)
		require.NoError(t, err)
		require.NotNil(t, snap, "the snapshot is written")
		require.True(t, pii.IsSealed(string(snap.State)), "sealed")
		_, err = log.DataKey(ctx, "p")
		require.NoError(t, err, "with a key made for it")
		cold, ok := newRepo(log).fromSnapshot(ctx, snap)
		require.True(t, ok)
		require.Equal(t, "Olga", cold.State.Name)
	})

	t.Run("erased since the state was folded", func(t *testing.T) {
		t.Parallel()
		log := eventstore.NewMemory(nil)
		repo := newRepo(log)
		stale := namedBeforeSealing(t, log, repo)
		_, err := log.Erase(ctx, "person-p", stale.Version, []eventstore.NewEvent{{Type: "Forgotten", Data: []byte(`{}`)}}, "p")
		require.NoError(t, err)
		repo.snapshot(ctx, "person-p", stale) // a late writer
		snap, _, err := log.LoadStream(ctx, "person-p", 1)
		require.NoError(t, err)
		require.Nil(t, snap, "no snapshot is written")
		_, err = log.DataKey(ctx, "p")
		require.ErrorIs(t, err, pii.ErrNoKey, "no key is made for an erased owner")
	})
}
