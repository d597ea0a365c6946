package accounts

import (
	"library/internal/errs"
	"library/internal/validate"
)

// A checkout is a member paying online: the service asks the payment provider for a hosted
// page, the member pays there, and the provider says so (a signed webhook, or reconciliation
// asking it). Money is recorded only from what the provider says, once per checkout: a
// checkout is paid once, however many times it is told. Money that arrives when nothing is
// owed (two tabs, two payments for one fine) is recorded, and its excess is due back: the
// refunds saga gives it back through the provider and records RefundIssued.

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
// hosted page, SessionID at the provider, is at URL.
type CheckoutStarted struct {
	CheckoutID string `json:"checkoutId"`
	Amount     int64  `json:"amount"`
	Currency   string `json:"currency"`
	SessionID  string `json:"sessionId"`
	URL        string `json:"url"`
}

// CheckoutEnded records that a checkout ended unpaid: Status is expired (the page's time ran
// out, or it was ended) or failed (a slow payment method failed after the page).
type CheckoutEnded struct {
	CheckoutID string         `json:"checkoutId"`
	Status     CheckoutStatus `json:"status"`
}

// RefundDue records that a checkout's payment brought Amount more than was owed, to be given
// back through the provider: the payment PaymentID.
type RefundDue struct {
	CheckoutID string `json:"checkoutId"`
	Amount     int64  `json:"amount"`
	PaymentID  string `json:"paymentId"`
}

// RefundIssued records that the provider gave Amount back (its refund RefundID): the member is
// owed that much less credit.
type RefundIssued struct {
	CheckoutID string `json:"checkoutId"`
	Amount     int64  `json:"amount"`
	RefundID   string `json:"refundId"`
}

// EventType names the event in the log; never rename it.
func (CheckoutStarted) EventType() string { return "CheckoutStarted" }

// EventType names the event in the log; never rename it.
func (CheckoutEnded) EventType() string { return "CheckoutEnded" }

// EventType names the event in the log; never rename it.
func (RefundDue) EventType() string { return "RefundDue" }

// EventType names the event in the log; never rename it.
func (RefundIssued) EventType() string { return "RefundIssued" }

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
}

// Checkout returns the account's checkout of that id.
func (a Account) Checkout(id string) (Checkout, bool) {
	c, ok := a.checkouts[id]
	return c, ok
}

// OpenCheckouts counts the checkouts that may still be paid.
func (a Account) OpenCheckouts() int {
	n := 0
	for _, c := range a.checkouts {
		if c.Status == CheckoutOpen {
			n++
		}
	}
	return n
}

// applyCheckout folds the events of checkouts and refunds; ok is false for any other event.
func applyCheckout(a Account, e Event) (Account, bool) {
	switch e.(type) {
	case CheckoutStarted, CheckoutEnded, RefundDue, RefundIssued:
		a.checkouts = writable(a.checkouts)
	}
	switch e := e.(type) {
	case CheckoutStarted:
		a.checkouts[e.CheckoutID] = Checkout{ID: e.CheckoutID, Amount: e.Amount, Currency: e.Currency,
			SessionID: e.SessionID, URL: e.URL, Status: CheckoutOpen}
	case CheckoutEnded:
		c := a.checkouts[e.CheckoutID]
		c.Status = e.Status
		a.checkouts[e.CheckoutID] = c
	case RefundDue:
		c := a.checkouts[e.CheckoutID]
		c.RefundDue += e.Amount
		a.checkouts[e.CheckoutID] = c
	case RefundIssued:
		a.Balance += e.Amount
		c := a.checkouts[e.CheckoutID]
		c.RefundDue, c.Refunded = max(0, c.RefundDue-e.Amount), c.Refunded+e.Amount
		a.checkouts[e.CheckoutID] = c
	default:
		return a, false
	}
	return a, true
}

// paidCheckout marks the checkout of a payment paid.
func paidCheckout(a Account, e PaymentReceived) {
	if c, ok := a.checkouts[e.CheckoutID]; ok && e.CheckoutID != "" {
		c.Status, c.PaymentID = CheckoutPaid, e.PaymentID
		a.checkouts[e.CheckoutID] = c
	}
}

// StartCheckout asks to start paying Amount online, at most what is owed.
type StartCheckout struct {
	Amount int64 `json:"amount"`
}

// Validate checks the fields.
func (c StartCheckout) Validate() error { return validate.Amount("amount", c.Amount) }

// Decide checks that there is Amount to pay, then asks open for the provider's page and
// records it. open is the provider's call: it is made only when the checkout may start, and
// must be idempotent (it is made again if the append has to be decided again).
func (c StartCheckout) Decide(a Account, checkoutID string, open func(amount int64) (CheckoutStarted, error)) ([]Event, error) {
	if _, ok := a.checkouts[checkoutID]; ok {
		return nil, nil // started already: the account shows it
	}
	switch {
	case a.Balance <= 0:
		return nil, errs.E(errs.NothingToPay, "there is nothing to pay: the balance is %s", errs.Count(a.Balance, "cent", "cents"))
	case c.Amount > a.Balance:
		return nil, errs.E(errs.InvalidRequest, "amount must be at most what is owed, %s", errs.Count(a.Balance, "cent", "cents"))
	}
	started, err := open(c.Amount)
	if err != nil {
		return nil, err
	}
	started.CheckoutID, started.Amount = checkoutID, c.Amount
	return []Event{started}, nil
}

// SettleCheckout asks to record what the provider says became of a checkout: paid (with the
// amount and currency it took, and its payment's id), expired or failed.
type SettleCheckout struct {
	CheckoutID string         `json:"checkoutId"`
	SessionID  string         `json:"sessionId"`
	Status     CheckoutStatus `json:"status"`
	Amount     int64          `json:"amount,omitempty"`
	Currency   string         `json:"currency,omitempty"`
	PaymentID  string         `json:"paymentId,omitempty"`
}

// Validate checks the fields.
func (c SettleCheckout) Validate() error {
	if err := validate.ID("checkoutId", c.CheckoutID); err != nil {
		return err
	}
	switch c.Status {
	case CheckoutPaid:
		return validate.Amount("amount", c.Amount)
	case CheckoutExpired, CheckoutFailed:
		return nil
	}
	return errs.E(errs.InvalidRequest, "status must be paid, expired or failed")
}

// Decide records a payment once per checkout, and its excess over what was owed as due back;
// an end once, of an open checkout. What does not match the checkout (another session, another
// amount or currency) is refused and records nothing.
func (c SettleCheckout) Decide(a Account) ([]Event, error) {
	co, ok := a.checkouts[c.CheckoutID]
	switch {
	case !ok:
		return nil, errs.E(errs.InvalidRequest, "this account has no checkout %s", c.CheckoutID)
	case co.SessionID != c.SessionID:
		return nil, errs.E(errs.InvalidRequest, "checkout %s was not made with this session", c.CheckoutID)
	case co.Status == CheckoutPaid:
		return nil, nil // told again: paid once
	case c.Status != CheckoutPaid:
		if co.Status != CheckoutOpen {
			return nil, nil
		}
		return []Event{CheckoutEnded{CheckoutID: c.CheckoutID, Status: c.Status}}, nil
	case c.Amount != co.Amount || c.Currency != co.Currency:
		return nil, errs.E(errs.InvalidRequest, "checkout %s was for %d %s, not %d %s", c.CheckoutID, co.Amount, co.Currency, c.Amount, c.Currency)
	}
	// Money that arrived is recorded, even for a checkout that had expired here: it is real.
	events := []Event{PaymentReceived{Amount: c.Amount, CheckoutID: c.CheckoutID, PaymentID: c.PaymentID}}
	if excess := c.Amount - max(a.Balance, 0); excess > 0 {
		events = append(events, RefundDue{CheckoutID: c.CheckoutID, Amount: excess, PaymentID: c.PaymentID})
	}
	return events, nil
}

// IssueRefund asks to record that the provider gave back what a checkout had due.
type IssueRefund struct {
	CheckoutID string `json:"checkoutId"`
	Amount     int64  `json:"amount"`
	RefundID   string `json:"refundId"`
}

// Decide records the refund once.
func (c IssueRefund) Decide(a Account) ([]Event, error) {
	co, ok := a.checkouts[c.CheckoutID]
	if !ok || co.RefundDue <= 0 {
		return nil, nil
	}
	return []Event{RefundIssued{CheckoutID: c.CheckoutID, Amount: min(c.Amount, co.RefundDue), RefundID: c.RefundID}}, nil
}
