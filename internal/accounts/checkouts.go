package accounts

import (
	"slices"
	"strings"
	"time"

	"library/internal/errs"
)

// A checkout is a member paying online: the service asks the payment provider for a hosted
// page, the member pays there, and the provider says so when asked (after its webhook, or by
// reconciliation). Money is recorded only from what the provider says, once per checkout: a
// checkout is paid once, however many times it is told. Money that arrives when nothing is
// owed (two tabs, two payments for one fine) is recorded, and its excess is due back: the
// checkouts saga gives it back through the provider and records RefundIssued once the provider
// says the refund succeeded, or RefundFailed when it says it never will.
//
// A member has at most a few checkouts open at once (Limits.OpenCheckouts), and the account
// keeps an ended one only while something can still be recorded against it (a refund still to
// settle), and then among the last EndedKept, for the member's page: its size is bounded by
// the open ones, however many the member started.

// CheckoutStatus is where a checkout is.
type CheckoutStatus string

// The statuses of a checkout.
const (
	CheckoutOpen    CheckoutStatus = "open"
	CheckoutPaid    CheckoutStatus = "paid"
	CheckoutExpired CheckoutStatus = "expired"
	CheckoutFailed  CheckoutStatus = "failed"
)

// CheckoutStarted records that the member started paying Amount online: the provider's
// hosted page, SessionID at the provider, is at URL until ExpiresAt (zero in checkouts started
// before pages had an expiry).
type CheckoutStarted struct {
	CheckoutID string    `json:"checkoutId"`
	Amount     int64     `json:"amount"`
	Currency   string    `json:"currency"`
	SessionID  string    `json:"sessionId"`
	URL        string    `json:"url"`
	ExpiresAt  time.Time `json:"expiresAt,omitzero"`
}

// CheckoutEnded records that a checkout ended unpaid: Status is expired (the page's time ran
// out, or it was ended) or failed (a slow payment method failed after the page).
type CheckoutEnded struct {
	CheckoutID string         `json:"checkoutId"`
	Status     CheckoutStatus `json:"status"`
}

// RefundDue records that a checkout's payment brought Amount more than was owed, to be given
// back through the provider: the payment PaymentID. LoanID is set when it is what was paid for
// a lost copy of that loan, whose charge was taken back when the copy came back (lost.go).
type RefundDue struct {
	CheckoutID string `json:"checkoutId"`
	Amount     int64  `json:"amount"`
	PaymentID  string `json:"paymentId"`
	LoanID     string `json:"loanId,omitempty"`
}

// RefundIssued records that the provider gave Amount back (its refund RefundID): the member is
// owed that much less credit.
type RefundIssued struct {
	CheckoutID string `json:"checkoutId"`
	Amount     int64  `json:"amount"`
	RefundID   string `json:"refundId"`
}

// RefundFailed records that the provider's refund RefundID of a checkout's excess failed or
// was cancelled (Status): nothing was given back, and the member keeps the credit until staff
// settle it by hand.
type RefundFailed struct {
	CheckoutID string `json:"checkoutId"`
	RefundID   string `json:"refundId"`
	Status     string `json:"status"`
}

// EventType names the event in the log; never rename it.
func (CheckoutStarted) EventType() string { return "CheckoutStarted" }

// EventType names the event in the log; never rename it.
func (CheckoutEnded) EventType() string { return "CheckoutEnded" }

// EventType names the event in the log; never rename it.
func (RefundDue) EventType() string { return "RefundDue" }

// EventType names the event in the log; never rename it.
func (RefundIssued) EventType() string { return "RefundIssued" }

// EventType names the event in the log; never rename it.
func (RefundFailed) EventType() string { return "RefundFailed" }

// Checkout is a checkout as the account knows it.
// It is kept in snapshots as it is encoded here.
type Checkout struct {
	ID        string         `json:"id"`
	Amount    int64          `json:"amount"`
	Currency  string         `json:"currency"`
	SessionID string         `json:"sessionId"`
	URL       string         `json:"url"`
	Status    CheckoutStatus `json:"status"`
	// PaymentID is the provider's id of the payment, once paid.
	PaymentID string `json:"paymentId,omitempty"`
	// RefundDue is what is to be given back and not yet given; Refunded what was given back.
	RefundDue int64 `json:"refundDue,omitempty"`
	Refunded  int64 `json:"refunded,omitempty"`
	// RefundFailed is the status of the provider's refund that failed ("failed", "canceled"),
	// if one did: what is due stays due, for staff to give back by hand.
	RefundFailed string `json:"refundFailed,omitempty"`
	// ExpiresAt is when the provider's page stops taking payment (zero: not known).
	ExpiresAt time.Time `json:"expiresAt,omitzero"`
}

// EndedKept is how many ended checkouts with nothing left to record an account keeps, the
// latest, so that the member's page can say what became of them.
const EndedKept = 5

// settled reports whether nothing can be recorded against a checkout any more: it ended
// unpaid (the provider said so), or it was paid and any excess was given back.
func (c Checkout) settled() bool {
	switch c.Status {
	case CheckoutExpired, CheckoutFailed:
		return true
	case CheckoutPaid:
		return c.RefundDue == 0
	}
	return false
}

// Checkout returns the account's checkout of that id.
func (a Account) Checkout(id string) (Checkout, bool) {
	c, ok := a.checkouts[id]
	return c, ok
}

// OpenCheckouts are the checkouts that may still be paid, oldest first.
func (a Account) OpenCheckouts() []Checkout {
	var open []Checkout
	for _, c := range a.checkouts {
		if c.Status == CheckoutOpen {
			open = append(open, c)
		}
	}
	// A page's expiry is its start and the same CHECKOUT_EXPIRES_AFTER for all, so it orders
	// them by start; those from before pages had an expiry come first.
	slices.SortFunc(open, func(x, y Checkout) int {
		if c := x.ExpiresAt.Compare(y.ExpiresAt); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return open
}

// applyCheckout folds the events of checkouts and refunds; ok is false for any other event.
func applyCheckout(a Account, e Event) (Account, bool) {
	switch e := e.(type) {
	case CheckoutStarted:
		a.checkouts = writable(a.checkouts)
		a.checkouts[e.CheckoutID] = Checkout{ID: e.CheckoutID, Amount: e.Amount, Currency: e.Currency,
			SessionID: e.SessionID, URL: e.URL, Status: CheckoutOpen, ExpiresAt: e.ExpiresAt}
	case CheckoutEnded:
		a = changeCheckout(a, e.CheckoutID, func(c *Checkout) { c.Status = e.Status })
	case RefundDue:
		a = changeCheckout(a, e.CheckoutID, func(c *Checkout) { c.RefundDue += e.Amount })
	case RefundIssued:
		a.Balance += e.Amount
		a = changeCheckout(a, e.CheckoutID, func(c *Checkout) {
			c.RefundDue, c.Refunded = max(0, c.RefundDue-e.Amount), c.Refunded+e.Amount
		})
	case RefundFailed:
		a = changeCheckout(a, e.CheckoutID, func(c *Checkout) { c.RefundFailed = e.Status })
	default:
		return a, false
	}
	return a, true
}

// paidCheckout marks the checkout of a payment paid.
func paidCheckout(a Account, e PaymentReceived) Account {
	if e.CheckoutID == "" {
		return a
	}
	return changeCheckout(a, e.CheckoutID, func(c *Checkout) { c.Status, c.PaymentID = CheckoutPaid, e.PaymentID })
}

// changeCheckout changes the account's checkout of that id, if it holds one; one that has
// ended joins the ended, and the oldest settled ones beyond EndedKept are dropped.
func changeCheckout(a Account, id string, change func(*Checkout)) Account {
	c, ok := a.checkouts[id]
	if !ok {
		return a // dropped long ago: nothing more can be recorded against it
	}
	wasOpen := c.Status == CheckoutOpen
	change(&c)
	a.checkouts = writable(a.checkouts)
	a.checkouts[id] = c
	if wasOpen && c.Status != CheckoutOpen {
		a.ended = append(slices.Clip(a.ended), id)
	}
	return dropSettled(a)
}

// dropSettled drops the oldest ended checkouts that are settled, beyond the latest EndedKept.
func dropSettled(a Account) Account {
	settled := 0
	for _, id := range a.ended {
		if a.checkouts[id].settled() {
			settled++
		}
	}
	drop := settled - EndedKept
	if drop <= 0 {
		return a
	}
	kept := make([]string, 0, len(a.ended)-drop)
	for _, id := range a.ended {
		if drop > 0 && a.checkouts[id].settled() {
			delete(a.checkouts, id)
			drop--
			continue
		}
		kept = append(kept, id)
	}
	a.ended = kept
	return a
}

// payableCheckouts are the open checkouts whose page may still take payment at now, oldest
// first: open, and not past their page's expiry (one past it waits only for reconciliation
// to end it).
func (a Account) payableCheckouts(now time.Time) []Checkout {
	return slices.DeleteFunc(a.OpenCheckouts(), func(c Checkout) bool {
		return !c.ExpiresAt.IsZero() && !now.Before(c.ExpiresAt)
	})
}

// OpenCheckout is an open checkout as a TooManyCheckouts refusal names it, for the member to
// go back to its page.
type OpenCheckout struct {
	CheckoutID string    `json:"checkoutId"`
	URL        string    `json:"url"`
	Amount     int64     `json:"amount"`
	ExpiresAt  time.Time `json:"expiresAt,omitzero"`
}

// tooManyCheckouts refuses one more checkout, naming the open ones.
func tooManyCheckouts(open []Checkout) error {
	named := make([]OpenCheckout, len(open))
	ids := make([]string, len(open))
	for i, c := range open {
		named[i] = OpenCheckout{CheckoutID: c.ID, URL: c.URL, Amount: c.Amount, ExpiresAt: c.ExpiresAt}
		ids[i] = c.ID
	}
	return errs.E(errs.TooManyCheckouts,
		"as many payments as a member may have open at once are started and not finished (%s): pay at one of their pages, or wait until they end, before starting another",
		strings.Join(ids, ", ")).With("openCheckouts", named)
}
