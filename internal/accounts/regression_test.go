package accounts_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
)

// The cases below are sequences that TestServiceProperties once found, kept by name so that
// they run on every change, whatever the property test draws.

// A key already on a recorded fine, sent again with a payment the service can't take, is
// refused for the payment's own fault: input is checked before the key is looked up, so the
// caller hears what is wrong with its request, not that its key is in use.
func TestInvalidPaymentUnderARememberedKeyIsRefusedAsInvalid(t *testing.T) {
	ctx := context.Background()
	svc := accounts.NewService(eventstore.NewMemory(nil), aggregate.Options{CommandIDsPerStream: 1})
	key := aggregate.Origin{CommandID: "k1"}

	_, err := svc.ChargeFine(ctx, "bob", accounts.ChargeFine{Amount: 100, Reason: "late"}, key)
	require.NoError(t, err)
	_, err = svc.Pay(ctx, "bob", accounts.Pay{Amount: 0}, key)
	require.Equal(t, errs.InvalidRequest, errs.CodeOf(err), "got %v", err)
}

// A command without a key leaves no command id in the log, and a keyed command that changes
// nothing is still recorded (as NothingChanged) under its key, so its retry is answered from
// the log.
func TestKeylessCommandsLeaveNoCommandIDAndAKeyedNoOpIsRecorded(t *testing.T) {
	ctx := context.Background()
	store := eventstore.NewMemory(nil)
	svc := accounts.NewService(store, aggregate.Options{CommandIDsPerStream: 1})
	contact := accounts.SetContact{Name: "Ann", Email: "ann@example.org"}

	_, err := svc.SetContact(ctx, "bob", contact, aggregate.Origin{})
	require.NoError(t, err)
	first, err := svc.SetContact(ctx, "bob", contact, aggregate.Origin{CommandID: "k1"})
	require.NoError(t, err)
	again, err := svc.SetContact(ctx, "bob", contact, aggregate.Origin{CommandID: "k1"})
	require.NoError(t, err)
	require.True(t, again.Replayed)
	require.Equal(t, first.Version, again.Version)

	events, err := store.ReadStream(ctx, accounts.Type().StreamID("bob"), 0)
	require.NoError(t, err)
	var types, ids []string
	for _, e := range events {
		types = append(types, e.Type)
		ids = append(ids, e.Metadata.CommandID)
	}
	require.Equal(t, []string{"", "k1"}, ids)
	require.Equal(t, aggregate.NothingChanged, types[1])
}
