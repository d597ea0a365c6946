package main

import "slices"

// mutation is one small, deliberate bug in the code that keeps a promise: the text to find
// (exactly once) in file, what to put instead, and the package whose tests must catch it.
type mutation struct {
	name    string // what the bug breaks, in words
	file    string
	find    string
	replace string
	pkg     string
}

// mutations are the bugs make mutate makes, one at a time, in the order they were written: the
// earlier half in mutations_core.go and mutations_core_rest.go, the later in
// mutations_features.go; those a review of the
// payment path found unguarded in mutations_payments.go (money) and mutations_circulation.go
// (holds, blocks, reminders, emails, sign-in); the rules of the imports in mutations_imports.go; titles,
// their copies and the holds on titles in mutations_titles.go; add new ones to the file of their
// subject.
func mutations() []mutation {
	return slices.Concat(coreMutations, coreMutationsRest, featureMutations, paymentMutations, circulationMutations, importMutations, titleMutations,
		dueDateMutations, lostMutations, catchUpMutations)
}
