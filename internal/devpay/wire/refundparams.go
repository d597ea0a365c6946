package wire

import (
	"net/url"
	"slices"
	"strings"
)

// The parameters of the refund calls: create, list and retrieve.

// RefundParams are what a request for a refund asks for. Amount 0 means all that is left.
type RefundParams struct {
	Intent, Reason string
	Amount         int64
	Metadata       map[string]string
}

// refundReasons are the reasons Stripe takes.
var refundReasons = []string{"duplicate", "fraudulent", "requested_by_customer"}

// ParseRefund reads the parameters of a refund, refusing any devpay does not know.
func ParseRefund(form url.Values) (RefundParams, *Error) {
	p := RefundParams{Metadata: map[string]string{}}
	for _, name := range sortedKeys(form) {
		v := form[name][0]
		var err *Error
		switch {
		case name == "payment_intent":
			p.Intent = v
		case name == "amount":
			p.Amount, err = integer(name, v, 1)
		case name == "reason":
			p.Reason = v
			if !slices.Contains(refundReasons, v) {
				err = invalid(name, "Invalid reason %q: it must be one of %s.", v, strings.Join(refundReasons, ", "))
			}
		case name == "charge":
			err = invalid(name, "devpay refunds by payment_intent only.")
		case strings.HasPrefix(name, "metadata["):
			err = metadataParam(p.Metadata, name, "metadata", v)
		case expandParam.MatchString(name):
			err = invalid(name, "devpay expands nothing of a refund.")
		default:
			err = unknownParam(name)
		}
		if err != nil {
			return RefundParams{}, err
		}
	}
	if p.Intent == "" {
		return RefundParams{}, missing("payment_intent")
	}
	return p, nil
}

// RefundList is what a request to list refunds asks for: the refunds of one payment intent, a
// page of them.
type RefundList struct {
	Intent string
	Page   PageParams
}

// ParseRefundList reads the parameters of a list of refunds. devpay lists the refunds of one
// payment, so payment_intent is required, and charge is refused as on create; so is expand[],
// as devpay expands nothing of a refund.
func ParseRefundList(form url.Values) (RefundList, *Error) {
	var l RefundList
	page := url.Values{}
	for _, name := range sortedKeys(form) {
		v := form[name][0]
		var err *Error
		switch {
		case name == "payment_intent":
			l.Intent = v
		case slices.Contains(pageParams, name):
			page[name] = form[name]
		case name == "charge":
			err = invalid(name, "devpay lists refunds by payment_intent only.")
		case expandParam.MatchString(name):
			err = invalid(name, "devpay expands nothing of a refund.")
		default:
			err = unknownParam(name)
		}
		if err != nil {
			return RefundList{}, err
		}
	}
	if l.Intent == "" {
		return RefundList{}, missing("payment_intent")
	}
	var err *Error
	if l.Page, err = parsePage(page); err != nil {
		return RefundList{}, err
	}
	return l, nil
}

// ParseRefundRetrieve reads the parameters of a retrieve of a refund: none, as devpay expands
// nothing of a refund.
func ParseRefundRetrieve(form url.Values) *Error {
	names := sortedKeys(form)
	switch {
	case len(names) == 0:
		return nil
	case expandParam.MatchString(names[0]):
		return invalid(names[0], "devpay expands nothing of a refund.")
	default:
		return unknownParam(names[0])
	}
}
