package memdriver

import (
	"context"
	"encoding/json"

	"library/internal/eventstore"
	"library/internal/processor"
)

// ForgetMember rewrites the reasons of the parked and deferred events that name the member, or
// are of the stream streamID, to ErasedReason.
func (m *Checkpoints) ForgetMember(ctx context.Context, memberID, streamID string) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, byPosition := range m.parked {
		for position, p := range byPosition {
			if names(p.Event, memberID, streamID) {
				p.Reason = processor.ErasedReason
				byPosition[position] = p
				n++
			}
		}
	}
	for _, byPosition := range m.deferred {
		for position, d := range byPosition {
			if names(d.Event, memberID, streamID) {
				d.Reason = processor.ErasedReason
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
