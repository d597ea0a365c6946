// Package accounts keeps what each member owes the library: the Account aggregate (its events,
// commands and decisions, plain Go with no I/O), its snapshot codec, and the service that runs
// its commands through package aggregate. It imports no HTTP or database package, nor package
// books: the late-fines saga that fines late returns is package latefines, the HTTP handlers
// are package accountsapi.
//
// A member's balance is fines charged minus payments received, in cents; negative is credit.
// There must be something to pay: a payment on a balance of zero or less is refused. A fine
// for a loan is charged once per loan id, however often it is asked for, and a payment is made
// once per Idempotency-Key. A lost copy's replacement is charged once per loan, and taken back
// once, what was paid for it online given back through the checkouts that paid it (lost.go).
package accounts

import (
	"maps"

	"library/internal/aggregate"
)

// Event is an Account event; the same type as aggregate.Event.
type Event = interface{ EventType() string }

// AccountOpened records that the member gave their name, and perhaps an email address, for
// the first time.
type AccountOpened struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	// EmailFrom says where the address came from: EmailFromProvider or EmailFromStaff; empty
	// when it was typed while sign-in was off.
	EmailFrom string `json:"emailFrom,omitempty"`
}

// ContactChanged records that the member's name or email address changed. An empty Email
// removes the address.
type ContactChanged struct {
	Name      string `json:"name"`
	Email     string `json:"email,omitempty"`
	EmailFrom string `json:"emailFrom,omitempty"`
}

// Where an email address came from.
const (
	// EmailFromProvider: the member's sign-in, whose provider vouched for it (email_verified).
	EmailFromProvider = "provider"
	// EmailFromStaff: a librarian, for a member who has never signed in.
	EmailFromStaff = "staff"
)

// FineCharged records that the member owes Amount more. LoanID is set when the fine is for a
// loan. Reason is free text that staff type, and may name or describe the member: the log keeps
// it sealed like their name (fines charged before it was sealed keep theirs in clear).
type FineCharged struct {
	Amount int64  `json:"amount"`
	Reason string `json:"reason"`
	LoanID string `json:"loanId,omitempty"`
}

// MemberErased records that the member asked to be forgotten: their data key was deleted in
// the same transaction, so their name, email and fines' reasons, sealed in the log, can't be
// read again. It holds no personal data.
type MemberErased struct{}

// PaymentReceived records that the member paid Amount: at the desk, or online through a
// checkout (CheckoutID), whose payment the provider knows as PaymentID.
type PaymentReceived struct {
	Amount     int64  `json:"amount"`
	CheckoutID string `json:"checkoutId,omitempty"`
	PaymentID  string `json:"paymentId,omitempty"`
}

// EventType names the event in the log; never rename it.
func (AccountOpened) EventType() string { return "AccountOpened" }

// EventType names the event in the log; never rename it.
func (ContactChanged) EventType() string { return "ContactChanged" }

// EventType names the event in the log; never rename it.
func (FineCharged) EventType() string { return "FineCharged" }

// EventType names the event in the log; never rename it.
func (PaymentReceived) EventType() string { return "PaymentReceived" }

// EventType names the event in the log; never rename it.
func (MemberErased) EventType() string { return "MemberErased" }

// SealPersonal implements aggregate.PersonalEvent: the name and the email are personal.
func (e AccountOpened) SealPersonal(seal func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Name, e.Email, err = sealBoth(seal, e.Name, e.Email)
	return e, err
}

// OpenPersonal implements aggregate.PersonalEvent.
func (e AccountOpened) OpenPersonal(open func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Name, e.Email, err = sealBoth(open, e.Name, e.Email)
	return e, err
}

// SealPersonal implements aggregate.PersonalEvent: the name and the email are personal.
func (e ContactChanged) SealPersonal(seal func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Name, e.Email, err = sealBoth(seal, e.Name, e.Email)
	return e, err
}

// OpenPersonal implements aggregate.PersonalEvent.
func (e ContactChanged) OpenPersonal(open func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Name, e.Email, err = sealBoth(open, e.Name, e.Email)
	return e, err
}

// SealPersonal implements aggregate.PersonalEvent: the reason is personal, as staff may write
// anything about the member in it.
func (e FineCharged) SealPersonal(seal func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Reason, err = seal(e.Reason)
	return e, err
}

// OpenPersonal implements aggregate.PersonalEvent. A reason from before reasons were sealed
// reads as it was written.
func (e FineCharged) OpenPersonal(open func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Reason, err = open(e.Reason)
	return e, err
}

// sealBoth applies f to a name and an email.
func sealBoth(f func(string) (string, error), name, email string) (string, string, error) {
	n, err := f(name)
	if err != nil {
		return "", "", err
	}
	m, err := f(email)
	return n, m, err
}

// Account is the state of one member's account, folded from its events. An account exists as
// soon as anything happens to it: a fine can be charged before the member gives their name.
type Account struct {
	// Seen: something has happened to the account.
	Seen bool
	// Erased: the member was forgotten; nothing more happens to the account.
	Erased bool
	Opened bool
	Name   string
	Email  string
	// EmailFrom is where Email came from (EmailFromProvider, EmailFromStaff, or "").
	EmailFrom string
	// Balance is what the member owes, in cents; negative is credit.
	Balance int64
	// Card is the number of the member's library card, "" for none.
	Card string
	// group is the member's patron group as set (GroupSet), "" for none: Group says which.
	group string
	// pin is the member's PIN for self-check and the count of wrong tries.
	pin pinState
	// finedLoans holds the loan ids that have been fined.
	finedLoans map[string]bool
	// loans holds the loans on the account (loanKey), open now, each with its copy's material
	// type ("" for a loan recorded before copies had one: DefaultMaterialType).
	loans map[string]string
	// checkouts holds the account's online payments, by checkout id: the open ones, and the
	// ended ones listed in ended.
	checkouts map[string]Checkout
	// ended are the ids of the checkouts that ended, in the order they did. Apply never
	// changes it in place, so clones may share it.
	ended []string
	// replacements are the charges for lost copies standing (lost.go), by loanKey.
	replacements map[string]replacement
}

// NewAccount returns the state of an account with no events.
func NewAccount() Account {
	return Account{finedLoans: make(map[string]bool), loans: make(map[string]string), checkouts: make(map[string]Checkout)}
}

// Clone returns a copy of a that Apply can change without changing a. An empty map is not
// copied but left out (nil), and Apply makes one when it first writes to it: a command clones
// the account it decides on, and most accounts have no loan, fine or checkout to copy.
func Clone(a Account) Account {
	a.finedLoans, a.loans, a.checkouts = cloneFull(a.finedLoans), cloneFull(a.loans), cloneFull(a.checkouts)
	a.replacements = cloneFull(a.replacements)
	return a
}

// cloneFull is a copy of m, nil when m is empty.
func cloneFull[K comparable, V any](m map[K]V) map[K]V {
	if len(m) == 0 {
		return nil
	}
	return maps.Clone(m)
}

// writable is m, or a new map when m is nil (as Clone leaves an empty one), for Apply to write to.
func writable[K comparable, V any](m map[K]V) map[K]V {
	if m == nil {
		return make(map[K]V)
	}
	return m
}

// Apply returns the state after e.
func Apply(a Account, e Event) Account {
	a.Seen = true
	switch e := e.(type) {
	case MemberErased:
		a.Erased, a.Name, a.Email, a.EmailFrom, a.Card, a.pin = true, "", "", "", "", pinState{}
	case AccountOpened:
		a.Opened, a.Name, a.Email, a.EmailFrom = true, e.Name, e.Email, e.EmailFrom
	case ContactChanged:
		a.Name, a.Email, a.EmailFrom = e.Name, e.Email, e.EmailFrom
	case FineCharged:
		a.Balance += e.Amount
		if e.LoanID != "" {
			a.finedLoans = writable(a.finedLoans)
			a.finedLoans[e.LoanID] = true
		}
	case PaymentReceived:
		a.Balance -= e.Amount
		a = paidReplacements(paidCheckout(a, e), e)
	case LoanOpened:
		a.loans = writable(a.loans)
		a.loans[loanKey(e.BookID, e.LoanID)] = e.MaterialType
	case LoanClosed:
		delete(a.loans, loanKey(e.BookID, e.LoanID))
	case CardAssigned:
		a.Card = e.CardNumber
	case GroupSet:
		a.group = e.Group
	default:
		var pin bool
		if a.pin, pin = applyPIN(a.pin, e); pin {
			return a
		}
		if lost, ok := applyLost(a, e); ok {
			return lost
		}
		a, _ = applyCheckout(a, e)
	}
	return a
}

// Fined reports whether a fine has been charged for loanID.
func (a Account) Fined(loanID string) bool { return a.finedLoans[loanID] }
