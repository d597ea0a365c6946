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

// SetContact asks to record a member's name and email address ("" for none).
type SetContact struct {
	Name  string
	Email string
}

// Decide opens the account the first time, changes the contact details after that, and
// records nothing when nothing changes.
func (c SetContact) Decide(a Account) ([]Event, error) {
	if err := validate.Text("name", c.Name, MaxNameLength); err != nil {
		return nil, err
	}
	if c.Email != "" {
		if err := validate.Email("email", c.Email); err != nil {
			return nil, err
		}
	}
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

// Decide charges the fine. A loan is fined once: a second fine for the same loan records
// nothing.
func (c ChargeFine) Decide(a Account) ([]Event, error) {
	if err := validate.All(
		validate.Amount("amount", c.Amount),
		validate.Text("reason", c.Reason, MaxReasonLength),
	); err != nil {
		return nil, err
	}
	if c.LoanID != "" {
		if err := validate.ID("loanId", c.LoanID); err != nil {
			return nil, err
		}
		if a.Fined(c.LoanID) {
			return nil, nil
		}
	}
	return []Event{FineCharged(c)}, nil
}

// Pay asks to pay an amount.
type Pay struct {
	Amount int64 `json:"amount"`
}

// Decide takes the payment; there must be something to pay. Paying more than is owed leaves credit.
func (c Pay) Decide(a Account) ([]Event, error) {
	if err := validate.Amount("amount", c.Amount); err != nil {
		return nil, err
	}
	if a.Balance <= 0 {
		return nil, errs.E(errs.NothingToPay, "there is nothing to pay: the balance is %d cents", a.Balance)
	}
	return []Event{PaymentReceived(c)}, nil
}
