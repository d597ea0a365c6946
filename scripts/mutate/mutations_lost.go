package main

// lostMutations break what lost copies promise: lost at the end of the last open day overdue,
// the timer that follows the loan, the charge on the account, and what paid for it given back
// once.
var lostMutations = []mutation{
	{
		name:    "lost copies: a loan is lost a day early, at the end of its last open day but one overdue",
		file:    "internal/books/lost.go",
		find:    "return cal.PickupUntil(due, calendar.Period{Days: max(lostAfter, 1)})",
		replace: "return cal.PickupUntil(due, calendar.Period{Days: max(lostAfter-1, 1)})",
		pkg:     "./internal/books/",
	},
	{
		name:    "lost copies: a renewal leaves the loan's lost timer where it was",
		file:    "internal/lostloans/saga.go",
		find:    "case books.LoanRenewed:\n\t\treturn s.schedule(ctx, bookID, ev.LoanID, e.Version)",
		replace: "case books.LoanRenewed:\n\t\t_ = ev\n\t\treturn nil",
		pkg:     "./internal/lostloans/",
	},
	{
		name:    "lost copies: a loan is declared lost by a timer that fires again, however often",
		file:    "internal/books/lost.go",
		find:    "if m := b.Missing; m != nil && m.LoanID == c.LoanID && (m.Status == StatusLost || c.At != nil) {",
		replace: "if m := b.Missing; m != nil && m.LoanID == c.LoanID && m.Status == StatusClaimedReturned && c.At != nil {",
		pkg:     "./internal/books/",
	},
	{
		name:    "lost copies: a copy's return takes the charge back but gives back nothing paid online",
		file:    "internal/accounts/lost.go",
		find:    "events = append(events, RefundDue{CheckoutID: co.ID, Amount: back, PaymentID: co.PaymentID, LoanID: c.LoanID})",
		replace: "_ = RefundDue{CheckoutID: co.ID, Amount: back, PaymentID: co.PaymentID, LoanID: c.LoanID}",
		pkg:     "./internal/accounts/",
	},
	{
		name:    "lost copies: a second refund of a checkout is made under its first's key, and gives back nothing",
		file:    "internal/payments/refund.go",
		find:    "return RefundKey(checkoutID) + \"-after-\" + strconv.FormatInt(refunded, 10)",
		replace: "return RefundKey(checkoutID)",
		pkg:     "./internal/checkouts/",
	},
	{
		name:    "lost copies: a loss leaves the loan open on the account, and the member's limits full",
		file:    "internal/accounts/lost.go",
		find:    "\t\tevents = append(events, LoanClosed{BookID: c.BookID, LoanID: c.LoanID})",
		replace: "\t\t_ = key",
		pkg:     "./internal/lostloans/",
	},
}
