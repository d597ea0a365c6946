// Package pgerr turns PostgreSQL driver errors into the service's own error values at the edge
// of every package that talks to PostgreSQL, so that no pgx type travels further.
//
// The promise: a cancelled context gives the context's error; a server that cannot be reached,
// refuses or drops connections, is shutting down, is read-only or has no schema yet gives an
// *errs.Error with code errs.Unavailable (the client may retry); anything else is errs.Internal.
// The driver's text is kept only as a plain cause for the logs.
package pgerr

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"

	"library/internal/errs"
)

// UniqueViolation is the SQLSTATE of a unique index refusing a row.
const UniqueViolation = "23505"

// Translate turns err from the driver into a service error. what names the thing that failed
// for the client, such as "the event store".
func Translate(ctx context.Context, err error, what string) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if errors.Is(ctxErr, context.DeadlineExceeded) {
			return errs.Wrap(errs.Unavailable, errors.New(err.Error()), "%s did not answer in time", what)
		}
		return ctxErr
	}
	cause := errors.New(err.Error())
	if code := Code(err); code != "" {
		if serverUnavailable(code) {
			return errs.Wrap(errs.Unavailable, cause, "%s is unavailable", what)
		}
		return errs.Wrap(errs.Internal, cause, "%s failed", what)
	}
	// Anything that is not an answer from the server (refused or dropped connections, timeouts,
	// a closed pool) means the server could not be reached.
	return errs.Wrap(errs.Unavailable, cause, "%s is unreachable", what)
}

// Code returns the SQLSTATE of an error the server sent, or "" for any other error.
func Code(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
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
