package processor

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"time"
	"unicode/utf8"

	"library/internal/errs"
)

// Timer is something a processor asked to happen at a time, once: "at At, for Key, do this".
// See "Timers" in the package comment.
type Timer struct {
	// Key names the timer within its processor: scheduling again under it replaces the timer.
	// It names things by id (reminder:book-dune:loan-1), never by personal data.
	Key string
	// At is when it is due, as it was scheduled. A retry keeps it, so that work derived from
	// the key and At is recognised when it is done again.
	At time.Time
	// Data is what the handler gave to Schedule, as JSON: ids, never personal data.
	Data json.RawMessage
	// Attempts is how many fires of this timer have failed so far.
	Attempts int
	// LastError is the error of the last failed fire.
	LastError string
}

// TimerHandler is implemented by the Handler of a processor that schedules timers. Fire is
// called, under the processor's lease, once the store's clock has reached t.At; it does its
// work through the paths a Handler uses (an append whose command id comes from t.Key and
// t.At, an email handed to an outbox), and may Schedule and Cancel through ctx, its own key
// included. What it returns is sorted like a Handler's: nil fired the timer, and it is
// forgotten unless it was scheduled again meanwhile; Pause or errs.Unavailable try it again
// with backoff, using up no attempt; Later leaves it due, using up no attempt, while the
// other timers fire, until its Ready channel is closed; any other error tries it again on the
// Options.Retry schedule, and, once its attempts have run out, every Options.Retry.Max, for
// as long as it fails. A timer is never parked or dropped.
type TimerHandler interface {
	Fire(ctx context.Context, t Timer) error
}

// TimerChange is one Schedule or Cancel, as a handler made it.
type TimerChange struct {
	Key    string
	Cancel bool
	// At and Data are those of a Schedule.
	At   time.Time
	Data json.RawMessage
}

// DueTimer is a timer whose time has come by the store's clock, as the store handed it out.
type DueTimer struct {
	Timer
	// Version changes, to a value never used before, whenever the timer is scheduled: a fire
	// is finished only if the timer was not scheduled again meanwhile.
	Version int64
	// Late is how long past At the store's clock was when it handed the timer out.
	Late time.Duration
}

// FiredTimer is a timer whose fire succeeded, with the changes the fire made.
type FiredTimer struct {
	DueTimer
	Changes []TimerChange
}

// TimerStats is what the store knows of a processor's timers, by its own clock.
type TimerStats struct {
	Waiting int
	// Failing counts the waiting timers whose last fire failed.
	Failing int
	// NextDue is when the next timer is to fire (its At, or the next attempt of one whose
	// fire failed), and UntilNext how long until then: 0 or less when one is due. Zero when
	// none waits.
	NextDue   time.Time
	UntilNext time.Duration
	// OldestOverdue is how long past its At the most overdue timer is; 0 when none is.
	OldestOverdue time.Duration
}

// Timers keeps processors' timers where every replica sees them. Every "now" it compares with
// is the store's own clock, so that replicas whose clocks disagree agree on what is due. A
// Checkpoints writes the changes handed to Save and Done; Timers hands the due timers out.
type Timers interface {
	// DueTimers returns up to limit of the timers of name that are due now, the earliest first.
	DueTimers(ctx context.Context, name string, limit int) ([]DueTimer, error)
	// UntilNextTimer is how long until the next timer of name is due (0 or less: one is
	// due); ok is false when none waits.
	UntilNextTimer(ctx context.Context, name string) (until time.Duration, ok bool, err error)
	// FinishTimers forgets timers that fired, each unless it was scheduled again or
	// cancelled since it was handed out (its version differs), each followed by its fire's
	// own changes, in order, all in one transaction. A driver may write it without waiting
	// for it to be durable: a forgetting lost in a crash of the store fires the timer again,
	// which its work's ids recognise, as a fire repeated after a takeover is.
	FinishTimers(ctx context.Context, name string, fired ...FiredTimer) error
	// RetryTimer records a failed fire, unless the timer was scheduled again or cancelled
	// since it was handed out: one more attempt, the reason (cut to MaxReasonLength), and the
	// next attempt after, by the store's clock. At stays.
	RetryTimer(ctx context.Context, name string, fired DueTimer, reason string, after time.Duration) error
	// TimerStats reports on the timers of name.
	TimerStats(ctx context.Context, name string) (TimerStats, error)
}

// The bounds of a timer: its key is an id, its data a few ids.
const (
	MaxTimerKeyLength = 200
	MaxTimerDataBytes = 4096
)

// TimerRecorder records the Schedule and Cancel calls made through a handler's context, to be
// written with the checkpoint move that passes the event (or with the fire that made them).
type TimerRecorder struct {
	mu      sync.Mutex
	changes []TimerChange
}

type timerKey struct{}

// RecordTimers returns ctx with a recorder for Schedule and Cancel: the runner calls a
// TimerHandler's Handle and Fire with it.
func RecordTimers(ctx context.Context) (context.Context, *TimerRecorder) {
	r := &TimerRecorder{}
	return context.WithValue(ctx, timerKey{}, r), r
}

// Changes are the changes recorded, in the order they were made; none for a nil recorder.
func (r *TimerRecorder) Changes() []TimerChange {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.changes)
}

// Schedule asks for a timer of the processor whose handler ctx was given to: at at, Fire is
// called with key and data (marshalled as JSON). A timer already under key is replaced. It is
// written with the handler's outcome, only if the handler returns nil.
func Schedule(ctx context.Context, key string, at time.Time, data any) error {
	if at.IsZero() {
		return errs.E(errs.Internal, "a timer needs a time")
	}
	raw, err := json.Marshal(data)
	if err != nil {
		return errs.Wrap(errs.Internal, err, "a timer's data must marshal as JSON")
	}
	if len(raw) > MaxTimerDataBytes {
		return errs.E(errs.Internal, "a timer's data is %d bytes, more than %d", len(raw), MaxTimerDataBytes)
	}
	// Microseconds, as PostgreSQL keeps them: At is the same whichever driver keeps the timer.
	return record(ctx, TimerChange{Key: key, At: at.UTC().Truncate(time.Microsecond), Data: raw})
}

// Cancel forgets the timer under key, if there is one, with the handler's outcome.
func Cancel(ctx context.Context, key string) error {
	return record(ctx, TimerChange{Key: key, Cancel: true})
}

func record(ctx context.Context, c TimerChange) error {
	r, ok := ctx.Value(timerKey{}).(*TimerRecorder)
	if !ok {
		return errs.E(errs.Internal, "timers are scheduled through the context of a TimerHandler's Handle or Fire")
	}
	if c.Key == "" || len(c.Key) > MaxTimerKeyLength || !utf8.ValidString(c.Key) {
		return errs.E(errs.Internal, "a timer key is 1 to %d bytes of UTF-8", MaxTimerKeyLength)
	}
	r.mu.Lock()
	r.changes = append(r.changes, c)
	r.mu.Unlock()
	return nil
}

// TimerStatus is what GET /status shows of a processor's timers (see Status.Timers): counts
// and times, never a key or data.
type TimerStatus struct {
	Waiting int `json:"waiting"`
	Failing int `json:"failing"`
	// NextDue is when the next timer is to fire, and NextDueSeconds how long until then by
	// the database's clock (0 when one is due); both absent when none waits.
	NextDue        *time.Time `json:"nextDue,omitempty"`
	NextDueSeconds *float64   `json:"nextDueSeconds,omitempty"`
	// OldestOverdueSeconds is how long past its time the most overdue timer is.
	OldestOverdueSeconds float64 `json:"oldestOverdueSeconds"`
}

// ReadTimerStatus reads what Status shows of the timers of name.
func ReadTimerStatus(ctx context.Context, timers Timers, name string) (*TimerStatus, error) {
	stats, err := timers.TimerStats(ctx, name)
	if err != nil {
		return nil, err
	}
	s := &TimerStatus{Waiting: stats.Waiting, Failing: stats.Failing, OldestOverdueSeconds: stats.OldestOverdue.Seconds()}
	if stats.Waiting > 0 {
		next, until := stats.NextDue.UTC(), max(stats.UntilNext, 0).Seconds()
		s.NextDue, s.NextDueSeconds = &next, &until
	}
	return s, nil
}
