// Package sealing is the aggregate.Store that keeps personal values sealed: it wraps another,
// and seals each PersonalEvent's personal values with the data key of the stream's owner
// (aggregate.Cipher) as it is encoded, and opens them as it is decoded, so that deleting the
// owner's key erases them wherever the event is copied. An append that forgets the owner
// deletes the key in its transaction, and then drops it from this process's memory too.
// Snapshots of states that hold personal values are sealed the same way (Snapshots).
package sealing

import (
	"context"
	"strconv"

	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
)

// Store wraps a store of aggregates of type S, sealing their personal values.
type Store[S any] struct {
	aggregate.Store[S]
	typ    aggregate.Type[S]
	cipher aggregate.Cipher
}

// Wrap returns inner with t's personal values sealed by cipher.
func Wrap[S any](inner aggregate.Store[S], t aggregate.Type[S], cipher aggregate.Cipher) *Store[S] {
	return &Store[S]{Store: inner, typ: t, cipher: cipher}
}

// eventAD is what a personal value of an event is bound to.
func eventAD(streamID string, version int64) string {
	return streamID + "/" + strconv.FormatInt(version, 10)
}

// Encode seals the personal values of decided (a copy: decided is the answer), then encodes
// them as the wrapped store does.
func (s *Store[S]) Encode(ctx context.Context, streamID string, decided []aggregate.Event, meta eventstore.Metadata, first int64) ([]eventstore.NewEvent, error) {
	stored, err := s.sealed(ctx, streamID, decided, first)
	if err != nil {
		return nil, err
	}
	return s.Store.Encode(ctx, streamID, stored, meta, first)
}

// sealed returns the events to store in place of decided, whose first will be at version first:
// personal values sealed, the others as they are.
func (s *Store[S]) sealed(ctx context.Context, streamID string, decided []aggregate.Event, first int64) ([]aggregate.Event, error) {
	var seal func(ad, plaintext string) (string, error)
	out := decided
	for i, e := range decided {
		p, ok := e.(aggregate.PersonalEvent)
		if !ok {
			continue
		}
		if seal == nil {
			var err error
			if seal, err = s.cipher.Sealer(ctx, s.typ.Owner(streamID), true); err != nil {
				return nil, err
			}
			if seal == nil {
				// The owner was erased since the state this was decided on: the log holds the
				// erasure, and nothing personal is recorded for them again.
				return nil, errs.E(errs.Gone, "the owner of %s was erased", streamID)
			}
			out = append([]aggregate.Event(nil), decided...)
		}
		ad, seal := eventAD(streamID, first+int64(i)), seal // copied: the closure holds no variable of the loop's
		sealedEvent, err := p.SealPersonal(func(v string) (string, error) { return seal(ad, v) })
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "personal values can't be sealed")
		}
		out[i] = sealedEvent
	}
	return out, nil
}

// Decode decodes stored events as the wrapped store does, then opens their personal values:
// the owner's key is read once, at the first personal event.
func (s *Store[S]) Decode(ctx context.Context, streamID string, stored []eventstore.Event) ([]aggregate.Event, error) {
	out, err := s.Store.Decode(ctx, streamID, stored)
	if err != nil {
		return nil, err
	}
	var open func(ad, value string) (string, error)
	for i, event := range out {
		p, ok := event.(aggregate.PersonalEvent)
		if !ok {
			continue
		}
		if open == nil {
			if open, err = s.cipher.Opener(ctx, s.typ.Owner(streamID)); err != nil {
				return nil, err
			}
		}
		ad, open := eventAD(streamID, stored[i].Version), open // copied: the closure holds no variable of the loop's
		if out[i], err = p.OpenPersonal(func(v string) (string, error) { return open(ad, v) }); err != nil {
			return nil, errs.Wrap(errs.Internal, err, "stream %s cannot be read", streamID)
		}
	}
	return out, nil
}

// Append appends as the wrapped store does; an append that forgot the owner deleted their
// key, which this process then forgets too.
func (s *Store[S]) Append(ctx context.Context, a aggregate.Append) ([]eventstore.Event, error) {
	appended, err := s.Store.Append(ctx, a)
	if a.Forget && len(a.Also) == 0 && err == nil {
		s.cipher.Forget(s.typ.Owner(a.StreamID))
	}
	return appended, err
}

// Snapshots seals and opens the snapshots of t's states that hold personal values (Type.Personal)
// with their owner's key: a snapshots.Sealer.
type Snapshots[S any] struct {
	typ    aggregate.Type[S]
	cipher aggregate.Cipher
	logger interface {
		Warn(msg string, args ...any)
	}
}

// NewSnapshots returns the sealer of t's snapshots; logger hears of those that can't be opened.
func NewSnapshots[S any](t aggregate.Type[S], cipher aggregate.Cipher, logger interface{ Warn(string, ...any) }) *Snapshots[S] {
	return &Snapshots[S]{typ: t, cipher: cipher, logger: logger}
}

// snapshotAD is what a sealed snapshot is bound to.
func snapshotAD(streamID string, version int64) string {
	return streamID + "/snapshot/" + strconv.FormatInt(version, 10)
}

// Seal returns what to store of a state's encoding: sealed with its owner's key, made now when
// its values were all written before sealing, when the state holds personal values. Such a
// state is never written without one (write is false): an owner erased since this state was
// folded gets no key again, and no snapshot.
func (s *Snapshots[S]) Seal(ctx context.Context, streamID string, version int64, state S, encoded []byte) (stored []byte, write bool, err error) {
	if s.typ.Personal == nil || !s.typ.Personal(state) {
		return encoded, true, nil
	}
	seal, err := s.cipher.Sealer(ctx, s.typ.Owner(streamID), true)
	if err != nil || seal == nil {
		return nil, false, err
	}
	sealed, err := seal(snapshotAD(streamID, version), string(encoded))
	return []byte(sealed), err == nil, err
}

// Open returns a stored snapshot's encoding; ok is false, and the snapshot is to be ignored,
// when it does not open.
func (s *Snapshots[S]) Open(ctx context.Context, snap *eventstore.Snapshot) (encoded []byte, ok bool) {
	open, err := s.cipher.Opener(ctx, s.typ.Owner(snap.StreamID))
	if err != nil {
		s.logger.Warn("snapshot ignored: its owner's key can't be read", "aggregate", s.typ.Name, "error", err)
		return nil, false
	}
	plain, err := open(snapshotAD(snap.StreamID, snap.Version), string(snap.State))
	if err != nil {
		s.logger.Warn("snapshot ignored: it does not open", "aggregate", s.typ.Name, "version", snap.Version, "error", err)
		return nil, false
	}
	return []byte(plain), true
}
