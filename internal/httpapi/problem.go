package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"library/internal/errs"
)

// Problem is an RFC 9457 problem document, with the contract's machine-readable code.
type Problem struct {
	Type   string    `json:"type"`
	Title  string    `json:"title"`
	Status int       `json:"status"`
	Detail string    `json:"detail"`
	Code   errs.Code `json:"code"`
	// Instance is the request id, also sent as X-Request-Id and written to the logs.
	Instance string `json:"instance"`
	// Extensions are the error's extension members (errs.Error.Extensions), written after the
	// members above; one named like them is left out.
	Extensions map[string]any `json:"-"`
}

// MarshalJSON writes the problem's members, then its extensions in the order of their names.
func (p Problem) MarshalJSON() ([]byte, error) {
	type members Problem
	b, err := json.Marshal(members(p))
	if err != nil || len(p.Extensions) == 0 {
		return b, err
	}
	extra := make(map[string]any, len(p.Extensions))
	for name, v := range p.Extensions {
		switch name {
		case "type", "title", "status", "detail", "code", "instance":
		default:
			extra[name] = v
		}
	}
	more, err := json.Marshal(extra)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	return append(append(b[:len(b)-1], ','), more[1:]...), nil
}

// ProblemContentType is the media type of every error response.
const ProblemContentType = "application/problem+json"

// statusOf is the one table from error codes to HTTP statuses and titles. A code that is not
// in it is an internal error.
func statusOf(code errs.Code) (int, string) {
	if title, ok := conflictTitle(code); ok {
		return http.StatusConflict, title
	}
	switch code {
	case errs.InvalidRequest:
		return http.StatusBadRequest, "Invalid request"
	case errs.IdempotencyKeyMissing:
		return http.StatusBadRequest, "Idempotency-Key missing"
	case errs.Unauthorized:
		return http.StatusUnauthorized, "Unauthorized"
	case errs.Forbidden:
		return http.StatusForbidden, "Forbidden"
	case errs.NotFound:
		return http.StatusNotFound, "Not found"
	case errs.Gone:
		return http.StatusGone, "Gone"
	case errs.MethodNotAllowed:
		return http.StatusMethodNotAllowed, "Method not allowed"
	case errs.PINInvalid:
		return http.StatusForbidden, "PIN invalid"
	case errs.PINLocked:
		return http.StatusLocked, "PIN locked"
	case errs.PayloadTooLarge:
		return http.StatusRequestEntityTooLarge, "Payload too large"
	case errs.UnsupportedMediaType:
		return http.StatusUnsupportedMediaType, "Unsupported media type"
	case errs.IdempotencyKeyReused:
		return http.StatusUnprocessableEntity, "Idempotency-Key reused"
	case errs.NotReplayable:
		return http.StatusUnprocessableEntity, "Not replayable"
	case errs.PreconditionRequired:
		return http.StatusPreconditionRequired, "Precondition required"
	case errs.PreconditionFailed:
		return http.StatusPreconditionFailed, "Precondition failed"
	case errs.TooManyRequests:
		return http.StatusTooManyRequests, "Too many requests"
	case errs.NotCaughtUp:
		return http.StatusServiceUnavailable, "Not caught up"
	case errs.Unavailable:
		return http.StatusServiceUnavailable, "Unavailable"
	default:
		return http.StatusInternalServerError, "Internal error"
	}
}

// conflictTitle is the title of a code whose status is 409 Conflict: a refusal by the state of
// what the request is about (a rule of the domain, a value taken, a race lost).
func conflictTitle(code errs.Code) (string, bool) {
	switch code {
	case errs.NotLendable:
		return "Not lendable", true
	case errs.HoldsNotAllowed:
		return "Holds not allowed", true
	case errs.BookMissing:
		return "Book missing", true
	case errs.AccountNotSettled:
		return "Account not settled", true
	case errs.BookAlreadyExists:
		return "Book already exists", true
	case errs.TitleAlreadyExists:
		return "Title already exists", true
	case errs.BarcodeTaken:
		return "Barcode taken", true
	case errs.TerminalExists:
		return "Terminal exists", true
	case errs.CardTaken:
		return "Card taken", true
	case errs.BookAlreadyLent:
		return "Book already lent", true
	case errs.LoanMismatch:
		return "Loan mismatch", true
	case errs.NothingToPay:
		return "Nothing to pay", true
	case errs.NotLeaseHolder:
		return "Not the lease holder", true
	case errs.ConcurrencyConflict:
		return "Concurrency conflict", true
	case errs.LoanNotCurrent:
		return "Loan not current", true
	case errs.RenewalLimitReached:
		return "Renewal limit reached", true
	case errs.BookOnHold:
		return "Book on hold", true
	case errs.BookAvailable:
		return "Book available", true
	case errs.TitleAvailable:
		return "Title available", true
	case errs.HoldsWaiting:
		return "Holds waiting", true
	case errs.AlreadyHeld:
		return "Already held", true
	case errs.HoldQueueFull:
		return "Hold queue full", true
	case errs.LoanLimitReached:
		return "Loan limit reached", true
	case errs.MemberBlocked:
		return "Member blocked", true
	case errs.TooManyCheckouts:
		return "Too many checkouts", true
	}
	return "", false
}

// WriteError answers a request with the problem that err stands for, and records err for the
// request's log line. Only an *errs.Error's Detail reaches the client; the text of any other
// error, and every cause, stays in the logs.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	info := requestInfoFrom(r.Context())
	if info != nil {
		info.err = err
	}
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		// The client went away; nobody reads the answer. Logged as 499, like nginx does.
		if info != nil {
			info.clientGone = true
		}
		return
	}
	code := errs.CodeOf(err)
	if errors.Is(err, context.DeadlineExceeded) {
		code = errs.Unavailable
	}
	status, title := statusOf(code)
	detail := "the request did not succeed; this is our fault, not yours: quote the request id when you report it"
	var e *errs.Error
	var extensions map[string]any
	if errors.As(err, &e) && status != http.StatusInternalServerError {
		detail, extensions = e.Detail, e.Extensions
	} else if code == errs.Unavailable {
		detail = "the service cannot reach its database right now; try again shortly"
	}
	if status == http.StatusServiceUnavailable || (status == http.StatusTooManyRequests && w.Header().Get("Retry-After") == "") {
		// A limit sets its own Retry-After (its window) before it answers; 1 s otherwise.
		w.Header().Set("Retry-After", "1")
	}
	if status == http.StatusInternalServerError {
		code = errs.Internal // whatever the error was, the client sees only "Internal"
	}
	writeProblem(w, Problem{
		Type:       "urn:library:problem:" + string(code),
		Title:      title,
		Status:     status,
		Detail:     detail,
		Code:       code,
		Instance:   RequestID(r.Context()),
		Extensions: extensions,
	})
}

func writeProblem(w http.ResponseWriter, p Problem) {
	buf := getBuffer()
	defer putBuffer(buf)
	if err := encodeAnswer(buf, p); err != nil { // a Problem always encodes
		http.Error(w, http.StatusText(p.Status), p.Status)
		return
	}
	w.Header().Set("Content-Type", ProblemContentType)
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_, _ = w.Write(buf.Bytes())
}
