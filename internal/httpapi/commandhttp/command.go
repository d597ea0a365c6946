// Package commandhttp answers the service's commands over HTTP: the handler of a command
// endpoint (Command) checks the path, the Idempotency-Key and the body, runs the command as
// package aggregate does, and answers with its result; a replayed result is the first answer
// again, byte for byte, marked Idempotent-Replayed. It is where the HTTP toolkit (package
// httpapi, which knows nothing of the domain) meets the aggregates: who sent a request
// (auth.Actor) becomes who ran the command (eventstore.Actor) here.
package commandhttp

import (
	"context"
	"net/http"

	"library/internal/aggregate"
	"library/internal/auth"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/httpapi"
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
	decoder := httpapi.NewDecoder[T]() // learns T once, not on every request
	return httpapi.Handle(func(w http.ResponseWriter, r *http.Request) error {
		var id string
		if param != "" {
			var err error
			if id, err = httpapi.PathID(r, param); err != nil {
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
		if err := decoder.Decode(r, &body); err != nil {
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

// CommandOrigin returns where the command in a request comes from: its Idempotency-Key, if it
// has one, and its request id.
func CommandOrigin(r *http.Request) (aggregate.Origin, error) {
	key, err := httpapi.IdempotencyKey(r)
	if err != nil {
		return aggregate.Origin{}, err
	}
	actor := auth.AccessFrom(r.Context()).Actor()
	return aggregate.Origin{CommandID: key, CorrelationID: httpapi.RequestID(r.Context()),
		Actor: eventstore.Actor{Subject: actor.Subject, Role: string(actor.Role), Issuer: actor.Issuer}}, nil
}

// WriteResult answers with a command's result: 201 when it recorded events, 200 when it
// recorded none. A replayed result is the first answer again, with Idempotent-Replayed: true.
func WriteResult(w http.ResponseWriter, r *http.Request, result aggregate.Result) {
	status := http.StatusOK
	if result.Recorded() {
		status = http.StatusCreated
	}
	if result.Replayed {
		w.Header().Set(httpapi.ReplayedHeader, "true")
	}
	httpapi.WriteJSON(w, r, status, result)
}
