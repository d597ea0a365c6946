package eventstore

import (
	"context"
	"encoding/json"
)

// MemberEvents returns the events whose data names the member (memberId), in the log's order.
func (m *Memory) MemberEvents(ctx context.Context, memberID string) ([]Event, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := []Event{}
	for _, e := range m.all {
		if memberOf(e.Data) == memberID {
			out = append(out, clone(e))
		}
	}
	return out, nil
}

// memberOf is the memberId an event's data names, "" for none.
func memberOf(data []byte) string {
	var v struct {
		MemberID string `json:"memberId"`
	}
	if json.Unmarshal(data, &v) != nil {
		return ""
	}
	return v.MemberID
}
