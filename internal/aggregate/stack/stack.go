// Package stack builds the aggregate.Store that the options ask for: the plain log (package
// eventlog), its personal values sealed with Options.Cipher (package sealing), snapshots every
// Options.SnapshotEvery events for types with a SnapshotCodec (package snapshots), and recent
// aggregates kept in memory up to Options.CacheBytes for types with a Clone function (package
// cache), each wrapping the one before.
package stack

import (
	"library/internal/aggregate"
	"library/internal/aggregate/cache"
	"library/internal/aggregate/eventlog"
	"library/internal/aggregate/sealing"
	"library/internal/aggregate/snapshots"
)

// Store returns the store of t's aggregates in log, with what opts ask for stacked on it.
func Store[S any](log aggregate.Log, t aggregate.Type[S], opts aggregate.Options) aggregate.Store[S] {
	opts = opts.WithDefaults()
	var store aggregate.Store[S] = eventlog.New(log, t)
	if opts.Cipher != nil {
		store = sealing.Wrap(store, t, opts.Cipher)
	}
	if t.Snapshot != nil && opts.SnapshotEvery > 0 {
		snapOpts := snapshots.Options[S]{Every: opts.SnapshotEvery, CommandIDsPerStream: opts.CommandIDsPerStream, Logger: opts.Logger}
		if opts.Cipher != nil {
			snapOpts.Sealer = sealing.NewSnapshots(t, opts.Cipher, opts.Logger)
		}
		store = snapshots.Wrap(store, log, t, snapOpts)
	}
	if t.Clone != nil && opts.CacheBytes > 0 {
		store = cache.Wrap(store, t, opts.CacheBytes, opts.Observer)
	}
	return store
}
