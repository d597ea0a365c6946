package web_test

// A sign-in that ends mid-session: the service refuses the token with 401, the page asks the
// person to sign in again, and the payment they were making waits, with its Idempotency-Key,
// until they are back.

import (
	"strings"
	"testing"
)

// refusedToken is a token the service refuses: the signed-in person's own, with its signature
// turned around, as a token whose signature no longer checks out.
func refusedToken(authorization string) string {
	token := strings.TrimPrefix(authorization, "Bearer ")
	dot := strings.LastIndex(token, ".")
	signature := []rune(token[dot+1:])
	for i, j := 0, len(signature)-1; i < j; i, j = i+1, j-1 {
		signature[i], signature[j] = signature[j], signature[i]
	}
	return "Bearer " + token[:dot+1] + string(signature)
}

// A member pays, and the service refuses the checkout's token with 401 (the test swaps the token
// for a broken one on its way out, so that the service's own check says no). The page asks to
// sign in again and keeps the payment: which form, its amount and its key wait in the tab's
// sessionStorage, and the token itself is stored nowhere. After the round trip to the provider
// the form is back with its amount, and pressing Pay sends the checkout under the same
// Idempotency-Key: one page at the payment provider, where the browser goes.
func TestSignInAgainKeepsThePaymentAndItsKey(t *testing.T) {
	t.Parallel()
	l := startPayingLibrary(t, 500, nil)
	tb := l.myAccount(t)
	tb.waitText("region", "Account", "Balance: 5.00 owed")

	checkouts := interceptRequests(tb, "*/accounts/alice/checkouts", func(n int, r intercepted) verdict {
		if n == 0 {
			return verdict{authorization: refusedToken(r.Authorization)}
		}
		return verdict{}
	})
	pay := tb.get("region", "Pay")
	pay.get("textbox", "Amount to pay").fill("3.00")
	pay.get("button", "Pay").click()
	refusal := pay.get("alert", "").waitText("Sign in again, then press Pay once more")
	if !strings.Contains(refusal, "Code: Unauthorized") {
		t.Fatalf("the refusal does not say it is the service's 401: %q", refusal)
	}
	first := checkouts.waitRequests(1)[0]
	if !strings.HasPrefix(first.Authorization, "Bearer ") || first.IdempotencyKey == "" {
		t.Fatalf("the checkout went with Authorization %q and Idempotency-Key %q", first.Authorization, first.IdempotencyKey)
	}
	stored, err := tb.eval(`JSON.stringify([localStorage, sessionStorage, document.cookie, location.href])`)
	if err != nil {
		t.Fatal(err)
	}
	if token := strings.TrimPrefix(first.Authorization, "Bearer "); strings.Contains(stored, token) {
		t.Fatalf("the access token is stored: %s", stored)
	}
	if !strings.Contains(stored, first.IdempotencyKey) {
		t.Fatalf("the payment's key is not kept for after the sign-in: %s", stored)
	}
	tb.get("banner", "").get("button", "Sign in") // the refused token is forgotten

	pay.get("button", "Sign in again").click()
	signInAtProvider(tb, "alice")
	pay = tb.get("region", "Pay")
	pay.get("status", "").waitText("You are signed in again. Press Pay to go on to the payment page")
	if amount, err := pay.get("textbox", "Amount to pay").call(`function() { return this.value; }`); err != nil || amount != "3.00" {
		t.Fatalf("the amount is %q (%v) after the sign-in, want 3.00", amount, err)
	}
	if stored, err := tb.eval(`JSON.stringify(sessionStorage)`); err != nil || strings.Contains(stored, first.IdempotencyKey) {
		t.Fatalf("the payment's key is still stored once it is back in the form (%v): %s", err, stored)
	}
	if n := len(l.pay.Sessions()); n != 0 {
		t.Fatalf("%d pages at the provider after a 401, want 0", n)
	}
	pay.get("button", "Pay").click()
	tb.get("form", "Payment") // the provider's page
	requests := checkouts.waitRequests(2)
	if key := requireOneKey(t, requests); key != first.IdempotencyKey {
		t.Fatalf("the checkout went with %q after the sign-in, %q before", key, first.IdempotencyKey)
	}
	if len(requests) != 2 {
		t.Fatalf("%d checkout requests, want the refused one and one after the sign-in", len(requests))
	}
	if sessions := l.pay.Sessions(); len(sessions) != 1 || sessions[0].AmountTotal != 300 {
		t.Fatalf("pages at the provider: %+v, want one of 3.00", sessions)
	}
}
