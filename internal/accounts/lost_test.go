package accounts_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/accounts"
)

// The events of a loan of dune under l1, lost and charged 2000, and its checkouts.
var (
	openedL1   = accounts.LoanOpened{BookID: "dune", LoanID: "l1"}
	closedL1   = accounts.LoanClosed{BookID: "dune", LoanID: "l1"}
	charged    = accounts.ReplacementCharged{BookID: "dune", LoanID: "l1", Amount: 2000}
	credited   = accounts.ReplacementCredited{BookID: "dune", LoanID: "l1", Amount: 2000}
	startedL1  = accounts.CheckoutStarted{CheckoutID: "co_1", Amount: 2000, Currency: "eur", SessionID: "cs_1", URL: "https://pay.example/cs_1"}
	paidL1     = accounts.PaymentReceived{Amount: 2000, CheckoutID: "co_1", PaymentID: "pi_1"}
	lateFine   = accounts.FineCharged{Amount: 300, Reason: "late", LoanID: "l0"}
	startedFee = accounts.CheckoutStarted{CheckoutID: "co_0", Amount: 300, Currency: "eur", SessionID: "cs_0", URL: "https://pay.example/cs_0"}
	paidFee    = accounts.PaymentReceived{Amount: 300, CheckoutID: "co_0", PaymentID: "pi_0"}
)

func decideLose(charge int64, given ...accounts.Event) []accounts.Event {
	events, err := accounts.Lose{BookID: "dune", LoanID: "l1", Charge: charge}.Decide(fold(given...))
	if err != nil {
		panic(err)
	}
	return events
}

func decideTakeBack(given ...accounts.Event) []accounts.Event {
	events, err := accounts.TakeBack{BookID: "dune", LoanID: "l1"}.Decide(fold(given...))
	if err != nil {
		panic(err)
	}
	return events
}

// A loan declared lost is closed on the account, freeing the member's limits, and its copy
// charged once, as a charge of its own; nothing is charged for no price, nor to an erased
// member, whose loan is closed all the same.
func TestLose(t *testing.T) {
	t.Parallel()
	assert.Equal(t, []accounts.Event{closedL1, charged}, decideLose(2000, openedL1))
	assert.Equal(t, []accounts.Event{charged}, decideLose(2000), "a loan made before accounts kept loans is charged too")
	assert.Equal(t, []accounts.Event{closedL1}, decideLose(0, openedL1), "no price, no charge")
	assert.Empty(t, decideLose(2000, openedL1, closedL1, charged), "charged once")
	assert.Equal(t, []accounts.Event{closedL1}, decideLose(2000, openedL1, accounts.MemberErased{}))

	a := fold(openedL1, closedL1, charged)
	assert.EqualValues(t, 2000, a.Balance)
	assert.Zero(t, a.OnLoan(), "the loan no longer counts against the limits")
	amount, ok := a.Replacement("dune", "l1")
	assert.True(t, ok)
	assert.EqualValues(t, 2000, amount)
	assert.False(t, a.Fined("l1"), "a charge of its own: the loan is not fined")
}

// The charge is taken back when the copy comes back: off the balance while it is owed; what
// it leaves in credit, paid online since the charge, given back through those checkouts, the
// latest first, each for at most what it brought and kept; the rest stays as credit.
func TestTakeBack(t *testing.T) {
	t.Parallel()
	refund := func(checkoutID, paymentID string, amount int64) accounts.RefundDue {
		return accounts.RefundDue{CheckoutID: checkoutID, Amount: amount, PaymentID: paymentID, LoanID: "l1"}
	}
	startedHalf := accounts.CheckoutStarted{CheckoutID: "co_2", Amount: 1200, Currency: "eur", SessionID: "cs_2", URL: "https://pay.example/cs_2"}
	paidHalf := accounts.PaymentReceived{Amount: 1200, CheckoutID: "co_2", PaymentID: "pi_2"}
	startedRest := accounts.CheckoutStarted{CheckoutID: "co_3", Amount: 800, Currency: "eur", SessionID: "cs_3", URL: "https://pay.example/cs_3"}
	paidRest := accounts.PaymentReceived{Amount: 800, CheckoutID: "co_3", PaymentID: "pi_3"}
	for name, c := range map[string]struct {
		given   []accounts.Event
		then    []accounts.Event
		balance int64
	}{
		"unpaid": {given: []accounts.Event{charged}, then: []accounts.Event{credited}},
		"paid online": {given: []accounts.Event{charged, startedL1, paidL1},
			then: []accounts.Event{credited, refund("co_1", "pi_1", 2000)}},
		"paid online in two, the latest first": {given: []accounts.Event{charged, startedHalf, paidHalf, startedRest, paidRest},
			then: []accounts.Event{credited, refund("co_3", "pi_3", 800), refund("co_2", "pi_2", 1200)}},
		"part online, part at the desk": {given: []accounts.Event{charged, startedHalf, paidHalf, accounts.PaymentReceived{Amount: 800}},
			then: []accounts.Event{credited, refund("co_2", "pi_2", 1200)}, balance: -800},
		"part paid, the rest owed": {given: []accounts.Event{charged, startedHalf, paidHalf},
			then: []accounts.Event{credited, refund("co_2", "pi_2", 1200)}},
		"a late fine still owed is paid first": {given: []accounts.Event{lateFine, charged, startedL1, paidL1},
			then: []accounts.Event{credited, refund("co_1", "pi_1", 1700)}},
		"a checkout paid before the charge paid something else": {given: []accounts.Event{lateFine, startedFee, paidFee, charged, accounts.PaymentReceived{Amount: 2000}},
			then: []accounts.Event{credited}, balance: -2000},
		"part of the checkout given back already": {given: []accounts.Event{charged, startedL1, paidL1,
			accounts.RefundDue{CheckoutID: "co_1", Amount: 500, PaymentID: "pi_1"}, accounts.RefundIssued{CheckoutID: "co_1", Amount: 500, RefundID: "re_1"}},
			then: []accounts.Event{credited, refund("co_1", "pi_1", 1500)}},
		"a checkout whose refund failed is the desk's": {given: []accounts.Event{charged, startedL1, paidL1,
			accounts.RefundDue{CheckoutID: "co_1", Amount: 100, PaymentID: "pi_1"}, accounts.RefundFailed{CheckoutID: "co_1", RefundID: "re_1", Status: "failed"}},
			then: []accounts.Event{credited}, balance: -2000},
		"taken back already":  {given: []accounts.Event{charged, credited}},
		"never charged":       {given: []accounts.Event{openedL1, closedL1}},
		"of an erased member": {given: []accounts.Event{charged, startedL1, paidL1, accounts.MemberErased{}}, then: []accounts.Event{credited, refund("co_1", "pi_1", 2000)}},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := decideTakeBack(c.given...)
			require.Equal(t, c.then, got)
			after := fold(append(c.given, got...)...)
			for _, e := range got {
				if due, ok := e.(accounts.RefundDue); ok { // the refund, once the provider says it succeeded
					after = accounts.Apply(after, accounts.RefundIssued{CheckoutID: due.CheckoutID, Amount: due.Amount, RefundID: "re_" + due.CheckoutID})
				}
			}
			if c.then != nil {
				assert.EqualValues(t, c.balance, after.Balance, "what is owed or kept as credit once the money is back")
			}
			_, standing := after.Replacement("dune", "l1")
			assert.False(t, standing, "no charge stands")
		})
	}
}

// A charge standing, and the checkouts paid since it, survive a snapshot.
func TestReplacementsSurviveASnapshot(t *testing.T) {
	t.Parallel()
	a := fold(openedL1, closedL1, charged, startedL1, paidL1)
	codec := accounts.Type().Snapshot
	data, err := codec.Encode(a)
	require.NoError(t, err)
	back, err := codec.Decode(data)
	require.NoError(t, err)
	amount, ok := back.Replacement("dune", "l1")
	require.True(t, ok)
	require.EqualValues(t, 2000, amount)
	events, err := accounts.TakeBack{BookID: "dune", LoanID: "l1"}.Decide(back)
	require.NoError(t, err)
	require.Equal(t, []accounts.Event{credited, accounts.RefundDue{CheckoutID: "co_1", Amount: 2000, PaymentID: "pi_1", LoanID: "l1"}}, events)
}

// A checkout's second refund is recorded against what it asked for: a late word of the first,
// asked for before it was recorded, records nothing while the second is due.
func TestASecondRefundOfACheckout(t *testing.T) {
	t.Parallel()
	first := accounts.RefundDue{CheckoutID: "co_1", Amount: 500, PaymentID: "pi_1"}
	issued := accounts.RefundIssued{CheckoutID: "co_1", Amount: 500, RefundID: "re_1"}
	second := accounts.RefundDue{CheckoutID: "co_1", Amount: 1500, PaymentID: "pi_1", LoanID: "l1"}
	a := fold(charged, startedL1, paidL1, first, issued, credited, second)
	late, err := accounts.SettleRefund{CheckoutID: "co_1", RefundID: "re_1", Amount: 500, Status: "succeeded"}.Decide(a)
	require.NoError(t, err)
	assert.Empty(t, late, "the first refund, told again")
	got, err := accounts.SettleRefund{CheckoutID: "co_1", RefundID: "re_2", Amount: 1500, Status: "succeeded", After: 500}.Decide(a)
	require.NoError(t, err)
	assert.Equal(t, []accounts.Event{accounts.RefundIssued{CheckoutID: "co_1", Amount: 1500, RefundID: "re_2"}}, got)
	co, _ := fold(charged, startedL1, paidL1, first, issued, credited, second, got[0]).Checkout("co_1")
	assert.EqualValues(t, 2000, co.Refunded)
	assert.Zero(t, co.RefundDue)
}
