package pgstore

import (
	"context"

	"library/internal/pgerr"
)

// translate turns a driver error into the package's own (see package pgerr): no pgx type is
// reachable through the returned error.
func translate(ctx context.Context, err error) error {
	return pgerr.Translate(ctx, err, "the event store")
}
