package devpay_test

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/stripe/stripe-go/v84"

	"library/internal/testkit/paytest"
)

// refundsOf makes n refunds of amount each of a payment, and returns their ids, oldest first.
func refundsOf(t *testing.T, p *paytest.Provider, intent string, n int, amount int64) []string {
	t.Helper()
	ids := make([]string, n)
	for i := range ids {
		r, err := p.Client().V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{
			PaymentIntent: stripe.String(intent), Amount: stripe.Int64(amount)})
		require.NoError(t, err)
		ids[i] = r.ID
	}
	return ids
}

// listed are the ids of the refunds stripe-go's iterator walks through, across every page.
func listed(t *testing.T, p *paytest.Provider, params *stripe.RefundListParams) []string {
	t.Helper()
	var ids []string
	for r, err := range p.Client().V1Refunds.List(t.Context(), params) {
		require.NoError(t, err)
		ids = append(ids, r.ID)
	}
	return ids
}

func TestStripeGoListsAPaymentsRefundsAcrossPages(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1200).ID)
	require.NoError(t, err)
	other, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	oldestFirst := refundsOf(t, p, paid.PaymentIntent, 12, 100)
	refundsOf(t, p, other.PaymentIntent, 1, 100)
	newestFirst := slices.Clone(oldestFirst)
	slices.Reverse(newestFirst)

	status, _, body := call(t, http.MethodGet, p.URL()+"/v1/refunds?payment_intent="+paid.PaymentIntent, p.SecretKey(), nil)
	require.Equal(t, http.StatusOK, status, body)
	require.Equal(t, "list", body["object"])
	require.Equal(t, "/v1/refunds", body["url"])
	require.Equal(t, true, body["has_more"])
	require.Len(t, body["data"], 10, "ten by default")
	first := body["data"].([]any)[0].(map[string]any)
	require.Equal(t, newestFirst[0], first["id"], "newest first")
	require.Equal(t, "refund", first["object"])

	byPages := &stripe.RefundListParams{PaymentIntent: stripe.String(paid.PaymentIntent)}
	byPages.Limit = stripe.Int64(5)
	require.Equal(t, newestFirst, listed(t, p, byPages), "three pages of five, newest first")
	one := &stripe.RefundListParams{PaymentIntent: stripe.String(paid.PaymentIntent)}
	one.Limit = stripe.Int64(1)
	require.Equal(t, newestFirst, listed(t, p, one), "twelve pages of one")

	backwards := &stripe.RefundListParams{PaymentIntent: stripe.String(paid.PaymentIntent)}
	backwards.Limit = stripe.Int64(2)
	backwards.EndingBefore = stripe.String(oldestFirst[0])
	require.Equal(t, oldestFirst[1:], listed(t, p, backwards), "ending_before walks towards the newest")
}

// starting_after is the page after an object, older; ending_before the page just before it,
// newer, still listed newest first.
func TestRefundPagesAreStripesPages(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	newestFirst := refundsOf(t, p, paid.PaymentIntent, 6, 100)
	slices.Reverse(newestFirst)
	page := func(query url.Values) ([]string, bool) {
		t.Helper()
		query.Set("payment_intent", paid.PaymentIntent)
		status, _, body := call(t, http.MethodGet, p.URL()+"/v1/refunds?"+query.Encode(), p.SecretKey(), nil)
		require.Equal(t, http.StatusOK, status, body)
		var ids []string
		for _, r := range body["data"].([]any) {
			ids = append(ids, r.(map[string]any)["id"].(string))
		}
		return ids, body["has_more"].(bool)
	}

	ids, more := page(url.Values{"limit": {"2"}, "starting_after": {newestFirst[1]}})
	require.Equal(t, newestFirst[2:4], ids)
	require.True(t, more)
	ids, more = page(url.Values{"limit": {"2"}, "starting_after": {newestFirst[3]}})
	require.Equal(t, newestFirst[4:6], ids)
	require.False(t, more, "the oldest is on this page")
	ids, more = page(url.Values{"limit": {"2"}, "ending_before": {newestFirst[4]}})
	require.Equal(t, newestFirst[2:4], ids)
	require.True(t, more)
	ids, more = page(url.Values{"limit": {"5"}, "ending_before": {newestFirst[2]}})
	require.Equal(t, newestFirst[0:2], ids)
	require.False(t, more, "the newest is on this page")
	ids, more = page(url.Values{"starting_after": {newestFirst[5]}})
	require.Empty(t, ids)
	require.False(t, more)
	ids, more = page(url.Values{"limit": {"100"}})
	require.Equal(t, newestFirst, ids)
	require.False(t, more)
}

func TestListingRefundsRefusesWhatDevpayDoesNotServe(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	refund := refundsOf(t, p, paid.PaymentIntent, 1, 100)[0]
	cases := []struct {
		name, query, param, code string
	}{
		{"no payment intent", "limit=2", "payment_intent", "parameter_missing"},
		{"a charge", "charge=ch_1", "charge", ""},
		{"an expansion", "expand[0]=data.charge", "expand[0]", ""},
		{"an unknown parameter", "created=1", "created", "parameter_unknown"},
		{"a limit of 0", "limit=0", "limit", ""},
		{"a limit over 100", "limit=101", "limit", ""},
		{"a limit that is no number", "limit=ten", "limit", ""},
		{"both cursors", "starting_after=" + refund + "&ending_before=" + refund, "ending_before", ""},
		{"an unknown cursor", "starting_after=re_nothing", "starting_after", "resource_missing"},
		{"an unknown payment", "payment_intent=pi_nothing", "payment_intent", "resource_missing"},
	}
	for _, c := range cases {
		query, err := url.ParseQuery(c.query)
		require.NoError(t, err)
		if !query.Has("payment_intent") && c.param != "payment_intent" {
			query.Set("payment_intent", paid.PaymentIntent)
		}
		status, _, body := call(t, http.MethodGet, p.URL()+"/v1/refunds?"+query.Encode(), p.SecretKey(), nil)
		require.Equal(t, http.StatusBadRequest, status, c.name)
		e := apiError(t, body)
		require.Equal(t, "invalid_request_error", e["type"], c.name)
		require.Equal(t, c.param, e["param"], c.name)
		if c.code != "" {
			require.Equal(t, c.code, e["code"], c.name)
		}
	}

	var errs []error
	for _, err := range p.Client().V1Refunds.List(t.Context(), &stripe.RefundListParams{}) {
		errs = append(errs, err)
	}
	require.Len(t, errs, 1, "stripe-go's iterator gives the error")
	se := stripeError(t, errs[0])
	require.Equal(t, http.StatusBadRequest, se.HTTPStatusCode)
	require.Equal(t, stripe.ErrorCodeParameterMissing, se.Code)
}

func TestStripeGoRetrievesARefund(t *testing.T) {
	t.Parallel()
	p := paytest.Start(t)
	paid, err := p.Pay(open(t, p, 1000).ID)
	require.NoError(t, err)
	made, err := p.Client().V1Refunds.Create(t.Context(), &stripe.RefundCreateParams{
		PaymentIntent: stripe.String(paid.PaymentIntent), Amount: stripe.Int64(250),
		Reason: stripe.String("requested_by_customer"), Metadata: map[string]string{"checkout_id": "co_checkout1"},
	})
	require.NoError(t, err)

	got, err := p.Client().V1Refunds.Retrieve(t.Context(), made.ID, nil)
	require.NoError(t, err)
	require.Equal(t, made.ID, got.ID)
	require.EqualValues(t, 250, got.Amount)
	require.Equal(t, stripe.RefundStatusSucceeded, got.Status)
	require.Equal(t, stripe.RefundReasonRequestedByCustomer, got.Reason)
	require.Equal(t, paid.PaymentIntent, got.PaymentIntent.ID)
	require.Equal(t, map[string]string{"checkout_id": "co_checkout1"}, got.Metadata)

	_, err = p.Client().V1Refunds.Retrieve(t.Context(), "re_nothing", nil)
	se := stripeError(t, err)
	require.Equal(t, http.StatusNotFound, se.HTTPStatusCode)
	require.Equal(t, stripe.ErrorTypeInvalidRequest, se.Type)
	require.Equal(t, stripe.ErrorCodeResourceMissing, se.Code)
	require.Equal(t, "No such refund: 're_nothing'", se.Msg)

	expand := &stripe.RefundRetrieveParams{}
	expand.AddExpand("charge")
	_, err = p.Client().V1Refunds.Retrieve(t.Context(), made.ID, expand)
	se = stripeError(t, err)
	require.Equal(t, http.StatusBadRequest, se.HTTPStatusCode)
	require.Equal(t, "expand[0]", se.Param)
}
