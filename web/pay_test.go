package web_test

// Paying from the member's page, the way the service was built for: one Idempotency-Key per
// payment intent, whatever the person or the network does to it.

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"library/internal/app"
	"library/internal/testkit/pgtest"
)

// openAccountOwing opens memberID's account and charges it a fine of cents.
func openAccountOwing(t *testing.T, base, memberID, name string, cents int) {
	t.Helper()
	mustCall(t, http.MethodPut, base+"/accounts/"+memberID, map[string]any{"name": name, "email": memberID + "@example.org"}, http.StatusCreated)
	mustCall(t, http.MethodPost, base+"/accounts/"+memberID+"/fines", map[string]any{"amount": cents, "reason": "Dune, 20 days late"}, http.StatusCreated)
}

// requireOneKey checks that every request carried the same Idempotency-Key, and returns it.
func requireOneKey(t *testing.T, requests []intercepted) string {
	t.Helper()
	if len(requests) == 0 {
		t.Fatal("no request was sent")
	}
	key := requests[0].IdempotencyKey
	if key == "" {
		t.Fatalf("the request was sent without an Idempotency-Key")
	}
	for i, r := range requests {
		if r.IdempotencyKey != key {
			t.Fatalf("request %d carried the key %q; the first carried %q", i, r.IdempotencyKey, key)
		}
	}
	return key
}

// A double click on Pay records one payment. The first answer is held back while the second
// click lands, so the payment is surely in flight then: the button is disabled, and a submit
// that reaches the form anyway (as Enter does in some browsers and assistive technology) joins
// the payment in flight instead of sending another. The log has exactly one PaymentReceived,
// the outcome is shown once, and a new payment afterwards is a new intent with a new key.
func TestPayDoubleClickRecordsOnePayment(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	db := pgtest.Connect(t, databaseURL)
	base := startService(t, app.Config{DatabaseURL: databaseURL, WebUI: true})
	openAccountOwing(t, base, "alice", "Alice Liddell", 500)

	tb := newTab(t)
	release := make(chan struct{})
	payments := intercept(tb, "*/accounts/alice/payments", func(n int, _ intercepted) verdict {
		if n == 0 {
			return verdict{hold: release}
		}
		return verdict{}
	})
	tb.open(base + "/#/members/alice")
	tb.get("heading", "Alice Liddell")
	pay := tb.get("region", "Pay")
	pay.get("textbox", "Amount to pay").fill("3.00")
	button := pay.get("button", "Pay")
	button.doubleClick()
	payments.waitRequests(1) // the service has answered; the page has not seen it yet
	if !button.disabled() {
		t.Fatal("the Pay button is enabled while the payment is in flight")
	}
	if _, err := button.call(`function() { this.form.requestSubmit(); return ""; }`); err != nil {
		t.Fatal(err)
	}
	close(release)

	outcome := pay.get("status", "")
	text := outcome.waitText("Payment of 3.00 received.")
	tb.waitFor("the Pay button to be enabled again", func() bool { return !button.disabled() })
	if n := strings.Count(tb.get("region", "Pay").text(), "received"); n != 1 || strings.Contains(text, "already") {
		t.Fatalf("the outcome is shown %d times, or as a replay: %q", n, text)
	}
	key := requireOneKey(t, payments.requests())
	if n := countEvents(t, db, "account-alice", "PaymentReceived"); n != 1 {
		t.Fatalf("%d PaymentReceived events after a double click, want 1", n)
	}
	tb.waitText("region", "Account", "Balance: 2.00 owed")
	screenshot(tb, "member")

	// Another payment, after the outcome: a new intent, with a new key, recorded too.
	pay.get("textbox", "Amount to pay").fill("1.00")
	button.click()
	outcome.waitText("Payment of 1.00 received.")
	requests := payments.requests()
	if last := requests[len(requests)-1].IdempotencyKey; last == key || last == "" {
		t.Fatalf("the second payment was sent with the key %q; the first had %q", last, key)
	}
	if n := countEvents(t, db, "account-alice", "PaymentReceived"); n != 2 {
		t.Fatalf("%d PaymentReceived events after two payments, want 2", n)
	}
	tb.waitText("region", "Account", "Balance: 1.00 owed")
}

// The service records a payment, and its answer is lost on the way back: the page sees a
// network error (the test fails the request at the response stage, after the service answered).
// The page sends the payment again with the same key; the service answers with the first
// answer, replayed, and the page says that this payment was received, as it was: the person
// clicked once, and "already made" would read as "not paid". One payment is recorded.
func TestPayLostAnswerIsRetriedWithTheSameKey(t *testing.T) {
	t.Parallel()
	databaseURL := pgtest.NewDatabase(t)
	db := pgtest.Connect(t, databaseURL)
	base := startService(t, app.Config{DatabaseURL: databaseURL, WebUI: true})
	openAccountOwing(t, base, "bob", "Bob Dylan", 500)

	tb := newTab(t)
	payments := intercept(tb, "*/accounts/bob/payments", func(n int, _ intercepted) verdict {
		return verdict{fail: n == 0}
	})
	tb.open(base + "/#/members/bob")
	tb.get("heading", "Bob Dylan")
	pay := tb.get("region", "Pay")
	pay.get("textbox", "Amount to pay").fill("3.00")
	pay.get("button", "Pay").click()

	text := pay.get("status", "").waitText("Payment of 3.00 received.")
	requests := payments.waitRequests(2)
	requireOneKey(t, requests)
	if requests[0].Status != http.StatusCreated {
		t.Fatalf("the first attempt's answer (lost on the way) was %d, want 201: the service recorded it", requests[0].Status)
	}
	last := requests[len(requests)-1]
	if last.Status != http.StatusCreated || last.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("the retry was answered %d with Idempotent-Replayed %q, want the first answer replayed", last.Status, last.Header.Get("Idempotent-Replayed"))
	}
	if strings.Count(pay.text(), "received") != 1 || strings.Contains(text, "already") {
		t.Fatalf("the outcome should be shown once, as this payment's success: %q", pay.text())
	}
	if n := countEvents(t, db, "account-bob", "PaymentReceived"); n != 1 {
		t.Fatalf("%d PaymentReceived events, want 1", n)
	}
	tb.waitText("region", "Account", "Balance: 2.00 owed")
}

// The Pay panel as a new user reads it. The amount field is empty, its example a hint beside
// it rather than a placeholder that looks filled in, and a payment recorded empties it again.
// A payment of all that is owed clears the form away: the panel says, once, that there is nothing to pay, in the page's own amounts. A
// payment from a page that still shows a balance, paid meanwhile elsewhere, is refused in one
// sentence in those amounts too (the account's read is held back, so that the refusal is seen),
// which gives way to the panel's own sentence once the account is read again.
func TestPayPanelSaysNothingToPayOnce(t *testing.T) {
	t.Parallel()
	base := startService(t, app.Config{DatabaseURL: pgtest.NewDatabase(t), WebUI: true})
	openAccountOwing(t, base, "bob", "Bob Dylan", 300)

	tb := newTab(t)
	var holdNext atomic.Bool
	release := make(chan struct{})
	intercept(tb, "*/accounts/bob", func(_ int, r intercepted) verdict {
		if r.Method == http.MethodGet && holdNext.CompareAndSwap(true, false) {
			return verdict{hold: release}
		}
		return verdict{}
	})
	tb.open(base + "/#/members/bob")
	tb.waitText("region", "Account", "Balance: 3.00 owed")
	pay := tb.get("region", "Pay")
	amount := pay.get("textbox", "Amount to pay")
	requireHint(t, amount, "For example 3.50.")
	fine := tb.get("region", "Charge a fine")
	requireHint(t, fine.get("textbox", "Fine amount"), "For example 2.00.")
	requireAccessible(tb, "a member's page, owing")

	amount.fill("1.00")
	button := pay.get("button", "Pay")
	button.click()
	pay.get("status", "").waitText("Payment of 1.00 received.")
	tb.waitText("region", "Account", "Balance: 2.00 owed")
	tb.waitFor("the Pay button to be enabled again", func() bool { return !button.disabled() })
	if value, err := amount.call(`function() { return this.value; }`); err != nil || value != "" {
		t.Fatalf("the amount says %q (%v) after the payment, want it cleared", value, err)
	}
	amount.fill("2.00")
	button.click()
	pay.get("status", "").waitText("Payment of 2.00 received.")
	pay.waitText("Nothing to pay: the balance is 0.00.")
	requireAbsent(tb, "textbox", "Amount to pay", "button", "Pay")
	requireAccessible(tb, "a member's page, paid up")

	fine.get("textbox", "Fine amount").fill("1.00")
	fine.get("textbox", "Reason").fill("Lost bookmark")
	fine.get("button", "Charge fine").click()
	tb.waitText("region", "Account", "Balance: 1.00 owed")
	amount = pay.get("textbox", "Amount to pay")
	if status, b := callAPI(t, http.MethodPost, base+"/accounts/bob/payments", map[string]any{"amount": 100},
		"Idempotency-Key", "paid-elsewhere"); status != http.StatusCreated {
		t.Fatalf("pay elsewhere: %d %s", status, b)
	}

	holdNext.Store(true)
	tb.waitFor("the Pay button to be enabled", func() bool { return !button.disabled() })
	amount.fill("1.00")
	button.click()
	refusal := pay.get("alert", "").waitText("There is nothing to pay: the balance is 0.00.")
	if n := strings.Count(strings.ToLower(refusal), "nothing to pay"); n != 1 || strings.Contains(refusal, "cents") {
		t.Fatalf("the refusal says nothing to pay %d times, or in cents: %q", n, refusal)
	}
	close(release)
	pay.waitText("Nothing to pay: the balance is 0.00.")
	tb.waitFor("the refusal to give way to the panel's sentence", func() bool {
		found, err := tb.queryAX(0, "alert", "")
		return err == nil && len(found) == 0
	})
	requireAbsent(tb, "textbox", "Amount to pay")
	if n := strings.Count(strings.ToLower(pay.text()), "nothing to pay"); n != 1 {
		t.Fatalf("the Pay panel says nothing to pay %d times: %q", n, pay.text())
	}
}

// requireHint fails the test unless the field e has no placeholder, which would look like an
// amount already filled in, and is described by a hint that says want.
func requireHint(t *testing.T, e *element, want string) {
	t.Helper()
	described, err := e.call(`function() {
		const hint = document.getElementById(this.getAttribute("aria-describedby") ?? "");
		return JSON.stringify([this.placeholder, hint ? hint.textContent : ""]);
	}`)
	if wantJSON, _ := json.Marshal([]string{"", want}); err != nil || described != string(wantJSON) {
		t.Fatalf("%s has the placeholder and hint %s (%v), want no placeholder and the hint %q", e, described, err, want)
	}
}
