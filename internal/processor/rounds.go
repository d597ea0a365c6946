package processor

// Rounds orders a batch's changes for a view model that writes them set by set: changes to
// different keys (a book, say) commute, and those to one key do not. Each round holds at most
// one change of each key, in the batch's order, and a key's changes fall in successive rounds
// in their order; so applying the rounds one after another, each round's changes in any order
// or all in one statement, ends where applying the changes one by one ends. A change without
// a key (one that touches many, such as a member's erasure) is a round on its own, after every
// change before it and before every change after it.
//
// A batch of a catalogue import (a BookAdded each for thousands of new books) is one round:
// one statement instead of thousands.
func Rounds[T any](changes []T, key func(T) (string, bool)) [][]T {
	var rounds [][]T
	start := 0               // the first round since the last change without a key
	seen := map[string]int{} // a key's changes so far since then
	for _, c := range changes {
		k, ok := key(c)
		if !ok {
			rounds = append(rounds, []T{c})
			start = len(rounds)
			clear(seen)
			continue
		}
		r := start + seen[k]
		seen[k]++
		if r == len(rounds) {
			rounds = append(rounds, nil)
		}
		rounds[r] = append(rounds[r], c)
	}
	return rounds
}
