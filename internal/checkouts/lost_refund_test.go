package checkouts_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/payments"
)

// A checkout that gave back an excess once, and then what it paid for a lost copy whose charge
// was taken back, gives that back too: a refund of its own, under the key marked with what was
// given back before, made once, even when its record is lost to a crash and the provider has
// forgotten the key; the money paid at the desk stays as credit.
func TestALostCopysChargeIsGivenBackUnderAKeyOfItsOwn(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	shelf := books.NewService(f.log, aggregate.Options{}, f.clock.Now, books.Policy{LoanPeriod: time.Hour}, f.accounts.Service).
		WithLosses(f.accounts.Service)
	_, err := shelf.Add(f.ctx, books.AddBook{ID: "dune", Title: "Dune", Author: "Frank Herbert", ReplacementPrice: 1000}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = shelf.Lend(f.ctx, "dune", books.LendBook{LoanID: "l1", MemberID: "m-ada"}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = shelf.DeclareLost(f.ctx, "dune", books.DeclareLost{LoanID: "l1"}, aggregate.Origin{})
	require.NoError(t, err)
	require.EqualValues(t, 1000, f.balance("m-ada"), "charged the copy's price")

	// Paid online while 300 more was paid at the desk: 300 came for nothing, and is given back.
	co := f.start("m-ada", "pay-1", 1000)
	_, err = f.accounts.Pay(f.ctx, "m-ada", accounts.Pay{Amount: 300}, aggregate.Origin{})
	require.NoError(t, err)
	f.paid(co)
	_, err = f.handle(f.event("m-ada", "RefundDue"))
	require.NoError(t, err)
	require.Len(t, f.pay.Refunds(), 1)
	assert.Equal(t, payments.RefundKey(co.ID), f.pay.Refunds()[0].Metadata["refund_key"])

	// The copy comes back: the 700 the checkout paid for it is given back through it, the 300
	// paid at the desk stays as credit.
	back, err := shelf.Return(f.ctx, "dune", books.ReturnBook{LoanID: "l1"}, aggregate.Origin{})
	require.NoError(t, err)
	require.Equal(t, "LostCopyReturned", back.Events[0].Type)
	due := f.event("m-ada", "RefundDue")
	f.accounts.failures.Store(1)
	_, err = f.handle(due)
	require.Error(t, err, "the record lost")
	require.Len(t, f.pay.Refunds(), 2, "the provider made it")

	f.clock.Advance(25 * time.Hour)
	_, err = f.handle(due)
	require.NoError(t, err)
	refunds := f.pay.Refunds()
	require.Len(t, refunds, 2, "found, not made again")
	assert.EqualValues(t, 700, refunds[1].Amount)
	assert.Equal(t, payments.RefundKeyAfter(co.ID, 300), refunds[1].Metadata["refund_key"])
	assert.Equal(t, 2, f.count("m-ada", "RefundIssued"))
	assert.EqualValues(t, 1000, f.checkout("m-ada", co.ID).Refunded)
	assert.EqualValues(t, -300, f.balance("m-ada"), "the desk's 300 is credit, for the desk to give back")

	_, err = f.handle(due) // a replay gives back nothing more
	require.NoError(t, err)
	assert.Len(t, f.pay.Refunds(), 2)
}
