package accounts_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/errs"
)

// fold is the state after the given events.
func fold(given ...accounts.Event) accounts.Account {
	a := accounts.NewAccount()
	for _, e := range given {
		a = accounts.Apply(a, e)
	}
	return a
}

// decider is any Account command.
type decider interface {
	Validate() error
	Decide(accounts.Account) ([]accounts.Event, error)
}

// decide validates the command, then decides it, as the service does.
func decide(c decider, a accounts.Account) ([]accounts.Event, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c.Decide(a)
}

// decideCase is "given events, when a command, then events or an error code"; balance, when
// not nil, is the balance after the given and the new events.
type decideCase struct {
	name    string
	given   []accounts.Event
	when    decider
	then    []accounts.Event // nil: no events
	err     errs.Code        // "": no error
	balance *int64
}

func bal(n int64) *int64 { return &n }

func run(t *testing.T, tests []decideCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := decide(tt.when, fold(tt.given...))
			if tt.err != "" {
				require.Error(t, err)
				require.True(t, errs.Is(err, tt.err), "want %s, got %v", tt.err, err)
				require.Empty(t, got)
			} else {
				require.NoError(t, err)
				if tt.then == nil {
					require.Empty(t, got, "no events")
				} else {
					require.Equal(t, tt.then, got)
				}
			}
			if tt.balance != nil {
				require.Equal(t, *tt.balance, fold(append(append([]accounts.Event{}, tt.given...), got...)...).Balance)
			}
		})
	}
}

var (
	opened = accounts.AccountOpened{Name: "Ann", Email: "ann@example.org"}
	fine5  = accounts.FineCharged{Amount: 500, Reason: "late", LoanID: "l1"}
	fineNo = accounts.FineCharged{Amount: 200, Reason: "damaged cover"}
	paid7  = accounts.PaymentReceived{Amount: 700}
)

// TestSetContact proves that the first contact opens the account, a change is recorded once,
// a repeat records nothing, and name and email are validated.
func TestSetContact(t *testing.T) {
	t.Parallel()
	run(t, []decideCase{
		{name: "opens the account", when: accounts.SetContact{Name: "Ann", Email: "ann@example.org"}, then: []accounts.Event{opened}},
		{name: "opens without email", when: accounts.SetContact{Name: "Ann"}, then: []accounts.Event{accounts.AccountOpened{Name: "Ann"}}},
		{name: "opens after a fine", given: []accounts.Event{fine5}, when: accounts.SetContact{Name: "Ann"}, then: []accounts.Event{accounts.AccountOpened{Name: "Ann"}}, balance: bal(500)},
		{name: "same values", given: []accounts.Event{opened}, when: accounts.SetContact{Name: "Ann", Email: "ann@example.org"}},
		{name: "same values without email", given: []accounts.Event{accounts.AccountOpened{Name: "Ann"}}, when: accounts.SetContact{Name: "Ann"}},
		{name: "same values after a change", given: []accounts.Event{opened, accounts.ContactChanged{Name: "Bo"}}, when: accounts.SetContact{Name: "Bo"}},
		{name: "name changes", given: []accounts.Event{opened}, when: accounts.SetContact{Name: "Anne", Email: "ann@example.org"},
			then: []accounts.Event{accounts.ContactChanged{Name: "Anne", Email: "ann@example.org"}}},
		{name: "email changes", given: []accounts.Event{opened}, when: accounts.SetContact{Name: "Ann", Email: "ann@example.net"},
			then: []accounts.Event{accounts.ContactChanged{Name: "Ann", Email: "ann@example.net"}}},
		{name: "email removed", given: []accounts.Event{opened}, when: accounts.SetContact{Name: "Ann"},
			then: []accounts.Event{accounts.ContactChanged{Name: "Ann"}}},
		{name: "email added", given: []accounts.Event{accounts.AccountOpened{Name: "Ann"}}, when: accounts.SetContact{Name: "Ann", Email: "ann@example.org"},
			then: []accounts.Event{accounts.ContactChanged{Name: "Ann", Email: "ann@example.org"}}},
		{name: "contact change keeps the balance", given: []accounts.Event{opened, fine5}, when: accounts.SetContact{Name: "X"},
			then: []accounts.Event{accounts.ContactChanged{Name: "X"}}, balance: bal(500)},
		{name: "display-name email", when: accounts.SetContact{Name: "Ann", Email: "Ann <ann@example.org>"}, err: errs.InvalidRequest},
		{name: "header injection in email", given: []accounts.Event{opened}, when: accounts.SetContact{Name: "Ann", Email: "ann@example.org\r\nBcc: x@y"}, err: errs.InvalidRequest},
		{name: "email without at", when: accounts.SetContact{Name: "Ann", Email: "ann.example.org"}, err: errs.InvalidRequest},
		{name: "blank email is not empty", when: accounts.SetContact{Name: "Ann", Email: " "}, err: errs.InvalidRequest},
		{name: "empty name", when: accounts.SetContact{Name: "", Email: "ann@example.org"}, err: errs.InvalidRequest},
		{name: "blank name", given: []accounts.Event{opened}, when: accounts.SetContact{Name: "  "}, err: errs.InvalidRequest},
		{name: "name with newline", when: accounts.SetContact{Name: "Ann\nBcc: x"}, err: errs.InvalidRequest},
		{name: "name too long", when: accounts.SetContact{Name: strings.Repeat("é", accounts.MaxNameLength+1)}, err: errs.InvalidRequest},
		{name: "name at the limit", when: accounts.SetContact{Name: strings.Repeat("é", accounts.MaxNameLength)},
			then: []accounts.Event{accounts.AccountOpened{Name: strings.Repeat("é", accounts.MaxNameLength)}}},
	})
}

// TestChargeFine proves that a fine is validated, adds to the balance, and is charged once per
// loan id.
func TestChargeFine(t *testing.T) {
	t.Parallel()
	run(t, []decideCase{
		{name: "fine for a loan", when: accounts.ChargeFine{Amount: 500, Reason: "late", LoanID: "l1"}, then: []accounts.Event{fine5}, balance: bal(500)},
		{name: "fine without a loan", when: accounts.ChargeFine{Amount: 200, Reason: "damaged cover"}, then: []accounts.Event{fineNo}, balance: bal(200)},
		{name: "smallest amount", when: accounts.ChargeFine{Amount: 1, Reason: "r"}, then: []accounts.Event{accounts.FineCharged{Amount: 1, Reason: "r"}}, balance: bal(1)},
		{name: "largest amount", when: accounts.ChargeFine{Amount: 100_000_000, Reason: "r"},
			then: []accounts.Event{accounts.FineCharged{Amount: 100_000_000, Reason: "r"}}, balance: bal(100_000_000)},
		{name: "zero amount", when: accounts.ChargeFine{Amount: 0, Reason: "r"}, err: errs.InvalidRequest},
		{name: "negative amount", when: accounts.ChargeFine{Amount: -500, Reason: "r"}, err: errs.InvalidRequest},
		{name: "amount too large", when: accounts.ChargeFine{Amount: 100_000_001, Reason: "r"}, err: errs.InvalidRequest},
		{name: "reason required", when: accounts.ChargeFine{Amount: 5}, err: errs.InvalidRequest},
		{name: "blank reason", when: accounts.ChargeFine{Amount: 5, Reason: " \t "}, err: errs.InvalidRequest},
		{name: "reason with control character", when: accounts.ChargeFine{Amount: 5, Reason: "late\x00"}, err: errs.InvalidRequest},
		{name: "reason too long", when: accounts.ChargeFine{Amount: 5, Reason: strings.Repeat("r", accounts.MaxReasonLength+1)}, err: errs.InvalidRequest},
		{name: "invalid loan id", when: accounts.ChargeFine{Amount: 5, Reason: "r", LoanID: "../l1"}, err: errs.InvalidRequest},
		{name: "invalid loan id on a fined loan", given: []accounts.Event{fine5}, when: accounts.ChargeFine{Amount: 5, Reason: "r", LoanID: "l 1"}, err: errs.InvalidRequest},
		{name: "same loan again", given: []accounts.Event{fine5}, when: accounts.ChargeFine{Amount: 500, Reason: "late", LoanID: "l1"}, balance: bal(500)},
		{name: "same loan, other amount", given: []accounts.Event{fine5}, when: accounts.ChargeFine{Amount: 900, Reason: "later", LoanID: "l1"}, balance: bal(500)},
		{name: "same loan after a payment", given: []accounts.Event{fine5, accounts.PaymentReceived{Amount: 500}}, when: accounts.ChargeFine{Amount: 500, Reason: "late", LoanID: "l1"}, balance: bal(0)},
		{name: "other loan", given: []accounts.Event{fine5}, when: accounts.ChargeFine{Amount: 300, Reason: "late", LoanID: "l2"},
			then: []accounts.Event{accounts.FineCharged{Amount: 300, Reason: "late", LoanID: "l2"}}, balance: bal(800)},
		{name: "fines without a loan repeat", given: []accounts.Event{fineNo}, when: accounts.ChargeFine{Amount: 200, Reason: "damaged cover"},
			then: []accounts.Event{fineNo}, balance: bal(400)},
		{name: "fine on credit", given: []accounts.Event{fine5, paid7}, when: accounts.ChargeFine{Amount: 300, Reason: "r"},
			then: []accounts.Event{accounts.FineCharged{Amount: 300, Reason: "r"}}, balance: bal(100)},
	})
}

// TestPay proves that there must be something to pay, that an overpayment leaves credit, and
// that the amount is validated.
func TestPay(t *testing.T) {
	t.Parallel()
	run(t, []decideCase{
		{name: "nothing ever owed", when: accounts.Pay{Amount: 100}, err: errs.NothingToPay},
		{name: "balance zero", given: []accounts.Event{fine5, accounts.PaymentReceived{Amount: 500}}, when: accounts.Pay{Amount: 100}, err: errs.NothingToPay, balance: bal(0)},
		{name: "balance negative", given: []accounts.Event{fine5, paid7}, when: accounts.Pay{Amount: 100}, err: errs.NothingToPay, balance: bal(-200)},
		{name: "part payment", given: []accounts.Event{fine5}, when: accounts.Pay{Amount: 200},
			then: []accounts.Event{accounts.PaymentReceived{Amount: 200}}, balance: bal(300)},
		{name: "exact payment", given: []accounts.Event{fine5}, when: accounts.Pay{Amount: 500},
			then: []accounts.Event{accounts.PaymentReceived{Amount: 500}}, balance: bal(0)},
		{name: "overpayment leaves credit", given: []accounts.Event{fine5}, when: accounts.Pay{Amount: 700},
			then: []accounts.Event{paid7}, balance: bal(-200)},
		{name: "largest amount", given: []accounts.Event{fine5}, when: accounts.Pay{Amount: 100_000_000},
			then: []accounts.Event{accounts.PaymentReceived{Amount: 100_000_000}}, balance: bal(500 - 100_000_000)},
		{name: "smallest amount", given: []accounts.Event{fine5}, when: accounts.Pay{Amount: 1},
			then: []accounts.Event{accounts.PaymentReceived{Amount: 1}}, balance: bal(499)},
		{name: "zero amount", given: []accounts.Event{fine5}, when: accounts.Pay{Amount: 0}, err: errs.InvalidRequest},
		{name: "negative amount", given: []accounts.Event{fine5}, when: accounts.Pay{Amount: -1}, err: errs.InvalidRequest},
		{name: "amount too large", given: []accounts.Event{fine5}, when: accounts.Pay{Amount: 100_000_001}, err: errs.InvalidRequest},
		{name: "invalid amount beats nothing to pay", when: accounts.Pay{Amount: 0}, err: errs.InvalidRequest},
	})
}

// TestApply proves the fold: fines add, payments subtract, contact events set name and email,
// and fined loans are remembered.
func TestApply(t *testing.T) {
	t.Parallel()
	a := fold(fine5, fineNo, paid7, opened, accounts.ContactChanged{Name: "Bo"})
	require.True(t, a.Opened)
	require.Equal(t, "Bo", a.Name)
	require.Empty(t, a.Email)
	require.Equal(t, int64(500+200-700), a.Balance)
	require.True(t, a.Fined("l1"))
	require.False(t, a.Fined(""))
	require.False(t, a.Fined("l2"))
	require.False(t, accounts.NewAccount().Opened)
}
