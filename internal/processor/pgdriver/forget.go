package pgdriver

import (
	"context"

	"library/internal/processor"
)

// forgetSQL are the statements that rewrite a member's waiting events: by memberId, or by stream.
const (
	forgetParkedSQL   = `UPDATE processor_parked SET reason = $3 WHERE data->>'memberId' = $1 OR stream_id = $2`
	forgetDeferredSQL = `UPDATE processor_deferred SET reason = $3 WHERE data->>'memberId' = $1 OR stream_id = $2`
)

// ForgetMember rewrites the reasons of the parked and deferred events that name the member, or
// are of the stream streamID (their account's), to ErasedReason. It returns how many it
// rewrote.
func (c *Checkpoints) ForgetMember(ctx context.Context, memberID, streamID string) (int, error) {
	parked, err := c.pool.Exec(ctx, forgetParkedSQL, memberID, streamID, processor.ErasedReason)
	if err != nil {
		return 0, translate(ctx, err)
	}
	deferred, err := c.pool.Exec(ctx, forgetDeferredSQL, memberID, streamID, processor.ErasedReason)
	if err != nil {
		return 0, translate(ctx, err)
	}
	return int(parked.RowsAffected() + deferred.RowsAffected()), nil
}
