package httpapi

import (
	"context"
	"net/http"

	"library/internal/aggregate"
	"library/internal/errs"
)

// KeyRule says whether a command endpoint requires an Idempotency-Key.
type KeyRule bool

// The two rules.
const (
	KeyOptional KeyRule = false
	KeyRequired KeyRule = true
)

// RunCommand runs the command of one request: id is the path parameter (empty when the route
// has none), body the decoded request body.
type RunCommand[T any] func(ctx context.Context, id string, body T, o aggregate.Origin) (aggregate.Result, error)

// Command is the handler of a command endpoint. It checks, in this order, the path parameter
// named param (if any), the Idempotency-Key, and the body; then runs the command and answers
// with its result.
func Command[T any](param string, keys KeyRule, run RunCommand[T]) http.HandlerFunc {
	return Handle(func(w http.ResponseWriter, r *http.Request) error {
		var id string
		if param != "" {
			var err error
			if id, err = PathID(r, param); err != nil {
				return err
			}
		}
		origin, err := CommandOrigin(r)
		if err != nil {
			return err
		}
		if keys == KeyRequired && origin.CommandID == "" {
			return errs.E(errs.IdempotencyKeyMissing,
				"send an Idempotency-Key header, made once per request and kept across its retries, so that a retry cannot run twice")
		}
		var body T
		if err := DecodeJSON(r, &body); err != nil {
			return err
		}
		result, err := run(r.Context(), id, body, origin)
		if err != nil {
			return err
		}
		WriteResult(w, r, result)
		return nil
	})
}
