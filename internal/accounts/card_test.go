package accounts_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/reservations"
)

// Card numbers are letters, digits and hyphens, kept in capitals; the refusal names the rule,
// not the value.
func TestCardNumber(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"lib-0042": "LIB-0042", "21234000567890": "21234000567890", "A": "A",
		"0123456789abcdefghijklmnopqrstuv": "0123456789ABCDEFGHIJKLMNOPQRSTUV"} {
		got, err := accounts.CardNumber("cardNumber", in)
		require.NoError(t, err, in)
		require.Equal(t, want, got)
	}
	for _, in := range []string{"", "-LIB", "LIB.0042", "LIB 0042", "LIB_1", "ÄB12", "0123456789abcdefghijklmnopqrstuvw", "LIB/1"} {
		_, err := accounts.CardNumber("cardNumber", in)
		require.True(t, errs.Is(err, errs.InvalidRequest), "%q: %v", in, err)
		if in != "" {
			require.EqualError(t, err, "InvalidRequest: cardNumber must be 1 to 32 letters, digits and hyphens, starting with a letter or digit")
		}
	}
}

// Given events, when AssignCard, then events.
func TestAssignCardDecides(t *testing.T) {
	t.Parallel()
	c, err := accounts.AssignCard{CardNumber: "lib-1"}.Checked()
	require.NoError(t, err)
	got, err := c.Decide(fold())
	require.NoError(t, err)
	require.Equal(t, []accounts.Event{accounts.CardAssigned{CardNumber: "LIB-1"}}, got)
	got, err = c.Decide(fold(accounts.CardAssigned{CardNumber: "LIB-1"}))
	require.NoError(t, err)
	require.Empty(t, got, "the card the account has: nothing")
	got, err = c.Decide(fold(accounts.CardAssigned{CardNumber: "LIB-0"}))
	require.NoError(t, err)
	require.Equal(t, []accounts.Event{accounts.CardAssigned{CardNumber: "LIB-1"}}, got, "another card")
	require.Empty(t, fold(accounts.CardAssigned{CardNumber: "LIB-1"}, accounts.MemberErased{}).Card, "an erasure forgets the card")
}

// Through the service, on the memory store: a card is one member's; moving to another number
// releases the old one; an erasure releases it too; CardHolder finds the holder.
func TestCardsAreUnique(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	s := accounts.NewService(store, aggregate.Options{})
	assign := func(member, number string) (aggregate.Result, error) {
		return s.AssignCard(ctx, member, accounts.AssignCard{CardNumber: number}, aggregate.Origin{})
	}
	holder := func(number string) string {
		id, err := s.CardHolder(ctx, number)
		if errs.Is(err, errs.NotFound) {
			return ""
		}
		require.NoError(t, err)
		return id
	}

	res, err := assign("alice", "lib-1")
	require.NoError(t, err)
	require.Len(t, res.Events, 1)
	require.Equal(t, "alice", holder("LIB-1"))
	require.Equal(t, "alice", holder("lib-1"), "as written")

	_, err = assign("bob", "LIB-1")
	require.True(t, errs.Is(err, errs.CardTaken), "%v", err)

	res, err = assign("alice", "LIB-1")
	require.NoError(t, err)
	require.Empty(t, res.Events, "the same card again")

	_, err = assign("alice", "LIB-2")
	require.NoError(t, err)
	require.Empty(t, holder("LIB-1"), "moved: the old number is released")
	require.Equal(t, "alice", holder("LIB-2"))
	_, err = assign("bob", "LIB-1")
	require.NoError(t, err, "and may be given again")

	_, err = s.Erase(ctx, "alice", aggregate.Origin{})
	require.NoError(t, err)
	require.Empty(t, holder("LIB-2"), "erased: released")
	stored, err := store.ReadStream(ctx, reservations.StreamID(reservations.Card, "LIB-2"), 0)
	require.NoError(t, err)
	require.Equal(t, []string{"ValueReserved", "ValueReleased"}, []string{stored[0].Type, stored[1].Type})
	_, err = assign("bob", "LIB-2")
	require.NoError(t, err)
	require.Equal(t, "bob", holder("LIB-2"))

	for _, bad := range []string{"", "no such/card", "LIB-404"} {
		_, err = s.CardHolder(ctx, bad)
		require.True(t, errs.Is(err, errs.NotFound), "%q: %v", bad, err)
	}
	_, err = assign("carol", "LIB 3")
	require.True(t, errs.Is(err, errs.InvalidRequest), "%v", err)
}
