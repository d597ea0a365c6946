package accounts

import (
	"strconv"

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

// SetContact asks to record a member's name and email address ("" for none). EmailFrom says
// who vouches for the address (EmailFromProvider, EmailFromStaff, or "" while sign-in is off).
// KeepName and KeepEmail keep what the account has instead: a member names themself but their
// address comes from their sign-in, and their sign-in gives an address but not the name they
// chose. A name kept on an account not yet opened is Name.
//
// Its JSON encoding is fingerprinted for Idempotency-Keys: Name and Email keep the names they
// have always had there, and the newer fields are left out when unset.
type SetContact struct {
	Name      string
	Email     string
	EmailFrom string `json:",omitempty"`
	KeepName  bool   `json:",omitempty"`
	KeepEmail bool   `json:",omitempty"`
	// ByStaff: a librarian asks, who may not replace or remove an address that came from the
	// member's sign-in (leaving Email empty keeps it).
	ByStaff bool `json:",omitempty"`
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
// records nothing when nothing changes. An address that came from the member's sign-in is
// theirs: staff can't replace it.
func (c SetContact) Decide(a Account) ([]Event, error) {
	name, email, from := c.Name, c.Email, c.EmailFrom
	if c.KeepName && a.Opened {
		name = a.Name
	}
	if c.KeepEmail {
		email, from = a.Email, a.EmailFrom
	}
	if email == "" {
		from = ""
	}
	if c.ByStaff && a.EmailFrom == EmailFromProvider {
		if email != "" && email != a.Email {
			return nil, errs.E(errs.Forbidden, "this member's email address comes from their sign-in: only they can change it, with their provider")
		}
		email, from = a.Email, a.EmailFrom
	}
	switch {
	case !a.Opened:
		return []Event{AccountOpened{Name: name, Email: email, EmailFrom: from}}, nil
	case a.Name == name && a.Email == email && a.EmailFrom == from:
		return nil, nil
	default:
		return []Event{ContactChanged{Name: name, Email: email, EmailFrom: from}}, nil
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

// Pay asks to pay an amount. AtMostOwed limits it to the balance: a member paying online pays
// what they owe, while a librarian at the desk may take more and leave credit.
type Pay struct {
	Amount     int64 `json:"amount"`
	AtMostOwed bool  `json:"atMostOwed,omitempty"`
}

// Validate checks the fields.
func (c Pay) Validate() error { return validate.Amount("amount", c.Amount) }

// Decide takes the payment; there must be something to pay. Paying more than is owed leaves
// credit.
func (c Pay) Decide(a Account) ([]Event, error) {
	if a.Balance <= 0 {
		return nil, errs.E(errs.NothingToPay, "there is nothing to pay: the balance is %s", errs.Count(a.Balance, "cent", "cents"))
	}
	if c.AtMostOwed && c.Amount > a.Balance {
		return nil, errs.E(errs.Forbidden, "a member pays at most what they owe (%s); more can be paid at the desk", errs.Count(a.Balance, "cent", "cents"))
	}
	return []Event{PaymentReceived{Amount: c.Amount}}, nil
}

// Erase asks to forget the member: only once the account is settled (nothing owed, no
// credit, no book on loan). The account knows the loans made since loans are recorded on it;
// those made before are the caller's to check, in the log.
type Erase struct{}

// Decide records the erasure, once: a second erasure records nothing.
func (Erase) Decide(a Account) ([]Event, error) {
	switch {
	case a.Erased:
		return nil, nil
	case a.Balance != 0:
		return nil, errs.E(errs.AccountNotSettled, "the account is not settled: its balance is %s; settle it before erasing it",
			errs.Count(a.Balance, "cent", "cents"))
	case a.OnLoan() > 0:
		return nil, errs.E(errs.AccountNotSettled, "the account is not settled: %s on loan to this member", BooksStill(a.OnLoan()))
	case len(a.OpenCheckouts()) > 0:
		return nil, errs.E(errs.AccountNotSettled,
			"the account is not settled: a payment started online is still open; it ends when it is paid or expires")
	}
	return []Event{MemberErased{}}, nil
}

// guarded is a command's Decide with what holds for every command: nothing happens to an
// erased account, and a new account may not be opened under an id that looks like an email
// address (member ids are not personal data; existing ones keep working).
func guarded(memberID string, decide func(Account) ([]Event, error)) func(Account) ([]Event, error) {
	return func(a Account) ([]Event, error) {
		switch {
		case a.Erased:
			return nil, errs.E(errs.Gone, "this member's account was erased")
		case !a.Seen && validate.LooksLikeEmail(memberID):
			return nil, errs.E(errs.InvalidRequest,
				"a member id may not look like an email address: member ids are kept for ever, so they must not be personal data; use the id the sign-in provider gives (its sub), or one the library makes")
		}
		return decide(a)
	}
}

// BooksStill says how many books are still somewhere: "1 book is still", "3 books are still".
func BooksStill(n int) string {
	if n == 1 {
		return "1 book is still"
	}
	return strconv.Itoa(n) + " books are still"
}
