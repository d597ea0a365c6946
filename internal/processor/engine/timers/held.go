package timers

import (
	"context"
	"reflect"
	"time"

	"library/internal/processor"
)

// laterRetry is how soon a timer handed back without a Ready channel is fired again, as an
// event is (see package engine).
const laterRetry = 100 * time.Millisecond

// held are the timers whose fire was handed back (Later: the handler can't take them now, for
// a limit of its own), by key. They stay due in the store, untouched, and the loop reads past
// them, firing the others, until they may go again: once their Ready channel is closed, or
// after laterRetry for none, and after PollInterval at most, since Ready is a hint.
type held map[string]heldTimer

type heldTimer struct {
	version int64
	ready   <-chan struct{}
	until   time.Time
}

// hold keeps t until ready is closed, or until most has passed.
func (h held) hold(t processor.DueTimer, ready <-chan struct{}, most time.Duration) {
	if ready == nil {
		most = min(most, laterRetry)
	}
	h[t.Key] = heldTimer{version: t.Version, ready: ready, until: time.Now().Add(most)}
}

// release lets go the timers that may go again: the next read hands them out, the earliest
// first, as it does any due timer.
func (h held) release() {
	now := time.Now()
	for key, t := range h {
		if !now.Before(t.until) || closed(t.ready) {
			delete(h, key)
		}
	}
}

// keeps reports whether t is held: a timer scheduled again since it was handed back is a new
// timer, and is not.
func (h held) keeps(t processor.DueTimer) bool {
	kept, ok := h[t.Key]
	return ok && kept.version == t.Version
}

// wait waits until one of the held timers may go again, wake is sent to, most has passed, or
// shutdown or leased ends.
func (h held) wait(shutdown, leased context.Context, wake <-chan struct{}, most time.Duration) {
	cases := []reflect.SelectCase{recv(shutdown.Done()), recv(leased.Done()), recv(wake)}
	seen := map[<-chan struct{}]bool{}
	for _, t := range h {
		most = min(most, time.Until(t.until))
		if t.ready != nil && !seen[t.ready] {
			seen[t.ready] = true
			cases = append(cases, recv(t.ready))
		}
	}
	timer := time.NewTimer(max(most, time.Millisecond))
	defer timer.Stop()
	reflect.Select(append(cases, recv(timer.C)))
}

func recv[T any](c <-chan T) reflect.SelectCase {
	return reflect.SelectCase{Dir: reflect.SelectRecv, Chan: reflect.ValueOf(c)}
}

// closed reports whether c is closed; a nil c never is.
func closed(c <-chan struct{}) bool {
	if c == nil {
		return false
	}
	select {
	case <-c:
		return true
	default:
		return false
	}
}
