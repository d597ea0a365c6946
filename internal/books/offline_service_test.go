package books_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/books"
	"library/internal/errs"
	"library/internal/eventstore"
)

// offlineLibrary is a library whose members may have one book each and owe 500 cents, with
// books b1 to b4 (copies of a title when onTitle, so that the title's queue is read too), and
// the member m1 with b1 out: at the limit.
func offlineLibrary(t *testing.T, onTitle bool) (*books.Service, *accounts.Service, *eventstore.Memory) {
	t.Helper()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	members := accounts.NewService(store, aggregate.Options{}).Limit(accounts.Limits{MaxLoans: 1, BlockAt: 500})
	lib := books.NewService(store, aggregate.Options{}, func() time.Time { return now }, books.Policy{LoanPeriod: loanPeriod}, members)
	if onTitle {
		lib = lib.WithTitles(&shelf{log: store, added: map[string]bool{"dune": true}})
	}
	for i := 1; i <= 4; i++ {
		var err error
		if onTitle {
			_, err = lib.AddCopy(ctx, books.AddCopy{ID: fmt.Sprintf("b%d", i), TitleID: "dune", Barcode: fmt.Sprintf("B%d", i)}, aggregate.Origin{})
		} else {
			_, err = lib.Add(ctx, books.AddBook{ID: fmt.Sprintf("b%d", i), Title: "Dune", Author: "Frank Herbert"}, aggregate.Origin{})
		}
		require.NoError(t, err)
	}
	_, err := lib.Lend(ctx, "b1", books.LendBook{LoanID: "l1", MemberID: "m1"}, aggregate.Origin{})
	require.NoError(t, err)
	return lib, members, store
}

// lentOf is the BookLent a lend recorded.
func lentOf(t *testing.T, res aggregate.Result) books.BookLent {
	t.Helper()
	require.NotEmpty(t, res.Events)
	lent, ok := res.Events[0].Data.(books.BookLent)
	require.True(t, ok, "%T", res.Events[0].Data)
	return lent
}

// A loan reported offline is recorded over the account's rules, naming each it overrode, and
// opened on the account in the same append, whether or not the book is a copy on a title; a
// copy lent to another member, or an erased member, is still refused, and nothing is written.
func TestOfflineLoansOverrideTheAccountsRules(t *testing.T) {
	t.Parallel()
	for _, onTitle := range []bool{false, true} {
		t.Run(fmt.Sprintf("on a title: %v", onTitle), func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			lib, members, store := offlineLibrary(t, onTitle)
			lentAt := nowUTC.Add(-3 * time.Hour)
			kiosk := func(book, loan, member string) (aggregate.Result, error) {
				return lib.Lend(ctx, book, books.LendBook{LoanID: loan, MemberID: member, Offline: &books.Offline{LentAt: lentAt, Reason: "offline"}},
					aggregate.Origin{})
			}

			_, err := lib.Lend(ctx, "b2", books.LendBook{LoanID: "l2", MemberID: "m1"}, aggregate.Origin{})
			require.True(t, errs.Is(err, errs.LoanLimitReached), "online: %v", err)
			res, err := kiosk("b2", "l2", "m1")
			require.NoError(t, err)
			require.Equal(t, books.BookLent{LoanID: "l2", MemberID: "m1", LentAt: lentAt, DueAt: lentAt.Add(loanPeriod), Offline: true,
				OfflineReason: "offline", Overrode: []string{"LoanLimitReached"}}, lentOf(t, res))
			m1, _, err := members.Get(ctx, "m1")
			require.NoError(t, err)
			require.Equal(t, 2, m1.OnLoan(), "the loan is on the account too")

			_, err = members.ChargeFine(ctx, "m2", accounts.ChargeFine{Amount: 501, Reason: "lost a book"}, aggregate.Origin{})
			require.NoError(t, err)
			_, err = lib.Lend(ctx, "b3", books.LendBook{LoanID: "l3", MemberID: "m2"}, aggregate.Origin{})
			require.True(t, errs.Is(err, errs.MemberBlocked), "online: %v", err)
			res, err = kiosk("b3", "l3", "m2")
			require.NoError(t, err)
			require.Equal(t, []string{"MemberBlocked"}, lentOf(t, res).Overrode)

			_, err = members.ChargeFine(ctx, "m1", accounts.ChargeFine{Amount: 600, Reason: "late"}, aggregate.Origin{})
			require.NoError(t, err)
			res, err = kiosk("b4", "l4", "m1")
			require.NoError(t, err)
			require.Equal(t, []string{"LoanLimitReached", "MemberBlocked"}, lentOf(t, res).Overrode, "every rule it overrode, in order")

			again, err := kiosk("b4", "l4", "m1")
			require.NoError(t, err)
			require.False(t, again.Recorded(), "reported again: nothing more")

			unchanged := func(what string, refused func() error, code errs.Code) {
				before, err := store.LastPosition(ctx)
				require.NoError(t, err)
				err = refused()
				require.True(t, errs.Is(err, code), "%s: %v", what, err)
				after, err := store.LastPosition(ctx)
				require.NoError(t, err)
				require.Equal(t, before, after, "%s: nothing is written", what)
			}
			unchanged("the copy is out to another member", func() error { _, err := kiosk("b2", "l5", "m3"); return err }, errs.BookAlreadyLent)
			_, err = members.SetContact(ctx, "m9", accounts.SetContact{Name: "Nine"}, aggregate.Origin{})
			require.NoError(t, err)
			_, err = members.Erase(ctx, "m9", aggregate.Origin{})
			require.NoError(t, err)
			_, err = lib.Return(ctx, "b2", books.ReturnBook{LoanID: "l2"}, aggregate.Origin{})
			require.NoError(t, err)
			unchanged("an erased member", func() error { _, err := kiosk("b2", "l6", "m9"); return err }, errs.Gone)
			unchanged("an id like an email address", func() error { _, err := kiosk("b2", "l7", "new@example.org"); return err }, errs.InvalidRequest)
		})
	}
}

// An online lend still refuses what an offline one overrides, and records no override.
func TestOnlineLoansKeepTheAccountsRules(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	lib, _, _ := offlineLibrary(t, false)
	_, err := lib.Lend(ctx, "b2", books.LendBook{LoanID: "l2", MemberID: "m1", Overrode: []string{"LoanLimitReached"}}, aggregate.Origin{})
	require.True(t, errs.Is(err, errs.LoanLimitReached), "%v", err)
	res, err := lib.Lend(ctx, "b2", books.LendBook{LoanID: "l2", MemberID: "m2"}, aggregate.Origin{})
	require.NoError(t, err)
	require.Equal(t, books.BookLent{LoanID: "l2", MemberID: "m2", LentAt: nowUTC, DueAt: nowUTC.Add(loanPeriod)}, lentOf(t, res))
}
