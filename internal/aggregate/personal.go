package aggregate

import (
	"context"
	"strconv"
	"strings"

	"library/internal/errs"
	"library/internal/eventstore"
)

// PersonalEvent is an event with personal values (a member's name, their email): the log keeps
// them sealed with the data key of the aggregate's owner, so that deleting that key erases them
// wherever the event is copied. Each method returns a new event, the receiver unchanged.
type PersonalEvent interface {
	Event
	// SealPersonal returns the event with each personal value replaced by what seal makes of it.
	SealPersonal(seal func(string) (string, error)) (Event, error)
	// OpenPersonal returns the event with each personal value replaced by what open makes of it.
	OpenPersonal(open func(string) (string, error)) (Event, error)
}

// Cipher seals and opens the personal values of one owner (package pii's Keyring). ad binds a
// sealed value to where it is: its stream and its event's version.
type Cipher interface {
	// Sealer seals owner's values; with create, it makes owner's data key when there is none,
	// otherwise it returns nil then. It returns nil for an owner who was erased, who never gets
	// a key again, however late a writer asks.
	Sealer(ctx context.Context, owner string, create bool) (func(ad, plaintext string) (string, error), error)
	// Opener opens owner's values: without owner's key, each sealed value opens as erased.
	Opener(ctx context.Context, owner string) (func(ad, value string) (string, error), error)
}

// eventAD is what a personal value of an event is bound to.
func eventAD(streamID string, version int64) string {
	return streamID + "/" + strconv.FormatInt(version, 10)
}

// snapshotAD is what a sealed snapshot is bound to.
func snapshotAD(streamID string, version int64) string {
	return streamID + "/snapshot/" + strconv.FormatInt(version, 10)
}

// owner is the aggregate id of a stream: whose personal values its events hold.
func (r *Repository[S]) owner(streamID string) string {
	return strings.TrimPrefix(streamID, r.typ.Name+"-")
}

// sealed returns the events to store in place of decided, whose first will be at version first:
// personal values sealed, the others as they are. decided is not changed: it is the answer.
func (r *Repository[S]) sealed(ctx context.Context, streamID string, decided []Event, first int64) ([]Event, error) {
	if r.opts.Cipher == nil {
		return decided, nil
	}
	var seal func(ad, plaintext string) (string, error)
	out := decided
	for i, e := range decided {
		p, ok := e.(PersonalEvent)
		if !ok {
			continue
		}
		if seal == nil {
			var err error
			if seal, err = r.opts.Cipher.Sealer(ctx, r.owner(streamID), true); err != nil {
				return nil, err
			}
			if seal == nil {
				// The owner was erased since the state this was decided on: the log holds the
				// erasure, and nothing personal is recorded for them again.
				return nil, errs.E(errs.Gone, "the owner of %s was erased", streamID)
			}
			out = append([]Event(nil), decided...)
		}
		ad := eventAD(streamID, first+int64(i))
		sealedEvent, err := p.SealPersonal(func(v string) (string, error) { return seal(ad, v) })
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "personal values can't be sealed")
		}
		out[i] = sealedEvent
	}
	return out, nil
}

// decodeAll decodes stored events, personal values opened: nil for a NothingChanged marker.
// The owner's key is read once, at the first personal event.
func (r *Repository[S]) decodeAll(ctx context.Context, streamID string, stored []eventstore.Event) ([]Event, error) {
	out := make([]Event, len(stored))
	var open func(ad, value string) (string, error)
	for i, e := range stored {
		if e.Type == NothingChanged {
			continue
		}
		event, err := r.decoder.decode(e.Type, e.Data)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "stream %s cannot be read", streamID)
		}
		if p, ok := event.(PersonalEvent); ok && r.opts.Cipher != nil {
			if open == nil {
				if open, err = r.opts.Cipher.Opener(ctx, r.owner(streamID)); err != nil {
					return nil, err
				}
			}
			ad := eventAD(streamID, e.Version)
			if event, err = p.OpenPersonal(func(v string) (string, error) { return open(ad, v) }); err != nil {
				return nil, errs.Wrap(errs.Internal, err, "stream %s cannot be read", streamID)
			}
		}
		out[i] = event
	}
	return out, nil
}

// Present decodes a stream's stored events for showing (a history, an export): personal
// values opened, or erased when their owner's key is gone; nil for a NothingChanged marker.
func (r *Repository[S]) Present(ctx context.Context, id string, stored []eventstore.Event) ([]Event, error) {
	return r.decodeAll(ctx, r.typ.StreamID(id), stored)
}
