package accounts

import (
	"library/internal/errs"
	"library/internal/validate"
)

// Longest name and fine reason.
const (
	MaxNameLength   = 200
	MaxReasonLength = 500
)

// Every command has Validate, which checks its fields without looking at any state, and Decide,
// which takes the state and a valid command and returns the events to record (none when there
// is nothing to do) or the reason to refuse. The service validates before it loads anything,
// so bad input is refused even while the store is down.

// SetContact asks to record a member's name and email address ("" for none).
type SetContact struct {
	Name  string
	Email string
}

// Validate checks the fields.
func (c SetContact) Validate() error {
	if err := validate.Text("name", c.Name, MaxNameLength); err != nil {
		return err
	}
	if c.Email != "" {
		return validate.Email("email", c.Email)
	}
	return nil
}

// Decide opens the account the first time, changes the contact details after that, and
// records nothing when nothing changes.
func (c SetContact) Decide(a Account) ([]Event, error) {
	switch {
	case !a.Opened:
		return []Event{AccountOpened(c)}, nil
	case a.Name == c.Name && a.Email == c.Email:
		return nil, nil
	default:
		return []Event{ContactChanged(c)}, nil
	}
}

// ChargeFine asks to charge a fine, for a loan when LoanID is set.
type ChargeFine struct {
	Amount int64  `json:"amount"`
	Reason string `json:"reason"`
	LoanID string `json:"loanId,omitempty"`
}

// Validate checks the fields.
func (c ChargeFine) Validate() error {
	if err := validate.All(
		validate.Amount("amount", c.Amount),
		validate.Text("reason", c.Reason, MaxReasonLength),
	); err != nil {
		return err
	}
	if c.LoanID != "" {
		return validate.ID("loanId", c.LoanID)
	}
	return nil
}

// Decide charges the fine. A loan is fined once: a second fine for the same loan records
// nothing.
func (c ChargeFine) Decide(a Account) ([]Event, error) {
	if c.LoanID != "" && a.Fined(c.LoanID) {
		return nil, nil
	}
	return []Event{FineCharged(c)}, nil
}

// Pay asks to pay an amount.
type Pay struct {
	Amount int64 `json:"amount"`
}

// Validate checks the fields.
func (c Pay) Validate() error { return validate.Amount("amount", c.Amount) }

// Decide takes the payment; there must be something to pay. Paying more than is owed leaves
// credit.
func (c Pay) Decide(a Account) ([]Event, error) {
	if a.Balance <= 0 {
		return nil, errs.E(errs.NothingToPay, "there is nothing to pay: the balance is %d cents", a.Balance)
	}
	return []Event{PaymentReceived(c)}, nil
}
