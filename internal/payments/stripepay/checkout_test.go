package stripepay

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"

	"library/internal/payments"
	"library/internal/testkit/stripemock"
)

const testWebhookSecret = "whsec_test_3Qx9vLrT2mKp8Wz"

// newProvider is a Provider on the Stripe API at apiURL.
func newProvider(t *testing.T, apiURL string) *Provider {
	t.Helper()
	p, err := New(Config{SecretKey: stripemock.SecretKey, WebhookSecret: testWebhookSecret, APIURL: apiURL})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func checkoutRequest() payments.CheckoutRequest {
	checkoutID := payments.CheckoutID("m_ada", "key-1")
	return payments.CheckoutRequest{
		Key:         payments.SessionKey(checkoutID),
		CheckoutID:  checkoutID,
		MemberID:    "m_ada",
		Amount:      1250,
		Currency:    "EUR",
		Description: "Late fines, 2 loans",
		SuccessURL:  "https://library.example/account/pay/done?session={CHECKOUT_SESSION_ID}",
		CancelURL:   "https://library.example/account",
		ExpiresAt:   time.Now().Add(time.Hour).Truncate(time.Second),
	}
}

// StartCheckout asks Stripe for exactly the session the service means, under its key, and the
// mock (Stripe's OpenAPI document) accepts every parameter of it.
func TestStartCheckoutSendsTheSessionUnderItsKey(t *testing.T) {
	t.Parallel()
	rec := stripemock.Record(t, stripemock.URL(t))
	p := newProvider(t, rec.URL)
	r := checkoutRequest()

	s, err := p.StartCheckout(context.Background(), r)
	if err != nil {
		t.Fatalf("StartCheckout: %v", err)
	}

	sent := rec.Last(t)
	if sent.Method != "POST" || sent.Path != "/v1/checkout/sessions" {
		t.Fatalf("sent %s %s, want POST /v1/checkout/sessions", sent.Method, sent.Path)
	}
	for header, want := range map[string]string{
		"Idempotency-Key": r.Key,
		"Stripe-Version":  stripe.APIVersion,
		"Authorization":   "Bearer " + stripemock.SecretKey,
	} {
		if got := sent.Header.Get(header); got != want {
			t.Errorf("header %s = %q, want %q", header, got, want)
		}
	}
	want := map[string]string{
		"mode":                  "payment",
		"success_url":           r.SuccessURL,
		"cancel_url":            r.CancelURL,
		"client_reference_id":   r.MemberID,
		"metadata[checkout_id]": r.CheckoutID,
		"metadata[member_id]":   r.MemberID,
		"payment_intent_data[metadata][checkout_id]":    r.CheckoutID,
		"payment_intent_data[metadata][member_id]":      r.MemberID,
		"line_items[0][price_data][currency]":           "eur",
		"line_items[0][price_data][unit_amount]":        "1250",
		"line_items[0][price_data][product_data][name]": r.Description,
		"line_items[0][quantity]":                       "1",
		"expires_at":                                    strconv.FormatInt(r.ExpiresAt.Unix(), 10),
	}
	for key, value := range want {
		if got := sent.Form[key]; len(got) != 1 || got[0] != value {
			t.Errorf("sent %s = %q, want %q", key, got, value)
		}
	}
	for key := range sent.Form {
		if _, ok := want[key]; !ok {
			t.Errorf("sent %s, which nothing asked for", key)
		}
	}

	// The mock answers a canned session, with what it reflects of the request.
	if !strings.HasPrefix(s.ID, "cs_") || !strings.HasPrefix(s.URL, "https://") {
		t.Errorf("session %q at %q, want a cs_ id and an https URL", s.ID, s.URL)
	}
	if s.Status != payments.SessionOpen || s.Paid {
		t.Errorf("status %q, paid %v; want open and unpaid", s.Status, s.Paid)
	}
	if s.MemberID != r.MemberID {
		t.Errorf("member %q, want %q (client_reference_id, which the mock reflects)", s.MemberID, r.MemberID)
	}
	if !strings.HasPrefix(s.PaymentID, "pi_") {
		t.Errorf("payment id %q, want the PaymentIntent's", s.PaymentID)
	}
}

// A request that could not make a session the service can match, or that Stripe would refuse,
// is refused before anything is sent.
func TestStartCheckoutRefusesAnIncompleteRequestWithoutAsking(t *testing.T) {
	t.Parallel()
	rec := stripemock.Record(t, stripemock.URL(t))
	p := newProvider(t, rec.URL)
	for name, change := range map[string]func(*payments.CheckoutRequest){
		"no key":        func(r *payments.CheckoutRequest) { r.Key = "" },
		"no checkout":   func(r *payments.CheckoutRequest) { r.CheckoutID = "" },
		"no member":     func(r *payments.CheckoutRequest) { r.MemberID = "" },
		"zero amount":   func(r *payments.CheckoutRequest) { r.Amount = 0 },
		"bad currency":  func(r *payments.CheckoutRequest) { r.Currency = "euro" },
		"no success":    func(r *payments.CheckoutRequest) { r.SuccessURL = "" },
		"no describing": func(r *payments.CheckoutRequest) { r.Description = "" },
	} {
		r := checkoutRequest()
		change(&r)
		if _, err := p.StartCheckout(context.Background(), r); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if n := len(rec.Requests()); n != 0 {
		t.Errorf("%d requests reached Stripe, want none", n)
	}
}

// Session reads the session and maps Stripe's answer.
func TestSessionReadsTheSession(t *testing.T) {
	t.Parallel()
	rec := stripemock.Record(t, stripemock.URL(t))
	p := newProvider(t, rec.URL)

	s, err := p.Session(context.Background(), "cs_test_a1b2c3")
	if err != nil {
		t.Fatalf("Session: %v", err)
	}
	if sent := rec.Last(t); sent.Method != "GET" || sent.Path != "/v1/checkout/sessions/cs_test_a1b2c3" ||
		sent.Form.Get("expand[0]") != "payment_intent" {
		t.Errorf("sent %s %s %v, want the session with its payment intent expanded", sent.Method, sent.Path, sent.Form)
	}
	if s.ID != "cs_test_a1b2c3" {
		t.Errorf("id %q, want the one asked for (the mock reflects it)", s.ID)
	}
	if s.Status != payments.SessionOpen || s.Paid || !strings.HasPrefix(s.PaymentID, "pi_") {
		t.Errorf("session %+v, want the mock's open, unpaid session with its PaymentIntent", s)
	}
}

// Refund refunds the PaymentIntent under the refund's key.
func TestRefundSendsTheRefundUnderItsKey(t *testing.T) {
	t.Parallel()
	rec := stripemock.Record(t, stripemock.URL(t))
	p := newProvider(t, rec.URL)
	r := payments.RefundRequest{Key: payments.RefundKey("co_x"), PaymentID: "pi_3Mtw", Amount: 300, CheckoutID: "co_x", MemberID: "m_ada"}

	refund, err := p.Refund(context.Background(), r)
	if err != nil {
		t.Fatalf("Refund: %v", err)
	}
	sent := rec.Last(t)
	if sent.Method != "POST" || sent.Path != "/v1/refunds" {
		t.Fatalf("sent %s %s, want POST /v1/refunds", sent.Method, sent.Path)
	}
	if got := sent.Header.Get("Idempotency-Key"); got != r.Key {
		t.Errorf("Idempotency-Key %q, want %q", got, r.Key)
	}
	for key, value := range map[string]string{"payment_intent": r.PaymentID, "amount": "300", "metadata[refund_key]": r.Key,
		"metadata[checkout_id]": r.CheckoutID, "metadata[member_id]": r.MemberID} {
		if got := sent.Form.Get(key); got != value {
			t.Errorf("sent %s = %q, want %q", key, got, value)
		}
	}
	if !strings.HasPrefix(refund.ID, "re_") || refund.Amount != 300 || refund.Status != payments.RefundStatusSucceeded {
		t.Errorf("refund %+v, want the mock's re_ refund of 300 (the amount reflected), succeeded", refund)
	}
}
