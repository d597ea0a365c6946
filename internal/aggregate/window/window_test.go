package window

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"library/internal/eventstore"
)

// The window, however its batches come, holds what a plain list of every command would end
// with: the last limit keyed commands, each with the versions of all its events, and finds
// exactly those.
func TestWindowIsTheLastCommands(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		limit := rapid.IntRange(1, 40).Draw(t, "limit")
		rc := New(limit)
		type model struct {
			id           string
			first, count int64
		}
		var all []model
		version := int64(0)
		for b := range rapid.IntRange(1, 30).Draw(t, "batches") {
			var batch []eventstore.Event
			for c := range rapid.IntRange(1, 6).Draw(t, fmt.Sprint("commands", b)) {
				id := ""
				if rapid.Bool().Draw(t, fmt.Sprint("keyed", b, c)) {
					id = fmt.Sprintf("k%d-%d", b, c)
				}
				n := rapid.IntRange(1, 3).Draw(t, fmt.Sprint("events", b, c))
				if id != "" {
					all = append(all, model{id: id, first: version + 1, count: int64(n)})
				}
				for range n {
					version++
					batch = append(batch, eventstore.Event{Version: version, Metadata: eventstore.Metadata{CommandID: id, Command: "c"}})
				}
			}
			rc = rc.With(batch)
		}
		want := all[max(0, len(all)-limit):]
		got := rc.All()
		require.Len(t, got, len(want))
		for i, w := range want {
			require.Equal(t, w.id, got[i].ID)
			require.Equal(t, w.first, got[i].First)
			require.Equal(t, w.count, got[i].Count)
			found, ok := rc.Find(w.id)
			require.True(t, ok)
			require.Same(t, got[i], found)
		}
		for _, gone := range all[:len(all)-len(want)] {
			_, ok := rc.Find(gone.id)
			require.False(t, ok, "%s is out of the window", gone.id)
		}
	})
}

// A key answers the person who used it, and who a person is takes both their subject and the
// provider that vouches for it: one subject at two issuers is two people. The role they acted
// in does not matter.
func TestAPersonIsTheirSubjectAtTheirIssuer(t *testing.T) {
	alice := eventstore.Actor{Subject: "alice", Issuer: "https://a.example", Role: "member"}
	sameSubjectElsewhere := eventstore.Actor{Subject: "alice", Issuer: "https://b.example", Role: "member"}
	asStaff := eventstore.Actor{Subject: "alice", Issuer: "https://a.example", Role: "librarian"}
	require.NotEqual(t, PersonOf(alice), PersonOf(sameSubjectElsewhere), "another provider's alice")
	require.NotEqual(t, PersonOf(alice), PersonOf(eventstore.Actor{Subject: "bob", Issuer: "https://a.example"}))
	require.Equal(t, PersonOf(alice), PersonOf(asStaff), "alice in another role")

	events := []eventstore.Event{{Version: 1, Metadata: eventstore.Metadata{CommandID: "k", Command: "pay", Actor: alice}}}
	kept, err := Encode(New(10).With(events))
	require.NoError(t, err)
	decoded, err := Decode(kept, 10)
	require.NoError(t, err)
	found, ok := decoded.Find("k")
	require.True(t, ok)
	require.Equal(t, PersonOf(alice), found.Actor, "a snapshot's window keeps the issuer")
	require.NotEqual(t, PersonOf(sameSubjectElsewhere), found.Actor)
}
