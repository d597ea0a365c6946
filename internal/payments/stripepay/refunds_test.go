package stripepay

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"library/internal/errs"
	"library/internal/payments"
	"library/internal/testkit/stripemock"
)

// FindRefund lists the payment's refunds from Stripe (the mock accepts the request and answers
// a list), and finds only one kept under the key asked for.
func TestFindRefundListsThePaymentsRefunds(t *testing.T) {
	t.Parallel()
	rec := stripemock.Record(t, stripemock.URL(t))
	p := newProvider(t, rec.URL)
	_, found, err := p.FindRefund(context.Background(), "pi_3Mtw", payments.RefundKey("co_x"))
	if err != nil {
		t.Fatalf("FindRefund: %v", err)
	}
	sent := rec.Last(t)
	if sent.Method != "GET" || sent.Path != "/v1/refunds" || sent.Form.Get("payment_intent") != "pi_3Mtw" || sent.Form.Get("limit") != "100" {
		t.Errorf("sent %s %s %v, want GET /v1/refunds of the payment, 100 a page", sent.Method, sent.Path, sent.Form)
	}
	if found {
		t.Error("the mock's canned refund has no refund_key, yet it was taken for ours")
	}
}

// A refund made under the key is found among the payment's others, on whatever page it is,
// with what the service kept in its metadata.
func TestFindRefundFindsTheOneMadeUnderTheKey(t *testing.T) {
	t.Parallel()
	var pages atomic.Int32
	stripe := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("starting_after") == "" {
			pages.Add(1)
			_, _ = w.Write([]byte(`{"object":"list","url":"/v1/refunds","has_more":true,"data":[
				{"id":"re_other","object":"refund","amount":100,"status":"succeeded","payment_intent":"pi_1","metadata":{"refund_key":"library-refund-co_y"}}]}`))
			return
		}
		pages.Add(1)
		_, _ = w.Write([]byte(`{"object":"list","url":"/v1/refunds","has_more":false,"data":[
			{"id":"re_ours","object":"refund","amount":300,"status":"pending","payment_intent":"pi_1",
			 "metadata":{"refund_key":"library-refund-co_x","checkout_id":"co_x","member_id":"m_ada"}}]}`))
	}))
	t.Cleanup(stripe.Close)
	p := newProvider(t, stripe.URL)
	refund, found, err := p.FindRefund(context.Background(), "pi_1", payments.RefundKey("co_x"))
	if err != nil || !found {
		t.Fatalf("FindRefund: %v, found %v", err, found)
	}
	want := payments.Refund{ID: "re_ours", Amount: 300, Status: payments.RefundStatusPending, PaymentID: "pi_1",
		Key: payments.RefundKey("co_x"), CheckoutID: "co_x", MemberID: "m_ada"}
	if refund != want || pages.Load() != 2 {
		t.Errorf("found %+v after %d pages, want %+v after 2", refund, pages.Load(), want)
	}
}

// GetRefund reads the refund Stripe has.
func TestGetRefundReadsTheRefund(t *testing.T) {
	t.Parallel()
	rec := stripemock.Record(t, stripemock.URL(t))
	p := newProvider(t, rec.URL)
	refund, err := p.GetRefund(context.Background(), "re_1Nisp")
	if err != nil {
		t.Fatalf("GetRefund: %v", err)
	}
	if sent := rec.Last(t); sent.Method != "GET" || sent.Path != "/v1/refunds/re_1Nisp" {
		t.Errorf("sent %s %s", sent.Method, sent.Path)
	}
	if refund.ID != "re_1Nisp" || refund.Status == "" {
		t.Errorf("read %+v, want the mock's refund under the id asked for", refund)
	}
	if _, err := p.GetRefund(context.Background(), ""); errs.CodeOf(err) != errs.InvalidRequest {
		t.Errorf("no id: %v, want InvalidRequest without asking", err)
	}
}

// ExpireSession asks Stripe to expire the session (the mock accepts it); a session Stripe
// won't expire because it is not open is read and returned as it is.
func TestExpireSessionEndsTheSessionOrSaysWhatItIs(t *testing.T) {
	t.Parallel()
	rec := stripemock.Record(t, stripemock.URL(t))
	p := newProvider(t, rec.URL)
	if _, err := p.ExpireSession(context.Background(), "cs_test_a1b2c3"); err != nil {
		t.Fatalf("ExpireSession: %v", err)
	}
	if sent := rec.Last(t); sent.Method != "POST" || sent.Path != "/v1/checkout/sessions/cs_test_a1b2c3/expire" ||
		sent.Form.Get("expand[0]") != "payment_intent" {
		t.Errorf("sent %s %s %v", sent.Method, sent.Path, sent.Form)
	}

	paid := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if strings.HasSuffix(r.URL.Path, "/expire") {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"error":{"type":"invalid_request_error","message":"Only Checkout Sessions with a status in [\"open\"] can be expired."}}`))
			return
		}
		_, _ = w.Write([]byte(`{"id":"cs_paid","object":"checkout.session","status":"complete","payment_status":"paid",
			"amount_total":300,"currency":"eur","payment_intent":{"id":"pi_1","object":"payment_intent","status":"succeeded"},
			"metadata":{"checkout_id":"co_x","member_id":"m_ada"}}`))
	}))
	t.Cleanup(paid.Close)
	s, err := newProvider(t, paid.URL).ExpireSession(context.Background(), "cs_paid")
	if err != nil || !s.Paid || s.PaymentID != "pi_1" {
		t.Errorf("a session paid meanwhile: %+v, %v; want it read, paid", s, err)
	}
}
