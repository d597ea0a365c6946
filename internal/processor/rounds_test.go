package processor_test

import (
	"slices"
	"testing"

	"pgregory.net/rapid"

	"library/internal/processor"
)

// change is one change of a test's batch: it appends its number to its key's list, or, without
// a key, to every list.
type change struct {
	key string // "": every key's
	n   int
}

func keyOf(c change) (string, bool) { return c.key, c.key != "" }

// apply applies changes to lists, one by one.
func apply(lists map[string][]int, changes []change) {
	for _, c := range changes {
		if c.key != "" {
			lists[c.key] = append(lists[c.key], c.n)
			continue
		}
		for k := range lists {
			lists[k] = append(lists[k], c.n)
		}
	}
}

// Applied round by round, each round's changes in any order, a batch ends as applied one by one.
func TestRoundsEndWhereOneByOneEnds(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		keys := []string{"a", "b", "c", "d", ""}
		n := rapid.IntRange(0, 40).Draw(t, "n")
		changes := make([]change, n)
		for i := range changes {
			changes[i] = change{key: rapid.SampledFrom(keys).Draw(t, "key"), n: i}
		}
		want, got := map[string][]int{"a": nil, "b": nil, "c": nil, "d": nil}, map[string][]int{"a": nil, "b": nil, "c": nil, "d": nil}
		apply(want, changes)

		rounds := processor.Rounds(changes, keyOf)
		var all int
		for i, round := range rounds {
			seen := map[string]bool{}
			for _, c := range round {
				if c.key == "" && len(round) > 1 {
					t.Fatalf("round %d: a change without a key shares it: %v", i, round)
				}
				if seen[c.key] {
					t.Fatalf("round %d: key %q twice: %v", i, c.key, round)
				}
				seen[c.key] = true
			}
			shuffled := slices.Clone(round)
			perm := rapid.Permutation(shuffled).Draw(t, "order")
			apply(got, perm)
			all += len(round)
		}
		if all != n {
			t.Fatalf("the rounds hold %d changes of %d", all, n)
		}
		for k := range want {
			if !slices.Equal(want[k], got[k]) {
				t.Fatalf("key %q: one by one %v, by rounds %v (rounds %v)", k, want[k], got[k], rounds)
			}
		}
	})
}

// A batch of changes to different keys, as an import's, is one round.
func TestRoundsOfDifferentKeysAreOne(t *testing.T) {
	changes := []change{{key: "a"}, {key: "b"}, {key: "c"}}
	if rounds := processor.Rounds(changes, keyOf); len(rounds) != 1 || len(rounds[0]) != 3 {
		t.Fatalf("rounds = %v, want the three changes in one", rounds)
	}
}
