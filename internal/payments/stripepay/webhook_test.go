package stripepay

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stripe/stripe-go/v84"
	"github.com/stripe/stripe-go/v84/webhook"

	"library/internal/errs"
	"library/internal/payments"
	"library/internal/testkit/stripemock"
)

// mockSession is a whole Checkout Session object as Stripe's API renders it (stripe-mock's),
// with the given fields changed.
func mockSession(t *testing.T, changes map[string]any) map[string]any {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, stripemock.URL(t)+"/v1/checkout/sessions/cs_test_hook", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+stripemock.SecretKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var s map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&s); err != nil {
		t.Fatal(err)
	}
	for k, v := range changes {
		s[k] = v
	}
	return s
}

// event is a Stripe event of the given type and API version about object, as JSON.
func event(t *testing.T, typ, apiVersion string, object any) []byte {
	t.Helper()
	body, err := json.Marshal(map[string]any{
		"id": "evt_1QxT", "object": "event", "api_version": apiVersion, "created": time.Now().Unix(),
		"livemode": false, "pending_webhooks": 1, "type": typ,
		"data": map[string]any{"object": object},
	})
	if err != nil {
		t.Fatal(err)
	}
	return body
}

// sign is the Stripe-Signature header for payload, signed with secret at the given time.
func sign(payload []byte, secret string, at time.Time) string {
	return webhook.GenerateTestSignedPayload(&webhook.UnsignedPayload{Payload: payload, Secret: secret, Timestamp: at}).Header
}

var paidSession = map[string]any{
	"status": "complete", "payment_status": "paid", "amount_total": 1250, "currency": "eur",
	"client_reference_id": "m_ada",
	"metadata":            map[string]string{"checkout_id": "co_abc", "member_id": "m_ada"},
}

// A signed checkout.session.completed event is read into the session it is about, whether its
// PaymentIntent comes as an id or expanded.
func TestWebhookReadsTheSession(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	for name, paymentIntent := range map[string]any{
		"id":       "pi_3Qx",
		"expanded": map[string]any{"id": "pi_3Qx", "object": "payment_intent", "amount": 1250, "status": "succeeded"},
	} {
		changes := map[string]any{"id": "cs_test_paid", "payment_intent": paymentIntent, "expires_at": 1767225600}
		for k, v := range paidSession {
			changes[k] = v
		}
		payload := event(t, string(payments.CheckoutCompleted), stripe.APIVersion, mockSession(t, changes))

		n, err := p.Webhook(payload, sign(payload, testWebhookSecret, time.Now()))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want := payments.Notification{ID: "evt_1QxT", Type: payments.CheckoutCompleted, Session: payments.Session{
			ID: "cs_test_paid", URL: n.Session.URL, CheckoutID: "co_abc", MemberID: "m_ada", Amount: 1250,
			Currency: "eur", Status: payments.SessionComplete, Paid: true, PaymentID: "pi_3Qx", ExpiresAt: time.Unix(1767225600, 0),
		}}
		if n != want {
			t.Errorf("%s: read\n%+v\nwant\n%+v", name, n, want)
		}
	}
}

// A session is paid only when complete and paid: a completed session whose slow payment has
// not arrived is not, nor one that is not complete, whatever its payment_status says.
func TestWebhookSessionIsPaidOnlyWhenTheMoneyArrived(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	for _, c := range []struct{ status, paymentStatus string }{
		{"complete", "unpaid"}, {"open", "unpaid"}, {"expired", "unpaid"}, {"open", "paid"},
	} {
		payload := event(t, string(payments.CheckoutCompleted), stripe.APIVersion,
			mockSession(t, map[string]any{"status": c.status, "payment_status": c.paymentStatus}))
		n, err := p.Webhook(payload, sign(payload, testWebhookSecret, time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		if n.Session.Paid || string(n.Session.Status) != c.status {
			t.Errorf("%s/%s read as %q, paid %v", c.status, c.paymentStatus, n.Session.Status, n.Session.Paid)
		}
	}
}

// Events of other types come back with their type and no session, for the caller to ignore.
func TestWebhookPassesOtherEventsWithoutASession(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	payload := event(t, "payment_intent.succeeded", stripe.APIVersion,
		map[string]any{"id": "pi_3Qx", "object": "payment_intent", "amount": 1250, "status": "succeeded"})
	n, err := p.Webhook(payload, sign(payload, testWebhookSecret, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	if n.ID != "evt_1QxT" || n.Type != "payment_intent.succeeded" || n.Session != (payments.Session{}) {
		t.Errorf("read %+v, want the id and type alone", n)
	}
}

// A webhook that is not signed now with the endpoint's secret, over this very body, is refused
// as invalid, and the refusal shows no secret.
func TestWebhookRefusesWhatIsNotSignedNowWithTheSecret(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	payload := event(t, string(payments.CheckoutCompleted), stripe.APIVersion, mockSession(t, paidSession))
	tampered := []byte(strings.Replace(string(payload), `"amount_total":1250`, `"amount_total":1`, 1))
	for name, c := range map[string]struct {
		body   []byte
		header string
	}{
		"body changed after signing": {tampered, sign(payload, testWebhookSecret, time.Now())},
		"stale":                      {payload, sign(payload, testWebhookSecret, time.Now().Add(-payments.Tolerance-time.Minute))},
		"from the future":            {payload, sign(payload, testWebhookSecret, time.Now().Add(payments.Tolerance+time.Minute))},
		"from an hour ahead":         {payload, sign(payload, testWebhookSecret, time.Now().Add(time.Hour))},
		"another secret":             {payload, sign(payload, "whsec_another_endpoint", time.Now())},
		"no signature":               {payload, ""},
		"malformed header":           {payload, "t=yesterday,v1=00"},
		"signature not hex":          {payload, "t=" + strconv.FormatInt(time.Now().Unix(), 10) + ",v1=zz"},
	} {
		_, err := p.Webhook(c.body, c.header)
		if errs.CodeOf(err) != errs.InvalidRequest {
			t.Errorf("%s: %v, want InvalidRequest", name, err)
			continue
		}
		if strings.Contains(err.Error(), testWebhookSecret) || strings.Contains(err.Error(), "whsec_") {
			t.Errorf("%s: the error shows a secret: %v", name, err)
		}
	}
	if !strings.Contains(string(tampered), `"amount_total":1,`) {
		t.Fatal("the tampered body is not tampered: the test no longer changes it")
	}
}

// An event rendered in another release train of the API is refused as the service's
// misconfiguration, saying which version the endpoint needs; one of the same train is read.
func TestWebhookRefusesAnotherReleaseTrain(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	session := mockSession(t, paidSession)

	dahlia := event(t, string(payments.CheckoutCompleted), "2026-08-26.dahlia", session)
	_, err := p.Webhook(dahlia, sign(dahlia, testWebhookSecret, time.Now()))
	if errs.CodeOf(err) != errs.Internal || !strings.Contains(err.Error(), stripe.APIVersion) {
		t.Errorf("another release train: %v, want Internal naming %s", err, stripe.APIVersion)
	}

	earlierClover := event(t, string(payments.CheckoutCompleted), "2025-09-30.clover", session)
	if _, err := p.Webhook(earlierClover, sign(earlierClover, testWebhookSecret, time.Now())); err != nil {
		t.Errorf("the same release train: %v", err)
	}
}

// A checkout event that carries no checkout session is invalid.
func TestWebhookRefusesACheckoutEventWithoutASession(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	payload := event(t, string(payments.CheckoutCompleted), stripe.APIVersion,
		map[string]any{"id": "pi_3Qx", "object": "payment_intent"})
	_, err := p.Webhook(payload, sign(payload, testWebhookSecret, time.Now()))
	if errs.CodeOf(err) != errs.InvalidRequest {
		t.Errorf("%v, want InvalidRequest", err)
	}
}

// A signature made within the tolerance of now is read, whether the sender's clock is a little
// behind or a little ahead of the service's.
func TestWebhookTakesASignatureWithinTheToleranceEitherWay(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	payload := event(t, string(payments.CheckoutCompleted), stripe.APIVersion, mockSession(t, paidSession))
	for _, off := range []time.Duration{-payments.Tolerance + time.Minute, payments.Tolerance - time.Minute} {
		if _, err := p.Webhook(payload, sign(payload, testWebhookSecret, time.Now().Add(off))); err != nil {
			t.Errorf("signed %v from now: %v", off, err)
		}
	}
}

// The refund events carry the id of their refund, for the service to read it from Stripe; one
// without a refund is invalid.
func TestWebhookReadsARefundsID(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	refund := map[string]any{"id": "re_3Qx", "object": "refund", "amount": 300, "status": "succeeded",
		"payment_intent": "pi_3Qx", "metadata": map[string]string{"refund_key": "library-refund-co_abc"}}
	for _, typ := range []payments.NotificationType{payments.RefundCreated, payments.RefundUpdated, payments.RefundFailed} {
		payload := event(t, string(typ), stripe.APIVersion, refund)
		n, err := p.Webhook(payload, sign(payload, testWebhookSecret, time.Now()))
		if err != nil {
			t.Fatalf("%s: %v", typ, err)
		}
		if n.Type != typ || n.RefundID != "re_3Qx" || n.Session != (payments.Session{}) {
			t.Errorf("%s read as %+v", typ, n)
		}
	}
	payload := event(t, string(payments.RefundUpdated), stripe.APIVersion, mockSession(t, paidSession))
	if _, err := p.Webhook(payload, sign(payload, testWebhookSecret, time.Now())); errs.CodeOf(err) != errs.InvalidRequest {
		t.Errorf("a refund event about a session: %v, want InvalidRequest", err)
	}
}

// A complete session whose slow payment failed (its PaymentIntent back to wanting a payment
// method, or cancelled) is Failed; one whose payment is still processing is neither paid nor
// failed.
func TestASessionWhosePaymentFailedIsFailed(t *testing.T) {
	t.Parallel()
	p := newProvider(t, stripemock.URL(t))
	for intent, failed := range map[string]bool{"requires_payment_method": true, "canceled": true, "processing": false} {
		changes := map[string]any{"status": "complete", "payment_status": "unpaid",
			"payment_intent": map[string]any{"id": "pi_3Qx", "object": "payment_intent", "status": intent}}
		payload := event(t, string(payments.CheckoutAsyncFailed), stripe.APIVersion, mockSession(t, changes))
		n, err := p.Webhook(payload, sign(payload, testWebhookSecret, time.Now()))
		if err != nil {
			t.Fatal(err)
		}
		if n.Session.Failed != failed || n.Session.Paid {
			t.Errorf("intent %s: failed %v, paid %v; want failed %v, unpaid", intent, n.Session.Failed, n.Session.Paid, failed)
		}
	}
}
