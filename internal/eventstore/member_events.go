package eventstore

import (
	"context"
	"encoding/json"
)

// memberEventsSQL finds the events of other streams that name a member (a book's loans and
// returns): for a subject access export, rarely, so without an index of its own.
const memberEventsSQL = selectEvent + ` WHERE data->>'memberId' = $1 ORDER BY transaction_id, position`

// MemberEvents returns the events whose data names the member (memberId), in the log's order.
func (p *Postgres) MemberEvents(ctx context.Context, memberID string) ([]Event, error) {
	rows, err := p.pool.Query(ctx, memberEventsSQL, memberID)
	if err != nil {
		return nil, translate(ctx, err)
	}
	return collectEvents(ctx, rows)
}

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
