package accounts_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/circulation"
	"library/internal/errs"
	"library/internal/eventstore"
)

// A loan made already (a kiosk's, offline) opens on the account whatever the rules say, and
// names each rule that would have refused it, in the order Decide checks them; Decide itself
// still refuses with the first of them.
func TestBorrowOverriding(t *testing.T) {
	t.Parallel()
	limits := accounts.Limits{MaxLoans: 1, BlockAt: 500}
	dune := accounts.LoanOpened{BookID: "dune", LoanID: "l2"}
	out := accounts.LoanOpened{BookID: "emma", LoanID: "l1"}
	owes := accounts.FineCharged{Amount: 501, Reason: "lost a book"}
	for _, c := range []struct {
		name     string
		given    []accounts.Event
		then     []accounts.Event
		overrode []errs.Code
	}{
		{name: "within the rules: nothing overridden", given: []accounts.Event{opened}, then: []accounts.Event{dune}},
		{name: "at the loan limit", given: []accounts.Event{opened, out}, then: []accounts.Event{dune}, overrode: []errs.Code{errs.LoanLimitReached}},
		{name: "owing too much", given: []accounts.Event{opened, owes}, then: []accounts.Event{dune}, overrode: []errs.Code{errs.MemberBlocked}},
		{name: "both", given: []accounts.Event{opened, out, owes}, then: []accounts.Event{dune},
			overrode: []errs.Code{errs.LoanLimitReached, errs.MemberBlocked}},
		{name: "a loan the account holds already: nothing", given: []accounts.Event{opened, dune, owes}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			borrow := accounts.Borrow{BookID: "dune", LoanID: "l2", Limits: limits}
			events, overrode := borrow.DecideOverriding(fold(c.given...))
			require.Equal(t, c.then, events)
			require.Equal(t, c.overrode, overrode)
			_, err := borrow.Decide(fold(c.given...))
			if len(c.overrode) > 0 {
				require.True(t, errs.Is(err, c.overrode[0]), "Decide refuses with the first: %v", err)
			} else {
				require.NoError(t, err)
			}
		})
	}
}

// The service's part: the loan opened at the version read, the rules it overrode; an erased
// member, or an id like an email address for a new account, still refused.
func TestServiceBorrowOverriding(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s := accounts.NewService(eventstore.NewMemory(nil), aggregate.Options{}).Limit(accounts.Limits{MaxLoans: 1})
	part, overrode, err := s.BorrowOverriding(ctx, "m1", "dune", "l1", circulation.LoanLimit{})
	require.NoError(t, err)
	require.Empty(t, overrode)
	require.Equal(t, accounts.Type().StreamID("m1"), part.StreamID)
	require.Equal(t, []aggregate.Event{accounts.LoanOpened{BookID: "dune", LoanID: "l1"}}, part.Events)

	_, err = s.SetContact(ctx, "m2", accounts.SetContact{Name: "Two"}, aggregate.Origin{})
	require.NoError(t, err)
	_, err = s.Erase(ctx, "m2", aggregate.Origin{})
	require.NoError(t, err)
	_, _, err = s.BorrowOverriding(ctx, "m2", "dune", "l2", circulation.LoanLimit{})
	require.True(t, errs.Is(err, errs.Gone), "%v", err)
	_, _, err = s.BorrowOverriding(ctx, "new@example.org", "dune", "l2", circulation.LoanLimit{})
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
}
