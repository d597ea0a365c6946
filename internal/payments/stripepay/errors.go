package stripepay

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/stripe/stripe-go/v84"

	"library/internal/errs"
)

// fail turns what stripe-go returned when doing something (what, "start a checkout") into the
// service's error. Stripe's message is dropped: it can quote the request, the Authorization
// header with the secret key included (stripe-mock does), and the member's details.
func fail(err error, what string) error {
	var se *stripe.Error
	if !errors.As(err, &se) {
		return unreachable(err, what)
	}
	cause := stripeFailure{status: se.HTTPStatusCode, typ: se.Type, code: se.Code, param: se.Param, requestID: se.RequestID}
	switch status := se.HTTPStatusCode; {
	case status >= http.StatusInternalServerError:
		return errs.Wrap(errs.Unavailable, cause, "the payment provider failed to %s; try again shortly", what)
	case status == http.StatusTooManyRequests:
		return errs.Wrap(errs.Unavailable, cause, "the payment provider is limiting requests; try again shortly")
	case status == http.StatusConflict:
		// Another request with the same idempotency key is still running (a double click):
		// once it ends, the same key returns its result.
		return errs.Wrap(errs.Unavailable, cause, "the payment provider is still working on the same request; try again shortly")
	case se.Type == stripe.ErrorTypeIdempotency:
		return errs.Wrap(errs.Internal, cause, "the payment provider refused to %s: its idempotency key was used before for another request", what)
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		return errs.Wrap(errs.Internal, cause, "the payment provider refused the service's API key when asked to %s", what)
	case status == http.StatusNotFound:
		return errs.Wrap(errs.InvalidRequest, cause, "the payment provider has no such object (asked to %s)", what)
	default:
		return errs.Wrap(errs.InvalidRequest, cause, "the payment provider refused to %s%s", what, codeSuffix(se))
	}
}

// unreachable is a failure with no answer from Stripe: the network, a timeout, the context, or
// an answer that is not Stripe's (a proxy's error page). The cause is kept when it is the
// network's or the context's (a *url.Error names the method and URL, never a header); an
// unreadable body is not, since stripe-go quotes it.
func unreachable(err error, what string) error {
	var netErr interface{ Timeout() bool }
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr):
		return errs.Wrap(errs.Unavailable, err, "the payment provider did not answer when asked to %s; try again shortly", what)
	default:
		return errs.Wrap(errs.Unavailable, errors.New("no answer from Stripe that could be read"),
			"the payment provider did not answer when asked to %s; try again shortly", what)
	}
}

// codeSuffix names Stripe's error code for a client, when there is one: a fixed word such as
// amount_too_small, never its message.
func codeSuffix(se *stripe.Error) string {
	if se.Code == "" {
		return ""
	}
	return fmt.Sprintf(" (%s)", se.Code)
}

// stripeFailure is what the logs keep of an error answer from Stripe: enough to find the
// request in Stripe's dashboard, nothing it said in words.
type stripeFailure struct {
	status    int
	typ       stripe.ErrorType
	code      stripe.ErrorCode
	param     string
	requestID string
}

func (f stripeFailure) Error() string {
	return fmt.Sprintf("stripe answered %d (type %q, code %q, param %q, request %q)", f.status, f.typ, f.code, f.param, f.requestID)
}
