package processor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"library/internal/eventstore"
)

// ErrFenced is returned when a processor tries to move a checkpoint that is no longer where it
// read it: another replica holds the lease now (or held it meanwhile). Nothing the caller tried
// to write was written; it must read the checkpoint again before it writes anything more.
var ErrFenced = errors.New("processor: the checkpoint was moved by another holder")

// Position is a processor's place in the log: the checkpoint of the last event it handled, in a
// generation. A replay starts generation+1 from the start of the log, so a position never
// moves back within a generation, and a stale holder that read an older generation is fenced.
type Position struct {
	Generation int64
	Checkpoint eventstore.Checkpoint
}

// Before reports whether p comes before other.
func (p Position) Before(other Position) bool {
	if p.Generation != other.Generation {
		return p.Generation < other.Generation
	}
	return p.Checkpoint.Before(other.Checkpoint)
}

// CheckForward refuses a move that is not forward. Checkpoints only move forward; a replay
// moves to a later generation. Every Checkpoints.Save checks it before it writes.
func CheckForward(name string, from, to Position) error {
	if !from.Before(to) {
		return fmt.Errorf("processor %s: checkpoint move from %+v to %+v is not forward", name, from, to)
	}
	return nil
}

// Parked is an event that a processor gave up on, with the reason.
type Parked struct {
	Event    eventstore.Event
	Reason   string
	Attempts int
	ParkedAt time.Time
}

// Deferred is an event that failed for now and waits for its next attempt.
type Deferred struct {
	Event eventstore.Event
	// Reason is the error of the last attempt.
	Reason string
	// Attempts is how many attempts have failed so far.
	Attempts    int
	NextAttempt time.Time
}

// Checkpoints keeps the processors' positions, deferred events, parked events and timers where
// every replica sees them. Positions move only by compare-and-set (Save), so only the replica
// that read a position can move it, and only forward; the timers a handler changed are written
// with the move that passes its event.
type Checkpoints interface {
	Timers

	// Load returns a processor's position; the start of the log for one that never ran.
	Load(ctx context.Context, name string) (Position, error)
	// Save moves a processor's position from from to to, and writes the timer changes made
	// while handling the events it passes, in order, in one transaction; or returns ErrFenced
	// when it is no longer at from, and writes nothing.
	Save(ctx context.Context, name string, from, to Position, changes ...TimerChange) error

	// Defer keeps an event to be tried again at d.NextAttempt. Deferring an event that is
	// deferred already replaces the deferral but keeps the larger count of attempts, so that a
	// holder that handles an event again after a takeover never gives it more attempts.
	Defer(ctx context.Context, name string, d Deferred) error
	// Due returns up to limit deferred events whose next attempt is at or before now, the
	// earliest first.
	Due(ctx context.Context, name string, now time.Time, limit int) ([]Deferred, error)
	// NextAttempt returns the earliest next attempt of a processor's deferred events; ok is
	// false when none is deferred.
	NextAttempt(ctx context.Context, name string) (next time.Time, ok bool, err error)
	// Done forgets a deferred event once it has been handled, and writes the timer changes
	// made while handling it, in order, in one transaction. Forgetting one that is not
	// deferred does nothing (but the changes are written).
	Done(ctx context.Context, name string, position int64, changes ...TimerChange) error
	// CountDeferred counts a processor's deferred events.
	CountDeferred(ctx context.Context, name string) (int, error)

	// Park records an event as parked, replacing an earlier parking of the same event, and
	// forgets its deferral, both at once.
	Park(ctx context.Context, name string, p Parked) error
	// CountParked counts a processor's parked events.
	CountParked(ctx context.Context, name string) (int, error)
	// ListParked returns up to limit of a processor's parked events (all for limit <= 0), in
	// log order.
	ListParked(ctx context.Context, name string, limit int) ([]Parked, error)
	// Requeue turns all of a processor's parked events into deferred ones, due at now with no
	// attempts used, and returns how many it turned.
	Requeue(ctx context.Context, name string, now time.Time) (int, error)
}

// MaxReasonLength bounds what a parked or deferred event keeps of its error.
const MaxReasonLength = 1000

// TruncateReason cuts reason to MaxReasonLength bytes, on a rune boundary, and marks the cut:
// every Checkpoints keeps a reason through it.
func TruncateReason(reason string) string {
	if len(reason) <= MaxReasonLength {
		return reason
	}
	cut := MaxReasonLength
	for cut > 0 && reason[cut]&0xC0 == 0x80 { // don't cut a UTF-8 sequence in half
		cut--
	}
	return reason[:cut] + "…"
}
