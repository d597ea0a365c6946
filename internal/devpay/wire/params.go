package wire

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Checkout is what a request to create a session asks for.
type Checkout struct {
	Items []LineItem
	// Currency is the line items', in lower case; Total their sum.
	Currency                                string
	Total                                   int64
	SuccessURL, CancelURL, Reference, Email string
	Metadata, IntentMetadata                map[string]string
	ExpiresAt                               time.Time
	// ExpandIntent is true when the answer should show the payment intent whole.
	ExpandIntent bool

	hasExpiry, hasMode bool
	lineFields         map[int]map[string]string // by index, then by field
}

var (
	lineItemParam = regexp.MustCompile(`^line_items\[(\d+)\]\[(.+)\]$`)
	expandParam   = regexp.MustCompile(`^expand\[\d*\]$`)
)

// The fields a line item may have, by their name after line_items[i].
var lineItemFields = []string{"quantity", "price_data][currency", "price_data][unit_amount",
	"price_data][product_data][name", "price_data][product_data][description"}

// minimumCharge is Stripe's smallest total for a currency, in its smallest unit.
var minimumCharge = map[string]int64{"usd": 50, "eur": 50, "gbp": 30, "chf": 50, "cad": 50, "aud": 50}

// maxAmount is the largest amount Stripe takes (99,999,999 of the smallest unit).
const maxAmount = 99_999_999

// ParseCheckout reads the parameters of a new session, refusing any devpay does not know. An
// expires_at must be at least minExpiry from now (Stripe's is 30 minutes; see expiry).
func ParseCheckout(form url.Values, now time.Time, minExpiry time.Duration) (Checkout, *Error) {
	c := Checkout{lineFields: map[int]map[string]string{}, Metadata: map[string]string{}, IntentMetadata: map[string]string{}}
	for _, name := range sortedKeys(form) {
		v := form.Get(name)
		var err *Error
		switch {
		case name == "mode":
			c.hasMode = true
			if v != "payment" {
				err = invalid(name, "devpay makes sessions in mode payment only, not %q.", v)
			}
		case name == "success_url":
			c.SuccessURL, err = httpURL(name, v)
		case name == "cancel_url":
			c.CancelURL, err = httpURL(name, v)
		case name == "client_reference_id":
			c.Reference, err = limited(name, v, 200)
		case name == "customer_email":
			c.Email, err = limited(name, v, 800)
		case name == "expires_at":
			c.hasExpiry = true
			c.ExpiresAt, err = expiry(v, now, minExpiry)
		case name == "locale", name == "submit_type", name == "payment_intent_data[description]":
			// Taken, and of no use to devpay's one page.
		case strings.HasPrefix(name, "payment_method_types["):
			if v != "card" {
				err = invalid(name, "devpay takes only the payment method type card, not %q.", v)
			}
		case strings.HasPrefix(name, "metadata["):
			err = metadataParam(c.Metadata, name, "metadata", v)
		case strings.HasPrefix(name, "payment_intent_data[metadata]["):
			err = metadataParam(c.IntentMetadata, name, "payment_intent_data[metadata]", v)
		case expandParam.MatchString(name):
			c.ExpandIntent, err = expandable(name, v)
		case lineItemParam.MatchString(name):
			err = c.lineItemParam(name, v)
		default:
			err = unknownParam(name)
		}
		if err != nil {
			return Checkout{}, err
		}
	}
	if err := c.complete(now); err != nil {
		return Checkout{}, err
	}
	return c, nil
}

func (c *Checkout) lineItemParam(name, v string) *Error {
	m := lineItemParam.FindStringSubmatch(name)
	i, err := strconv.Atoi(m[1])
	if err != nil || i > 99 || !slices.Contains(lineItemFields, m[2]) {
		return unknownParam(name)
	}
	if c.lineFields[i] == nil {
		c.lineFields[i] = map[string]string{}
	}
	c.lineFields[i][m[2]] = v
	return nil
}

// complete checks what is required and reads the line items into a total.
func (c *Checkout) complete(now time.Time) *Error {
	switch {
	case !c.hasMode:
		return missing("mode")
	case c.SuccessURL == "":
		return missing("success_url")
	case len(c.lineFields) == 0:
		return missing("line_items")
	}
	if !c.hasExpiry {
		c.ExpiresAt = now.Add(24 * time.Hour)
	}
	for i := range len(c.lineFields) {
		fields, found := c.lineFields[i]
		if !found {
			return missing(fmt.Sprintf("line_items[%d]", i))
		}
		item, currency, err := lineItem(i, fields)
		if err != nil {
			return err
		}
		if c.Currency != "" && currency != c.Currency {
			return invalid(fmt.Sprintf("line_items[%d][price_data][currency]", i), "All line items must have the same currency: %s, not %s.", c.Currency, currency)
		}
		c.Currency = currency
		c.Items = append(c.Items, item)
		c.Total += item.UnitAmount * item.Quantity
		if c.Total > maxAmount {
			return invalid("line_items", "The total amount is more than %d, the most Stripe takes.", maxAmount)
		}
	}
	if least := minimumCharge[c.Currency]; c.Total < least {
		e := invalid("line_items", "The total amount due must add up to at least %d %s, Stripe's smallest charge in this currency.", least, c.Currency)
		e.Code = "amount_too_small"
		return e
	}
	return nil
}

func lineItem(i int, fields map[string]string) (LineItem, string, *Error) {
	prefix := fmt.Sprintf("line_items[%d][", i)
	for _, f := range lineItemFields[:4] {
		if fields[f] == "" {
			return LineItem{}, "", missing(prefix + f + "]")
		}
	}
	currency := strings.ToLower(fields["price_data][currency"])
	if len(currency) != 3 || strings.Trim(currency, "abcdefghijklmnopqrstuvwxyz") != "" {
		return LineItem{}, "", invalid(prefix+"price_data][currency]", "Invalid currency: %s.", currency)
	}
	unit, err := integer(prefix+"price_data][unit_amount]", fields["price_data][unit_amount"], 0)
	if err != nil {
		return LineItem{}, "", err
	}
	qty, err := integer(prefix+"quantity]", fields["quantity"], 1)
	if err != nil {
		return LineItem{}, "", err
	}
	name, err := limited(prefix+"price_data][product_data][name]", fields["price_data][product_data][name"], 250)
	if err != nil {
		return LineItem{}, "", err
	}
	return LineItem{Name: name, Description: fields["price_data][product_data][description"], UnitAmount: unit, Quantity: qty}, currency, nil
}

// expiry reads expires_at, which Stripe wants 30 minutes to 24 hours from now, and devpay
// minExpiry to 24 hours. For the clocks of the caller and the server, devpay takes it up to a
// minute early (never at or before now) and a minute late. Stripe's message names its own
// bounds when minExpiry is Stripe's.
func expiry(v string, now time.Time, minExpiry time.Duration) (time.Time, *Error) {
	n, err := integer("expires_at", v, 0)
	if err != nil {
		return time.Time{}, err
	}
	at := time.Unix(n, 0)
	if !at.After(now.Add(minExpiry-min(time.Minute, minExpiry))) || at.After(now.Add(24*time.Hour+time.Minute)) {
		least := "30 minutes"
		if minExpiry != 30*time.Minute {
			least = minExpiry.String() + " (devpay's Options.MinExpiry)"
		}
		return time.Time{}, invalid("expires_at", "The expires_at timestamp must be between %s and 24 hours from Checkout Session creation.", least)
	}
	return at, nil
}

// metadataParam reads metadata[key]=value into m, within Stripe's limits. An empty value sets
// nothing.
func metadataParam(m map[string]string, name, prefix, v string) *Error {
	key := strings.TrimSuffix(strings.TrimPrefix(name, prefix+"["), "]")
	switch {
	case key == "" || strings.ContainsAny(key, "[]") || !strings.HasSuffix(name, "]"):
		return unknownParam(name)
	case len(key) > 40:
		return invalid(name, "Metadata keys can be at most 40 characters long.")
	case len(v) > 500:
		return invalid(name, "Metadata values can be at most 500 characters long.")
	case v == "":
		return nil
	}
	m[key] = v
	if len(m) > 50 {
		return invalid(prefix, "Metadata can have at most 50 keys.")
	}
	return nil
}

// ParseExpand reads the only parameters of a retrieve: expand[], of which devpay knows only
// payment_intent.
func ParseExpand(form url.Values) (bool, *Error) {
	expand := false
	for _, name := range sortedKeys(form) {
		if !expandParam.MatchString(name) {
			return false, unknownParam(name)
		}
		e, err := expandable(name, form.Get(name))
		if err != nil {
			return false, err
		}
		expand = expand || e
	}
	return expand, nil
}

func expandable(name, v string) (bool, *Error) {
	if v != "payment_intent" {
		return false, invalid(name, "devpay can expand only payment_intent, not %q.", v)
	}
	return true, nil
}

func httpURL(name, v string) (string, *Error) {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(v) > 5000 {
		return "", invalid(name, "Not a valid URL.")
	}
	return v, nil
}

func limited(name, v string, most int) (string, *Error) {
	if len(v) > most {
		return "", invalid(name, "Invalid string: it may have at most %d characters.", most)
	}
	return v, nil
}

func integer(name, v string, least int64) (int64, *Error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < least {
		return 0, invalid(name, "Invalid integer: %s. It must be at least %d.", v, least)
	}
	return n, nil
}

func invalid(param, format string, args ...any) *Error {
	return &Error{Type: InvalidRequest, Param: param, Message: fmt.Sprintf(format, args...)}
}

func missing(param string) *Error {
	return &Error{Type: InvalidRequest, Param: param, Code: "parameter_missing", Message: "Missing required param: " + param + "."}
}

func unknownParam(name string) *Error {
	return &Error{Type: InvalidRequest, Param: name, Code: "parameter_unknown",
		Message: "Received unknown parameter: " + name + ". (devpay serves only part of Stripe's API.)"}
}

func sortedKeys(form url.Values) []string {
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
