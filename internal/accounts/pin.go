package accounts

import (
	"time"

	"library/internal/aggregate"
	"library/internal/errs"
)

// A member's PIN for self-check: a kiosk knows the member by their library card and this PIN.
// The log keeps only an argon2id hash of it (package secrethash), sealed with the member's data
// key like their name, so that an erasure shreds it. Wrong PINs are counted in the log itself
// (PINRefused), so that every replica counts the same tries: MaxTries wrong ones in a row lock
// the PIN for a while, during which it is not even checked.

// PINSet records the member's new PIN, as its argon2id hash in the PHC format. Hash is
// personal: the log keeps it sealed. A new PIN starts the count of wrong tries over, and ends a
// lockout: the member who set it signed in to do so.
type PINSet struct {
	Hash string `json:"hash,omitempty"`
}

// PINRefused records a wrong PIN tried At. When it is the try that locks the PIN, LockedUntil
// is when the lockout ends: the decision's policy is written down, so that the state folds the
// same whatever policy reads it later.
type PINRefused struct {
	At          time.Time `json:"at"`
	LockedUntil time.Time `json:"lockedUntil,omitzero"`
}

// PINAccepted records a right PIN tried At after wrong ones: the count starts over. A right PIN
// with no wrong one before it records nothing.
type PINAccepted struct {
	At time.Time `json:"at"`
}

// EventType names the event in the log; never rename it.
func (PINSet) EventType() string { return "PINSet" }

// EventType names the event in the log; never rename it.
func (PINRefused) EventType() string { return "PINRefused" }

// EventType names the event in the log; never rename it.
func (PINAccepted) EventType() string { return "PINAccepted" }

// SealPersonal implements aggregate.PersonalEvent: the hash is personal, as a PIN's hash can be
// guessed back from by trying every PIN.
func (e PINSet) SealPersonal(seal func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Hash, err = seal(e.Hash)
	return e, err
}

// OpenPersonal implements aggregate.PersonalEvent.
func (e PINSet) OpenPersonal(open func(string) (string, error)) (aggregate.Event, error) {
	var err error
	e.Hash, err = open(e.Hash)
	return e, err
}

// Shown is an account event as it may be shown to people (a command's answer, the history, an
// export): a PIN's hash is never shown, even opened, to anyone.
func Shown(e Event) Event {
	if _, ok := e.(PINSet); ok {
		return PINSet{}
	}
	return e
}

// pinState is what an account knows of its PIN.
type pinState struct {
	// hash is the PIN's hash, "" for none.
	hash string
	// refused counts the wrong tries since the last right one, the last PIN set, or the start of
	// the last lockout's count.
	refused int
	// lockedUntil is when the last lockout ends (zero: there has been none since the count
	// started over); it may be past.
	lockedUntil time.Time
}

// applyPIN returns the state after a PIN event, and whether e was one.
func applyPIN(p pinState, e Event) (pinState, bool) {
	switch e := e.(type) {
	case PINSet:
		return pinState{hash: e.Hash}, true
	case PINAccepted:
		p.refused, p.lockedUntil = 0, time.Time{}
	case PINRefused:
		if !p.lockedUntil.IsZero() && !e.At.Before(p.lockedUntil) {
			p.refused, p.lockedUntil = 0, time.Time{} // the lockout ended: the count starts over
		}
		p.refused++
		if !e.LockedUntil.IsZero() {
			p.lockedUntil = e.LockedUntil
		}
	default:
		return p, false
	}
	return p, true
}

// PINSet reports whether the member has a PIN.
func (a Account) PINSet() bool { return a.pin.hash != "" }

// SetPIN asks to set the member's PIN. The PIN itself is left out of its JSON encoding, which is
// fingerprinted for Idempotency-Keys and written to the log's metadata: the service hashes it
// first, and the decision records only the hash.
type SetPIN struct {
	PIN string `json:"-"`
}

// Lengths of a PIN, in digits.
const (
	MinPINLength = 4
	MaxPINLength = 8
)

// Validate checks the PIN: 4 to 8 ASCII digits. The refusal names the rule, never the PIN.
func (c SetPIN) Validate() error {
	if !wellFormedPIN(c.PIN) {
		return errs.E(errs.InvalidRequest, "pin must be %d to %d digits (0 to 9)", MinPINLength, MaxPINLength)
	}
	return nil
}

// wellFormedPIN reports whether pin is 4 to 8 ASCII digits.
func wellFormedPIN(pin string) bool {
	if len(pin) < MinPINLength || len(pin) > MaxPINLength {
		return false
	}
	for i := range len(pin) {
		if pin[i] < '0' || pin[i] > '9' {
			return false
		}
	}
	return true
}

// setPIN is the decision of SetPIN once the PIN is hashed: it records the hash.
type setPIN struct {
	hash string
}

// Decide records the new PIN's hash.
func (c setPIN) Decide(Account) ([]Event, error) { return []Event{PINSet{Hash: c.hash}}, nil }

// TryPIN is a kiosk's try of a member's PIN at At. Right reports whether the PIN tried is the
// one hash is of; it is asked only when the PIN may be checked (it is slow, by design, and a
// locked PIN is not checked at all). After MaxTries wrong tries in a row the PIN is locked for
// Lockout.
type TryPIN struct {
	At       time.Time
	MaxTries int
	Lockout  time.Duration
	Right    func(hash string) bool
}

// Decide refuses a try while the PIN is locked (errs.PINLocked), and a try on an account with no
// PIN, or erased (errs.PINInvalid), recording nothing. Otherwise it checks the PIN: a wrong one
// records PINRefused (with the lockout's end when it is the MaxTries-th in a row); a right one
// records PINAccepted when wrong ones came before it, and nothing when none did. The caller
// reads the PINRefused as the refusal it is.
func (c TryPIN) Decide(a Account) ([]Event, error) {
	p := a.pin
	if a.Erased || p.hash == "" {
		return nil, errs.E(errs.PINInvalid, "invalid")
	}
	if !p.lockedUntil.IsZero() {
		if c.At.Before(p.lockedUntil) {
			return nil, errs.E(errs.PINLocked, "this card's PIN can't be used until %s; try again then",
				p.lockedUntil.UTC().Format(time.RFC3339))
		}
		p.refused = 0 // the lockout ended: the count starts over, as Apply will have it
	}
	if c.Right(p.hash) {
		if p.refused == 0 {
			return nil, nil
		}
		return []Event{PINAccepted{At: c.At}}, nil
	}
	refused := PINRefused{At: c.At}
	if p.refused+1 >= c.MaxTries {
		refused.LockedUntil = c.At.Add(c.Lockout)
	}
	return []Event{refused}, nil
}
