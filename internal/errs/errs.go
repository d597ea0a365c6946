// Package errs defines the service's error values: an error carries a stable Code that callers
// branch on and a Detail that is safe to show to a client.
//
// Every failure a client can see is an *Error with one of the codes below. The HTTP layer maps
// codes to statuses in one table; anything that is not an *Error is an internal failure whose
// text the client never sees. Causes (a driver message, a wrapped error) are kept for the logs
// only and are not part of Detail.
package errs

import (
	"errors"
	"fmt"
)

// Code is a stable, machine-readable name for a kind of failure. Codes are part of the HTTP
// contract: clients match on them, so they are never renamed.
type Code string

// The codes of the HTTP contract.
const (
	InvalidRequest        Code = "InvalidRequest"
	IdempotencyKeyMissing Code = "IdempotencyKeyMissing"
	Unauthorized          Code = "Unauthorized"
	NotFound              Code = "NotFound"
	MethodNotAllowed      Code = "MethodNotAllowed"
	BookAlreadyExists     Code = "BookAlreadyExists"
	BookAlreadyLent       Code = "BookAlreadyLent"
	LoanMismatch          Code = "LoanMismatch"
	NothingToPay          Code = "NothingToPay"
	NotLeaseHolder        Code = "NotLeaseHolder"
	ConcurrencyConflict   Code = "ConcurrencyConflict"
	PayloadTooLarge       Code = "PayloadTooLarge"
	UnsupportedMediaType  Code = "UnsupportedMediaType"
	IdempotencyKeyReused  Code = "IdempotencyKeyReused"
	NotReplayable         Code = "NotReplayable"
	NotCaughtUp           Code = "NotCaughtUp"
	Unavailable           Code = "Unavailable"
	Internal              Code = "Internal"
	// Forbidden: the caller signed in, but none of their roles may do this.
	Forbidden Code = "Forbidden"
	// AccountNotSettled: an account can't be erased while something is owed or on loan.
	AccountNotSettled Code = "AccountNotSettled"
	// Gone: the member's account was erased.
	Gone Code = "Gone"
	// TooManyRequests: the caller went over one of the limits at the edge (per client, failed
	// sign-ins, account data); Retry-After says when to try again.
	TooManyRequests Code = "TooManyRequests"

	// Circulation's refusals, each a conflict with the book's or the member's state: a loan
	// that is not current, or renewed as often as it may be; a book held for someone else,
	// available (lend it instead of holding it), or with members waiting for it; a member who
	// holds it already, whose queue is full, who has as many books as they may, or who owes too
	// much to borrow.
	LoanNotCurrent      Code = "LoanNotCurrent"
	RenewalLimitReached Code = "RenewalLimitReached"
	BookOnHold          Code = "BookOnHold"
	BookAvailable       Code = "BookAvailable"
	// TitleAvailable: a copy of the title is on the shelf for anyone: lend it instead.
	TitleAvailable   Code = "TitleAvailable"
	HoldsWaiting     Code = "HoldsWaiting"
	AlreadyHeld      Code = "AlreadyHeld"
	HoldQueueFull    Code = "HoldQueueFull"
	LoanLimitReached Code = "LoanLimitReached"
	MemberBlocked    Code = "MemberBlocked"
	// NotLendable: the circulation rules lend nothing of the copy's material type to the
	// member's group (reference books); HoldsNotAllowed: they allow no hold on it.
	NotLendable     Code = "NotLendable"
	HoldsNotAllowed Code = "HoldsNotAllowed"
	// BookMissing: the copy is recorded lost, or claimed returned, and is on no shelf: it is
	// neither lent nor held until it is returned (POST /books/{bookId}/returns with its last
	// loan), which puts it back on the shelf.
	BookMissing Code = "BookMissing"

	// TooManyCheckouts: the member has as many online payments started and not finished as
	// they may (CHECKOUTS_OPEN_MAX); the problem names them (openCheckouts).
	TooManyCheckouts Code = "TooManyCheckouts"

	// TitleAlreadyExists: a title with this id was added before, or another title has this
	// ISBN (each ISBN belongs to one title: package reservations).
	TitleAlreadyExists Code = "TitleAlreadyExists"

	// BarcodeTaken: another copy has this barcode (each barcode belongs to one copy: package
	// reservations).
	BarcodeTaken Code = "BarcodeTaken"

	// TerminalExists: a kiosk terminal with this name was added before and not removed (package
	// terminals). No HTTP route adds terminals; the command line and the SIP2 listener say it,
	// and the table of statuses has it so that no code of the service is without one.
	TerminalExists Code = "TerminalExists"

	// CardTaken: another member has this library card number (each card belongs to one
	// member: package reservations).
	CardTaken Code = "CardTaken"

	// PINInvalid: the PIN given for a library card is not the member's, or the member has
	// none. Its detail is always "invalid", so that it tells a guesser nothing more.
	PINInvalid Code = "PINInvalid"
	// PINLocked: too many wrong PINs were given for the card in a row, and its PIN is not
	// checked until the lockout ends; the detail says when.
	PINLocked Code = "PINLocked"

	// PreconditionRequired: the route changes what a client read first, and takes the version
	// it read in If-Match (PUT /circulation-rules); the request had none.
	PreconditionRequired Code = "PreconditionRequired"
	// PreconditionFailed: the version in If-Match is not the current one: someone changed it
	// since the client read it. Read it again, and send the change on what it is now.
	PreconditionFailed Code = "PreconditionFailed"
)

// Error is a failure with a code. Detail is written for the client; Cause is for the logs.
type Error struct {
	Code   Code
	Detail string
	Cause  error
	// Extensions are more of what went wrong, for a client to act on (the open checkouts a
	// TooManyCheckouts names): extension members of the problem, by name, each a value that
	// encodes as JSON. Never personal data beyond the caller's own, never a secret.
	Extensions map[string]any
}

// With returns e with one more extension member.
func (e *Error) With(name string, value any) *Error {
	if e.Extensions == nil {
		e.Extensions = map[string]any{}
	}
	e.Extensions[name] = value
	return e
}

// E returns an *Error with the given code and a detail formatted like fmt.Sprintf.
func E(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error that keeps cause for the logs. The cause's text is never shown to
// clients.
func Wrap(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Detail: fmt.Sprintf(format, args...), Cause: cause}
}

func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Detail, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Detail)
}

func (e *Error) Unwrap() error { return e.Cause }

// CodeOf returns the code of the first *Error in err's chain, or Internal when there is none.
// (errors.AsType, unlike errors.As, needs no target on the heap: every command asks.)
func CodeOf(err error) Code {
	if e, ok := errors.AsType[*Error](err); ok {
		return e.Code
	}
	return Internal
}

// Is reports whether err carries the given code.
func Is(err error, code Code) bool {
	e, ok := errors.AsType[*Error](err)
	return ok && e.Code == code
}
