package core

import (
	"unique"

	"library/internal/aggregate"
	"library/internal/aggregate/window"
	"library/internal/eventstore"
)

// waiter is a command waiting for its turn on a stream.
type waiter[S any] struct {
	cmd aggregate.Command[S]
	fp  window.Fingerprint // the payload's
	// legacyFP is the payload's unkeyed fingerprint, as commands recorded before keyed ones
	// carry it: a retry across that change is still recognised.
	legacyFP window.Fingerprint
	meta     eventstore.Metadata // what its events carry
	done     chan outcome        // buffered: the leader never waits for the caller
}

// waiterIdentity is what decides whether a command is a repeat of a past one.
type waiterIdentity struct {
	name         string
	fp, legacyFP window.Fingerprint
	actor        unique.Handle[window.Person]
}

func (w *waiter[S]) identity() waiterIdentity {
	return waiterIdentity{name: w.cmd.Name, fp: w.fp, legacyFP: w.legacyFP, actor: window.PersonOf(w.meta.Actor)}
}

type outcome struct {
	result aggregate.Result
	err    error
}
