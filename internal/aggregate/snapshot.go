package aggregate

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
	"unique"

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

// windowEntry is a pastCommand as a snapshot keeps it.
type windowEntry struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Fingerprint string `json:"fp"`
	Subject     string `json:"sub,omitempty"`
	Issuer      string `json:"iss,omitempty"`
	First       int64  `json:"first"`
	Count       int64  `json:"count"`
}

func encodeWindow(rc recentCommands) ([]byte, error) {
	list := rc.all()
	entries := make([]windowEntry, len(list))
	for i, c := range list {
		who := c.actor.Value()
		entries[i] = windowEntry{ID: c.id, Name: c.name.Value(), Fingerprint: c.fingerprint.String(),
			Subject: who.subject, Issuer: who.issuer, First: c.first, Count: c.count}
	}
	return json.Marshal(entries)
}

func decodeWindow(b []byte, limit int) (recentCommands, error) {
	var entries []windowEntry
	if err := json.Unmarshal(b, &entries); err != nil {
		return recentCommands{}, err
	}
	rc := recentCommands{limit: limit, older: make([]*pastCommand, 0, len(entries))}
	for _, e := range entries {
		if e.ID == "" || e.First < 1 || e.Count < 1 {
			return recentCommands{}, fmt.Errorf("a window entry without an id or events")
		}
		rc.older = append(rc.older, &pastCommand{id: e.ID, name: unique.Make(e.Name), fingerprint: fingerprintOf(e.Fingerprint),
			actor: unique.Make(person{subject: e.Subject, issuer: e.Issuer}), first: e.First, count: e.Count})
	}
	rc.older = rc.all()
	return rc, nil
}

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
	window, err := decodeWindow(snap.Window, r.opts.CommandIDsPerStream)
	if err != nil {
		r.opts.Logger.Warn("snapshot ignored: its window can't be read", "aggregate", r.typ.Name, "version", snap.Version, "error", err)
		return Loaded[S]{}, false
	}
	return Loaded[S]{State: state, Version: snap.Version, Position: snap.Position, commands: window}, true
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
		// A state that holds personal values is sealed with its owner's key, and never written
		// without one: the owner may have been erased since this state was folded.
		var seal func(ad, plaintext string) (string, error)
		if seal, err = r.opts.Cipher.Sealer(ctx, r.owner(streamID), false); err == nil && seal == nil {
			return
		}
		if err == nil {
			var sealed string
			sealed, err = seal(snapshotAD(streamID, loaded.Version), string(state))
			state = []byte(sealed)
		}
	}
	if err == nil {
		var window []byte
		if window, err = encodeWindow(loaded.commands); err == nil {
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), snapshotTimeout)
			defer cancel()
			err = r.log.SaveSnapshot(ctx, eventstore.Snapshot{StreamID: streamID, Version: loaded.Version,
				Position: loaded.Position, SchemaVersion: r.typ.Snapshot.Version, State: state, Window: window})
		}
	}
	if err != nil {
		r.opts.Logger.Warn("snapshot not written", "aggregate", r.typ.Name, "version", loaded.Version, "error", err)
	}
}
