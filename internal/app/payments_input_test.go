package app_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/devpay"
	"library/internal/testkit/paytest"
)

// Bad input to the checkouts gets a clear problem, and records nothing: an amount of 0, or more
// than is owed; nothing owed; no key; an unknown checkout.
func TestCheckoutsRefuseBadInput(t *testing.T) {
	t.Parallel()
	_, replicas := payingReplicas(t, 1, nil)
	a := replicas[0]
	fine(t, a, "m-ida", 300, "late")
	post := func(member string, body obj, key string) response {
		headers := []string{}
		if key != "" {
			headers = append(headers, "Idempotency-Key", key)
		}
		return a.Call(t, http.MethodPost, "/accounts/"+member+"/checkouts", body, headers...)
	}
	requireProblem(t, post("m-ida", obj{"amount": 0}, "k0"), http.StatusBadRequest, "InvalidRequest")
	p := requireProblem(t, post("m-ida", obj{"amount": 301}, "k1"), http.StatusBadRequest, "InvalidRequest")
	assert.Contains(t, p.Detail, "at most what is owed, 300 cents")
	requireProblem(t, post("m-ida", obj{"amount": 100}, ""), http.StatusBadRequest, "IdempotencyKeyMissing")
	requireProblem(t, post("m-ida", obj{"amount": "100"}, "k2"), http.StatusBadRequest, "InvalidRequest")
	requireProblem(t, post("m-nobody", obj{"amount": 100}, "k3"), http.StatusConflict, "NothingToPay")
	requireProblem(t, a.Get(t, "/accounts/m-ida/checkouts/co_none"), http.StatusNotFound, "NotFound")
	assert.Equal(t, 1, countEvents(t, a, "m-ida", "FineCharged"))
	assert.Zero(t, countEvents(t, a, "m-ida", "CheckoutStarted"), "nothing recorded")
}

// A webhook is read only with a good signature over its raw body, made within 5 minutes of now
// either way; and even then it is only a hint: what is recorded is what the provider says of the
// session it names, never what the notification carries. A signed notification with another
// amount or currency records the payment as the provider has it; one with another member's
// session records that member's payment, on their account.
func TestWebhookRecordsOnlyWhatTheProviderSays(t *testing.T) {
	t.Parallel()
	pay, replicas := payingReplicas(t, 1, nil)
	a := replicas[0]
	fine(t, a, "m-ann", 300, "late")
	fine(t, a, "m-bob", 300, "late")
	ann, _ := startCheckout(t, a, "m-ann", 300, "pay-ann")
	bob, _ := startCheckout(t, a, "m-bob", 300, "pay-bob")
	pay.Hold("")
	for _, c := range []checkout{ann, bob} {
		_, err := pay.Pay(sessionOf(t, pay, c))
		require.NoError(t, err)
	}
	completed := heldPayload(t, pay, sessionOf(t, pay, ann))
	send := func(payload []byte, signature string) response {
		return a.Send(t, http.MethodPost, "/webhooks/stripe", payload, "Content-Type", "application/json", "Stripe-Signature", signature)
	}
	now := time.Now()
	requireProblem(t, send(completed, devpay.Sign(completed, "whsec_another", now)), http.StatusBadRequest, "InvalidRequest")
	requireProblem(t, send(completed, devpay.Sign(completed, pay.WebhookSecret(), now.Add(-6*time.Minute))), http.StatusBadRequest, "InvalidRequest")
	requireProblem(t, send(completed, devpay.Sign(completed, pay.WebhookSecret(), now.Add(6*time.Minute))), http.StatusBadRequest, "InvalidRequest")
	requireProblem(t, send(completed, devpay.Sign(completed, pay.WebhookSecret(), now.Add(time.Hour))), http.StatusBadRequest, "InvalidRequest")
	requireProblem(t, send(completed, ""), http.StatusBadRequest, "InvalidRequest")
	tampered := bytes.Replace(completed, []byte(`"amount_total":300`), []byte(`"amount_total":30`), 1)
	require.NotEqual(t, completed, tampered)
	requireProblem(t, send(tampered, devpay.Sign(completed, pay.WebhookSecret(), now)), http.StatusBadRequest, "InvalidRequest")
	assert.Zero(t, countEvents(t, a, "m-ann", "PaymentReceived"), "nothing recorded")

	for name, edit := range map[string]func(string) string{
		"another amount":   func(s string) string { return strings.Replace(s, `"amount_total":300`, `"amount_total":30`, 1) },
		"another currency": func(s string) string { return strings.Replace(s, `"currency":"eur"`, `"currency":"usd"`, 1) },
		"another account's session": func(s string) string {
			return strings.ReplaceAll(s, sessionOf(t, pay, ann), sessionOf(t, pay, bob))
		},
	} {
		forged := []byte(edit(string(completed)))
		require.NotEqual(t, string(completed), string(forged), name)
		r := send(forged, devpay.Sign(forged, pay.WebhookSecret(), now))
		require.Equal(t, http.StatusOK, r.Status, "%s: %s", name, r.Body)
	}
	for member, c := range map[string]checkout{"m-ann": ann, "m-bob": bob} {
		assert.Equal(t, "paid", getCheckout(t, a, member, c.CheckoutID).Status, member)
		assert.Equal(t, 1, countEvents(t, a, member, "PaymentReceived"), "%s: paid once", member)
		assert.Zero(t, getAccount(t, a, member).Balance, "%s: 300 recorded, as the provider has it", member)
	}
}

// heldPayload is the body of the held checkout.session.completed of a session.
func heldPayload(t *testing.T, pay *paytest.Provider, sessionID string) []byte {
	t.Helper()
	for _, ev := range pay.Events() {
		if ev.SessionID == sessionID && ev.Type == "checkout.session.completed" {
			var check struct {
				Type string `json:"type"`
			}
			require.NoError(t, json.Unmarshal(ev.Payload, &check))
			return ev.Payload
		}
	}
	t.Fatalf("no completed event for %s", sessionID)
	return nil
}
