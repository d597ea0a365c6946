package reservations

import (
	"context"
	"encoding/json"

	"library/internal/aggregate"
	"library/internal/aggregate/core"
	"library/internal/aggregate/stack"
)

// Type is the Reservation aggregate type. Its name prefixes stream ids
// ("reservation-isbn:9780441013593"): never rename it. It has no Clone, so no reservation is
// kept in memory: every Move and Holder reads the value's stream, a few events, in one round
// trip, as a kept one would read what came after it; keeping them would only take memory.
func Type() aggregate.Type[Reservation] {
	return aggregate.Type[Reservation]{
		Name:     typeName,
		New:      func() Reservation { return Reservation{} },
		Apply:    Apply,
		Snapshot: &aggregate.SnapshotCodec[Reservation]{Version: 1, Encode: encodeSnapshot, Decode: decodeSnapshot},
		Events: []aggregate.Codec{
			aggregate.EventCodec[ValueReserved](),
			aggregate.EventCodec[ValueReleased](),
		},
	}
}

// id is the aggregate id of a value's reservation: its kind, a colon, the value.
func id(k Kind, value string) string { return string(k) + ":" + value }

// StreamID is the id of the stream that holds the reservation of a value of kind k.
func StreamID(k Kind, value string) string { return typeName + "-" + string(k) + ":" + value }

// typeName is the reservations' aggregate type's name, which their streams' ids begin with.
const typeName = "reservation"

// Service reads reservations and makes owners' parts of appends that take and give up values.
// It runs no command of its own: a reservation is only ever written in its owner's append.
type Service struct {
	repo *core.Repository[Reservation]
}

// NewService returns a Service on log.
func NewService(log aggregate.Log, opts aggregate.Options) *Service {
	return &Service{repo: core.New(stack.Store(log, Type(), opts), Type(), opts)}
}

// Move is owner's part, for its own append (aggregate.Command.Also), of going from holding the
// value from to holding the value to, both of kind k: from released, when owner holds it, and
// to reserved, each at the version of its stream as the log holds it now. Either may be "":
// nothing to give up, or nothing to take. A value taken by another owner refuses the move with
// the kind's code, and the same value both ways records nothing.
func (s *Service) Move(ctx context.Context, k Kind, owner, from, to string) (aggregate.Also, error) {
	if from == to {
		return aggregate.Also{}, nil
	}
	var parts []aggregate.Also
	if from != "" {
		part, err := s.decide(ctx, k, from, func(r Reservation) ([]Event, error) { return Release{Owner: owner}.Decide(r), nil })
		if err != nil {
			return aggregate.Also{}, err
		}
		parts = append(parts, part)
	}
	if to != "" {
		part, err := s.decide(ctx, k, to, Reserve{Kind: k, Value: to, Owner: owner}.Decide)
		if err != nil {
			return aggregate.Also{}, err
		}
		parts = append(parts, part)
	}
	if len(parts) == 0 {
		return aggregate.Also{}, nil
	}
	first := parts[0]
	first.More = parts[1:]
	return first, nil
}

// Holder returns the owner that holds a value of kind k now, "" for none.
func (s *Service) Holder(ctx context.Context, k Kind, value string) (string, error) {
	if err := checkValue(k, value); err != nil {
		return "", err
	}
	loaded, err := s.repo.Load(ctx, id(k, value))
	if err != nil {
		return "", err
	}
	return loaded.State.Owner, nil
}

// decide decides on a value's reservation as the log holds it now, and returns the part of an
// append that records the decision, at the version it was decided on.
func (s *Service) decide(ctx context.Context, k Kind, value string, decide func(Reservation) ([]Event, error)) (aggregate.Also, error) {
	if err := checkValue(k, value); err != nil {
		return aggregate.Also{}, err
	}
	loaded, err := s.repo.Load(ctx, id(k, value))
	if err != nil {
		return aggregate.Also{}, err
	}
	events, err := decide(loaded.State)
	if err != nil {
		return aggregate.Also{}, err
	}
	return aggregate.Also{StreamID: StreamID(k, value), ExpectedVersion: loaded.Version, Events: events, Codecs: Type().Events}, nil
}

// snapshotState is a Reservation as a snapshot keeps it.
type snapshotState struct {
	Owner string `json:"owner,omitempty"`
}

func encodeSnapshot(r Reservation) ([]byte, error) { return json.Marshal(snapshotState(r)) }

func decodeSnapshot(data []byte) (Reservation, error) {
	var s snapshotState
	err := json.Unmarshal(data, &s)
	return Reservation(s), err
}
