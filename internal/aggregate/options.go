package aggregate

import (
	"context"
	"log/slog"

	"go.opentelemetry.io/otel/trace"

	"library/internal/config"
	"library/internal/eventstore"
)

// Log is the part of the event store that commands need.
type Log interface {
	ReadStream(ctx context.Context, streamID string, afterVersion int64) ([]eventstore.Event, error)
	// ReadVersions returns the stream's events from version from to version to, both included.
	ReadVersions(ctx context.Context, streamID string, from, to int64) ([]eventstore.Event, error)
	Append(ctx context.Context, streamID string, expectedVersion int64, events []eventstore.NewEvent) ([]eventstore.Event, error)
	// AppendAll appends to several streams at once, all or nothing: for commands with Also.
	AppendAll(ctx context.Context, parts []eventstore.StreamAppend) ([][]eventstore.Event, error)
	// LoadStream returns the stream's snapshot of the given schema version, if it has one that
	// matches the log, and the events after it: in one round trip.
	LoadStream(ctx context.Context, streamID string, schemaVersion int) (*eventstore.Snapshot, []eventstore.Event, error)
	// SaveSnapshot keeps a snapshot of a stream, unless a newer one is kept.
	SaveSnapshot(ctx context.Context, s eventstore.Snapshot) error
	// Erase appends, and deletes owner's data key in the same transaction.
	Erase(ctx context.Context, streamID string, expectedVersion int64, events []eventstore.NewEvent, owner string) ([]eventstore.Event, error)
}

// Options tune a repository and the layers stacked on its log (package stack). The zero value
// gives the defaults.
type Options struct {
	// CommandIDsPerStream is how many of a stream's most recent keyed commands are recognised
	// by their key. Commands without a key take no place among them. Default 100.
	CommandIDsPerStream int
	// MaxAttempts is how many times a command is decided before a version conflict is given
	// up as errs.ConcurrencyConflict. Default 30.
	MaxAttempts int
	// Observer is told the outcome of every command, for metrics. Default: nobody.
	Observer Observer
	// Tracer makes a span of every command. Default: one that records nothing.
	Tracer trace.Tracer
	// CacheBytes bounds the aggregates kept in memory between commands, by an estimate of the
	// bytes each takes: its state (Type.Weigh) and its command window. Default
	// DefaultCacheBytes; negative keeps none. Only types with a Clone function are kept.
	CacheBytes int
	// SnapshotEvery is how many events of a stream come between two of its snapshots, for
	// types with a SnapshotCodec. Default DefaultSnapshotEvery; negative keeps none.
	SnapshotEvery int
	// Logger hears of snapshots that could not be written or read. Default: nowhere.
	Logger *slog.Logger
	// Cipher seals the personal values of events (PersonalEvent) with their owner's data key,
	// and the snapshots of types whose state holds them. Nil: stored as they are.
	Cipher Cipher
	// FingerprintKey, when set, gives the key that makes payload fingerprints keyed hashes
	// (HMAC-SHA-256), so that a guess at a payload can't be confirmed from the log alone. It
	// is asked for at the first command, and kept once it answered.
	FingerprintKey func(ctx context.Context) ([]byte, error)
}

const (
	defaultCommandIDsPerStream = 100
	defaultMaxAttempts         = 30
)

// DefaultCacheBytes is the default bound of the aggregates each repository keeps in memory.
const DefaultCacheBytes = config.DefaultAggregateCacheBytes

// DefaultSnapshotEvery is how many events of a stream come between two of its snapshots.
const DefaultSnapshotEvery = config.DefaultSnapshotEvery

// WithDefaults returns the options with every unset one at its default.
func (opts Options) WithDefaults() Options {
	if opts.CommandIDsPerStream <= 0 {
		opts.CommandIDsPerStream = defaultCommandIDsPerStream
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = defaultMaxAttempts
	}
	if opts.CacheBytes == 0 {
		opts.CacheBytes = DefaultCacheBytes
	}
	if opts.SnapshotEvery == 0 {
		opts.SnapshotEvery = DefaultSnapshotEvery
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	return opts
}
