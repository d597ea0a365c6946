package accounts

import (
	"time"

	"library/internal/errs"
	"library/internal/validate"
)

// StartCheckout asks to start paying Amount online, at most what is owed.
type StartCheckout struct {
	Amount int64 `json:"amount"`
}

// Validate checks the fields.
func (c StartCheckout) Validate() error { return validate.Amount("amount", c.Amount) }

// Decide checks that the checkout may start (Check), then asks open for the provider's page and
// records it. open is the provider's call: it is made only when the checkout may start, and
// must be idempotent (it is made again if the append has to be decided again).
func (c StartCheckout) Decide(a Account, checkoutID string, openMax int, now time.Time,
	open func(amount int64) (CheckoutStarted, error)) ([]Event, error) {
	if _, ok := a.checkouts[checkoutID]; ok {
		return nil, nil // started already: the account shows it
	}
	if err := c.Check(a, openMax, now); err != nil {
		return nil, err
	}
	started, err := open(c.Amount)
	if err != nil {
		return nil, err
	}
	started.CheckoutID, started.Amount = checkoutID, c.Amount
	return []Event{started}, nil
}

// Check refuses a checkout that may not start: nothing to pay, more than is owed, or as many
// checkouts open whose pages still take payment at now as a member may have (openMax; 0: no
// limit).
func (c StartCheckout) Check(a Account, openMax int, now time.Time) error {
	switch {
	case a.Balance <= 0:
		return errs.E(errs.NothingToPay, "there is nothing to pay: the balance is %s", errs.Count(a.Balance, "cent", "cents"))
	case c.Amount > a.Balance:
		return errs.E(errs.InvalidRequest, "amount must be at most what is owed, %s", errs.Count(a.Balance, "cent", "cents"))
	}
	if payable := a.payableCheckouts(now); openMax > 0 && len(payable) >= openMax {
		return tooManyCheckouts(payable)
	}
	return nil
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
// amount or currency) is refused and records nothing. A checkout the account no longer holds
// ended and was settled long ago (the account drops those): told again, it records nothing.
func (c SettleCheckout) Decide(a Account) ([]Event, error) {
	co, ok := a.checkouts[c.CheckoutID]
	switch {
	case !ok:
		return nil, nil
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

// SettleRefund asks to record what the provider says became of the refund of a checkout's
// excess: succeeded, failed or canceled (a refund still pending records nothing). After is what
// had been given back of the checkout when the refund was asked for, which its key carries
// (payments.RefundKeyAfter): 0 for a checkout's first refund.
type SettleRefund struct {
	CheckoutID string `json:"checkoutId"`
	RefundID   string `json:"refundId"`
	Amount     int64  `json:"amount"`
	Status     string `json:"status"`
	After      int64  `json:"after,omitempty"`
}

// Validate checks the fields.
func (c SettleRefund) Validate() error {
	if err := validate.ID("checkoutId", c.CheckoutID); err != nil {
		return err
	}
	if c.RefundID == "" || c.Status == "" || c.Amount < 0 {
		return errs.E(errs.InvalidRequest, "a refund is settled with its id, its status and a whole amount")
	}
	return nil
}

// Decide records a refund that succeeded once, as RefundIssued, and one that failed or was
// cancelled once, as RefundFailed; nothing for a checkout with nothing due, nor for a refund
// asked for before the last one recorded (After), which a late notification may tell of while
// more is due again: what it gave back was recorded then.
func (c SettleRefund) Decide(a Account) ([]Event, error) {
	co, ok := a.checkouts[c.CheckoutID]
	if !ok || co.RefundDue <= 0 || c.After != co.Refunded {
		return nil, nil
	}
	switch c.Status {
	case "succeeded":
		return []Event{RefundIssued{CheckoutID: c.CheckoutID, Amount: min(c.Amount, co.RefundDue), RefundID: c.RefundID}}, nil
	case "failed", "canceled":
		if co.RefundFailed != "" {
			return nil, nil
		}
		return []Event{RefundFailed{CheckoutID: c.CheckoutID, RefundID: c.RefundID, Status: c.Status}}, nil
	}
	return nil, nil
}
