package pgstore

import (
	"context"

	"library/internal/eventstore"
)

// memberEventsSQL finds the events of other streams that name a member (a book's loans and
// returns): for a subject access export, rarely, so without an index of its own.
const memberEventsSQL = selectEvent + ` WHERE data->>'memberId' = $1 ORDER BY transaction_id, position`

// MemberEvents returns the events whose data names the member (memberId), in the log's order.
func (p *Postgres) MemberEvents(ctx context.Context, memberID string) ([]eventstore.Event, error) {
	rows, err := p.pool.Query(ctx, memberEventsSQL, memberID)
	if err != nil {
		return nil, translate(ctx, err)
	}
	return collectEvents(ctx, rows, 0)
}
