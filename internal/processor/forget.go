package processor

import (
	"context"
	"encoding/json"

	"library/internal/eventstore"
)

// Forgetting a member rewrites the reasons of the events that wait in any processor (parked or
// deferred) and name them, by memberId or by being of their account's stream: a relay's reply
// may quote their address. The events themselves stay where they are. A deferred one is tried
// again and finds the member erased (the outbox then parks it, unsent); a parked one stays
// listed, so an operator still sees what was never done, and why.

// ErasedReason is the reason a waiting event of an erased member shows.
const ErasedReason = "erased: the member asked to be forgotten"

// ForgetMember rewrites the reasons of the parked and deferred events that name the member, or
// are of the stream streamID, to ErasedReason.
func (m *MemoryCheckpoints) ForgetMember(ctx context.Context, memberID, streamID string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, byPosition := range m.parked {
		for position, p := range byPosition {
			if names(p.Event, memberID, streamID) {
				p.Reason = ErasedReason
				byPosition[position] = p
				n++
			}
		}
	}
	for _, byPosition := range m.deferred {
		for position, d := range byPosition {
			if names(d.Event, memberID, streamID) {
				d.Reason = ErasedReason
				byPosition[position] = d
				n++
			}
		}
	}
	return n, nil
}

func names(e eventstore.Event, memberID, streamID string) bool {
	if e.StreamID == streamID {
		return true
	}
	var v struct {
		MemberID string `json:"memberId"`
	}
	return json.Unmarshal(e.Data, &v) == nil && v.MemberID == memberID
}
