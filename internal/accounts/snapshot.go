package accounts

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"time"

	"library/internal/aggregate"
)

// snapshotVersion names the encoding of an Account in snapshots: bump it whenever snapshotState
// or what it means changes, so that older snapshots are ignored rather than misread; and with
// an upcaster of an account event that makes Apply keep something new, so that the states
// folded before it are folded again through it (upcasters never touch snapshots).
const snapshotVersion = 8

// snapshotState is an Account as a snapshot keeps it.
type snapshotState struct {
	Seen       bool     `json:"seen"`
	Erased     bool     `json:"erased,omitempty"`
	Opened     bool     `json:"opened"`
	Name       string   `json:"name,omitempty"`
	Email      string   `json:"email,omitempty"`
	EmailFrom  string   `json:"emailFrom,omitempty"`
	Balance    int64    `json:"balance"`
	FinedLoans []string `json:"finedLoans,omitempty"`
	// Loans are the loans open on the account (bookId/loanId); LoanTypes their copies' material
	// types, where one was recorded.
	Loans     []string          `json:"loans,omitempty"`
	LoanTypes map[string]string `json:"loanTypes,omitempty"`
	Group     string            `json:"group,omitempty"`
	// Checkouts are the account's online payments, by id.
	Checkouts []Checkout `json:"checkouts,omitempty"`
	// Ended are the ids of the checkouts that ended, in the order they did.
	Ended []string `json:"ended,omitempty"`
	// Card is the library card's number; PIN its PIN's hash (the snapshot of a state with one
	// is sealed); PINRefused and PINLockedUntil the count of wrong tries and the last lockout.
	Card           string    `json:"card,omitempty"`
	PIN            string    `json:"pin,omitempty"`
	PINRefused     int       `json:"pinRefused,omitempty"`
	PINLockedUntil time.Time `json:"pinLockedUntil,omitzero"`
	// Replacements are the charges for lost copies standing, by loan (bookId/loanId).
	Replacements map[string]replacement `json:"replacements,omitempty"`
}

func snapshotCodec() *aggregate.SnapshotCodec[Account] {
	return &aggregate.SnapshotCodec[Account]{Version: snapshotVersion, Encode: encodeSnapshot, Decode: decodeSnapshot}
}

func encodeSnapshot(a Account) ([]byte, error) {
	return json.Marshal(snapshotState{Seen: a.Seen, Erased: a.Erased, Opened: a.Opened, Name: a.Name, Email: a.Email, EmailFrom: a.EmailFrom,
		Balance: a.Balance, FinedLoans: slices.Sorted(maps.Keys(a.finedLoans)), Loans: slices.Sorted(maps.Keys(a.loans)),
		Checkouts: slices.SortedFunc(maps.Values(a.checkouts), func(x, y Checkout) int { return strings.Compare(x.ID, y.ID) }),
		LoanTypes: loanTypes(a.loans), Group: a.group,
		Ended: a.ended, Card: a.Card, PIN: a.pin.hash, PINRefused: a.pin.refused, PINLockedUntil: a.pin.lockedUntil,
		Replacements: a.replacements})
}

func decodeSnapshot(b []byte) (Account, error) {
	var s snapshotState
	if err := json.Unmarshal(b, &s); err != nil {
		return Account{}, err
	}
	a := NewAccount()
	a.Seen, a.Erased = s.Seen, s.Erased
	a.Opened, a.Name, a.Email, a.EmailFrom, a.Balance = s.Opened, s.Name, s.Email, s.EmailFrom, s.Balance
	for _, id := range s.FinedLoans {
		a.finedLoans[id] = true
	}
	for _, key := range s.Loans {
		a.loans[key] = s.LoanTypes[key]
	}
	a.group = s.Group
	for _, c := range s.Checkouts {
		a.checkouts[c.ID] = c
	}
	a.ended = s.Ended
	if len(s.Replacements) > 0 {
		a.replacements = s.Replacements
	}
	a.Card, a.pin = s.Card, pinState{hash: s.PIN, refused: s.PINRefused, lockedUntil: s.PINLockedUntil}
	return a, nil
}

// loanTypes are the material types of loans that have one, by loan key; nil for none.
func loanTypes(loans map[string]string) map[string]string {
	var types map[string]string
	for key, t := range loans {
		if t != "" {
			if types == nil {
				types = make(map[string]string)
			}
			types[key] = t
		}
	}
	return types
}

// weigh estimates the bytes an Account takes in memory, for the aggregate cache.
func weigh(a Account) int {
	n := 160 + len(a.Name) + len(a.Email) + len(a.EmailFrom) + len(a.Card) + len(a.pin.hash)
	for id := range a.finedLoans {
		n += 48 + len(id) // a map slot and its key
	}
	for key := range a.loans {
		n += 48 + len(key)
	}
	for _, c := range a.checkouts {
		n += 200 + len(c.ID) + len(c.SessionID) + len(c.URL) + len(c.PaymentID) + len(c.RefundFailed)
	}
	for _, id := range a.ended {
		n += 16 + len(id)
	}
	for key, r := range a.replacements {
		n += 64 + len(key) + 40*len(r.Paid)
	}
	return n
}
