package aggregate

import (
	"context"
	"time"

	"library/internal/aggregate/window"
	"library/internal/eventstore"
)

// SnapshotCodec lets a repository keep snapshots of its type's streams: the folded state and
// the window of recent command ids, every Options.SnapshotEvery events, so that a stream is
// loaded from its snapshot and the events after it instead of from its first event.
type SnapshotCodec[S any] struct {
	// Version names the encoding of the state. Bump it whenever the state changes shape:
	// snapshots of another version are then ignored, and written again, never misread.
	Version int
	Encode  func(S) ([]byte, error)
	Decode  func([]byte) (S, error)
}

// DefaultSnapshotEvery is how many events of a stream come between two of its snapshots.
const DefaultSnapshotEvery = 200

// snapshotTimeout bounds the writing of one snapshot.
const snapshotTimeout = 5 * time.Second

// fromSnapshot is the aggregate a snapshot holds; ok is false (and the snapshot is to be
// ignored) when it can't be read.
func (r *Repository[S]) fromSnapshot(ctx context.Context, snap *eventstore.Snapshot) (Loaded[S], bool) {
	encoded := snap.State
	if r.opts.Cipher != nil {
		open, err := r.opts.Cipher.Opener(ctx, r.owner(snap.StreamID))
		if err != nil {
			r.opts.Logger.Warn("snapshot ignored: its owner's key can't be read", "aggregate", r.typ.Name, "error", err)
			return Loaded[S]{}, false
		}
		plain, err := open(snapshotAD(snap.StreamID, snap.Version), string(encoded))
		if err != nil {
			r.opts.Logger.Warn("snapshot ignored: it does not open", "aggregate", r.typ.Name, "version", snap.Version, "error", err)
			return Loaded[S]{}, false
		}
		encoded = []byte(plain)
	}
	state, err := r.typ.Snapshot.Decode(encoded)
	if err != nil {
		r.opts.Logger.Warn("snapshot ignored: its state can't be read", "aggregate", r.typ.Name, "version", snap.Version, "error", err)
		return Loaded[S]{}, false
	}
	commands, err := window.Decode(snap.Window, r.opts.CommandIDsPerStream)
	if err != nil {
		r.opts.Logger.Warn("snapshot ignored: its window can't be read", "aggregate", r.typ.Name, "version", snap.Version, "error", err)
		return Loaded[S]{}, false
	}
	return Loaded[S]{State: state, Version: snap.Version, Position: snap.Position, commands: commands}, true
}

// snapshots reports whether this repository keeps snapshots.
func (r *Repository[S]) snapshots() bool {
	return r.typ.Snapshot != nil && r.opts.SnapshotEvery > 0
}

// due reports whether a snapshot is due for a stream that went from version before to after:
// when it passed a multiple of SnapshotEvery, or a load read a tail that long.
func (r *Repository[S]) due(before, after int64) bool {
	n := int64(r.opts.SnapshotEvery)
	return r.snapshots() && after > before && (after/n > before/n || after-before >= n)
}

// snapshot writes loaded as its stream's snapshot. It runs after the commit that brought the
// stream there, outside any command's transaction, and a failure only logs: a snapshot is a
// cache of the log, and the next one will do.
func (r *Repository[S]) snapshot(ctx context.Context, streamID string, loaded Loaded[S]) {
	state, err := r.typ.Snapshot.Encode(loaded.State)
	if err == nil && r.typ.Personal != nil && r.typ.Personal(loaded.State) && r.opts.Cipher != nil {
		// A state that holds personal values is sealed with its owner's key, made now when its
		// values were all written before sealing. It is never written without one: an owner
		// erased since this state was folded gets no key again, and no snapshot.
		var seal func(ad, plaintext string) (string, error)
		if seal, err = r.opts.Cipher.Sealer(ctx, r.owner(streamID), true); err == nil && seal == nil {
			return
		}
		if err == nil {
			var sealed string
			sealed, err = seal(snapshotAD(streamID, loaded.Version), string(state))
			state = []byte(sealed)
		}
	}
	if err == nil {
		var encoded []byte
		if encoded, err = window.Encode(loaded.commands); err == nil {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), snapshotTimeout)
			defer cancel()
			err = r.log.SaveSnapshot(ctx, eventstore.Snapshot{StreamID: streamID, Version: loaded.Version,
				Position: loaded.Position, SchemaVersion: r.typ.Snapshot.Version, State: state, Window: encoded})
		}
	}
	if err != nil {
		r.opts.Logger.Warn("snapshot not written", "aggregate", r.typ.Name, "version", loaded.Version, "error", err)
	}
}
