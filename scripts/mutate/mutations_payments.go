package main

// paymentMutations break the payment path: the provider's word, refunds made once, checkouts
// bounded.
var paymentMutations = []mutation{
	{
		name:    "checkouts: a completed session is credited before its money arrives",
		file:    "internal/checkouts/reconcile.go",
		find:    "	case s.Paid:",
		replace: "	case s.Paid || s.Status == payments.SessionComplete:",
		pkg:     "./internal/checkouts/",
	},
	{
		name:    "checkouts: a refund's key is the member's, not the checkout's",
		file:    "internal/checkouts/refunds.go",
		find:    "key := payments.RefundKeyAfter(co.ID, co.Refunded)",
		replace: "key := payments.RefundKeyAfter(ask.MemberID, co.Refunded)",
		pkg:     "./internal/checkouts/",
	},
	{
		name:    "checkouts: a checkout whose money is on its way is asked about once",
		file:    "internal/checkouts/reconcile.go",
		find:    "		return processor.Schedule(ctx, timer.Key, s.now().Add(ask.Wait), ask)",
		replace: "		return nil",
		pkg:     "./internal/checkouts/",
	},
	{
		name:    "accounts: a payment's excess is counted against credit too",
		file:    "internal/accounts/checkouts_decide.go",
		find:    "if excess := c.Amount - max(a.Balance, 0); excess > 0 {",
		replace: "if excess := c.Amount - a.Balance; excess > 0 {",
		pkg:     "./internal/accounts/",
	},
	{
		name:    "checkouts: a refund already recorded is asked for again",
		file:    "internal/checkouts/refunds.go",
		find:    "if !ok || co.RefundDue <= 0 || co.RefundFailed != \"\" {",
		replace: "if !ok || co.RefundFailed != \"\" {",
		pkg:     "./internal/checkouts/",
	},
	{
		name:    "checkouts: a refund is made without looking for the one made before",
		file:    "internal/checkouts/refunds.go",
		find:    "refund, found, err := s.Provider.FindRefund(ctx, co.PaymentID, key)",
		replace: "refund, found, err := payments.Refund{}, false, error(nil)",
		pkg:     "./internal/checkouts/",
	},
	{
		name:    "accounts: a pending refund is recorded as given back",
		file:    "internal/accounts/checkouts_decide.go",
		find:    "	case \"succeeded\":",
		replace: "	case \"succeeded\", \"pending\":",
		pkg:     "./internal/accounts/",
	},
	{
		name:    "accounts: a member may open one checkout more than CHECKOUTS_OPEN_MAX",
		file:    "internal/accounts/checkouts_decide.go",
		find:    "openMax > 0 && len(payable) >= openMax {",
		replace: "openMax > 0 && len(payable) > openMax {",
		pkg:     "./internal/accounts/",
	},
	{
		name:    "accounts: settled checkouts are kept for ever",
		file:    "internal/accounts/checkouts.go",
		find:    "drop := settled - EndedKept",
		replace: "drop := settled - EndedKept - 1000",
		pkg:     "./internal/accounts/",
	},
	{
		name:    "stripepay: a webhook signed an hour ahead is read",
		file:    "internal/payments/stripepay/webhook.go",
		find:    "signedAt.After(p.now().Add(payments.Tolerance))",
		replace: "signedAt.After(p.now().Add(100 * payments.Tolerance))",
		pkg:     "./internal/payments/stripepay/",
	},
	{
		name:    "config: a weak webhook secret is taken where money is real",
		file:    "internal/config/payments.go",
		find:    "	if p.real() {",
		replace: "	if false && p.real() {",
		pkg:     "./internal/config/",
	},
	{
		name:    "config: sign-in starts without AUTH_CLIENT_ID",
		file:    "internal/config/check.go",
		find:    "	case c.AuthIssuer != \"\" && c.AuthClientID == \"\":",
		replace: "	case false:",
		pkg:     "./internal/config/",
	},
}
