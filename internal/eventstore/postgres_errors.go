package eventstore

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"library/internal/errs"
)

const uniqueViolation = "23505"

// translate turns a driver error into the package's own: the context's error when the caller
// gave up, errs.Unavailable when PostgreSQL cannot be reached or is shutting down, and
// errs.Internal for anything else. The driver's text is kept as a plain cause for the logs; no
// pgx type is reachable through the returned error.
func translate(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return errs.Wrap(errs.Unavailable, errors.New(err.Error()), "the event store did not answer in time")
		}
		return ctxErr
	}
	cause := errors.New(err.Error())
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if serverUnavailable(pgErr.Code) {
			return errs.Wrap(errs.Unavailable, cause, "the event store is unavailable")
		}
		return errs.Wrap(errs.Internal, cause, "the event store failed")
	}
	// Anything that is not an answer from the server (refused or dropped connections, timeouts,
	// a closed pool) means the server could not be reached.
	return errs.Wrap(errs.Unavailable, cause, "the event store is unreachable")
}

// serverUnavailable reports whether a SQLSTATE means "this database can't serve you now"
// rather than "your statement is wrong": connection exceptions (class 08), shutdowns and
// restarts (57P01..57P03), running out of connections or resources (class 53), a read-only
// server such as a standby after a failover (25006), and a schema that has not been migrated
// yet (42P01, undefined table).
func serverUnavailable(code string) bool {
	switch {
	case strings.HasPrefix(code, "08"), strings.HasPrefix(code, "53"):
		return true
	case code == "57P01", code == "57P02", code == "57P03", code == "25006", code == "42P01":
		return true
	}
	return false
}
