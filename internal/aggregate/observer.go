package aggregate

import "library/internal/errs"

// Observer is told how each command ended. It is called on the request's goroutine, so it
// must be quick and safe for concurrent use.
type Observer interface {
	CommandDone(command string, outcome Outcome)
	// CacheLookup is told whether an aggregate was found among those kept in memory, and what
	// the kept ones take (an estimate, in bytes).
	CacheLookup(aggregateType string, hit bool, bytes int)
}

// Outcome is how a command ended, by what it did rather than by error code, so that a
// dashboard can tell a client's mistakes from the service's.
type Outcome string

// The outcomes of a command.
const (
	// OutcomeRecorded: the command recorded events (201).
	OutcomeRecorded Outcome = "recorded"
	// OutcomeUnchanged: the command was decided and changed nothing (200, no events).
	OutcomeUnchanged Outcome = "unchanged"
	// OutcomeReplayed: the command id was found in the stream and the first answer repeated.
	OutcomeReplayed Outcome = "replayed"
	// OutcomeRefused: the command was invalid or the domain refused it (a 4xx).
	OutcomeRefused Outcome = "refused"
	// OutcomeConflict: the stream kept changing until MaxAttempts ran out.
	OutcomeConflict Outcome = "conflict"
	// OutcomeFailed: the store was unavailable, or something went wrong inside.
	OutcomeFailed Outcome = "failed"
)

// OutcomeOf classifies what a command's run returned.
func OutcomeOf(result Result, err error) Outcome {
	switch code := errs.CodeOf(err); {
	case err == nil && result.Replayed:
		return OutcomeReplayed
	case err == nil && result.Recorded():
		return OutcomeRecorded
	case err == nil:
		return OutcomeUnchanged
	case code == errs.ConcurrencyConflict:
		return OutcomeConflict
	case code == errs.Unavailable || code == errs.Internal:
		return OutcomeFailed
	default:
		return OutcomeRefused
	}
}
