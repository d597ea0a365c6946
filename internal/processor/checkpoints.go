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

// checkForward refuses a move that is not forward. Checkpoints only move forward; a replay
// moves to a later generation.
func checkForward(name string, from, to Position) error {
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

// Checkpoints keeps the processors' positions and parked events where every replica sees them.
// Positions move only by compare-and-set (Save), so only the replica that read a position can
// move it, and only forward.
type Checkpoints interface {
	// Load returns a processor's position; the start of the log for one that never ran.
	Load(ctx context.Context, name string) (Position, error)
	// Save moves a processor's position from from to to, or returns ErrFenced when it is no
	// longer at from.
	Save(ctx context.Context, name string, from, to Position) error

	// Park records an event as parked, replacing an earlier parking of the same event.
	Park(ctx context.Context, name string, p Parked) error
	// CountParked counts a processor's parked events.
	CountParked(ctx context.Context, name string) (int, error)
	// Requeue marks all of a processor's parked events to be tried again and returns how many
	// are marked.
	Requeue(ctx context.Context, name string) (int, error)
	// Requeued returns up to limit events marked by Requeue (all of them for limit <= 0), in
	// log order.
	Requeued(ctx context.Context, name string, limit int) ([]Parked, error)
	// Unpark forgets a parked event once it has been handled.
	Unpark(ctx context.Context, name string, position int64) error
}

// maxReasonLength bounds what a parked event keeps of its error.
const maxReasonLength = 1000

func truncateReason(reason string) string {
	if len(reason) <= maxReasonLength {
		return reason
	}
	cut := maxReasonLength
	for cut > 0 && reason[cut]&0xC0 == 0x80 { // don't cut a UTF-8 sequence in half
		cut--
	}
	return reason[:cut] + "…"
}
