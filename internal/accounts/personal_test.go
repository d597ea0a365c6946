package accounts_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/eventstore"
	"library/internal/eventstore/pgstore"
	"library/internal/pii"
	"library/internal/testkit/pgtest"
)

// keyedLog is a store as the service runs accounts on it: the log, and members' data keys.
type keyedLog interface {
	accounts.Log
	pii.Store
}

// forEachKeyedLog runs test, in parallel, on a log of each store: in memory, and on a fresh
// PostgreSQL database.
func forEachKeyedLog(t *testing.T, test func(t *testing.T, log keyedLog)) {
	stores := map[string]func(t *testing.T) keyedLog{
		"memory": func(*testing.T) keyedLog { return eventstore.NewMemory(nil) },
		"postgres": func(t *testing.T) keyedLog {
			store := pgstore.New(pgtest.Connect(t, pgtest.NewDatabase(t)), slog.New(slog.NewTextHandler(io.Discard, nil)))
			t.Cleanup(store.Close)
			return store
		},
	}
	for name, open := range stores {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			test(t, open(t))
		})
	}
}

// keyring is the keyring of members' data keys kept in log, wrapped by a test KEK.
func keyring(log pii.Store) *pii.Keyring {
	return pii.NewKeyring(pii.KEKs{pii.NewKEK("1", [32]byte(bytes.Repeat([]byte{7}, 32)))}, log)
}

// storedFine is a FineCharged as the log holds it.
func storedFine(t *testing.T, e eventstore.Event) accounts.FineCharged {
	t.Helper()
	require.Equal(t, "FineCharged", e.Type)
	var f accounts.FineCharged
	require.NoError(t, json.Unmarshal(e.Data, &f))
	return f
}

// A fine's reason is typed by staff and may name the member, so the log keeps it sealed with
// the member's key, like their name: every reader (a replay, an export) sees it opened, and
// after the member is erased it reads as erased. A reason written before reasons were sealed
// reads as it was written.
func TestFineReasonsAreSealed(t *testing.T) {
	t.Parallel()
	const (
		legacyReason = "Dune, 3 days late"
		reason       = "Erin Q. Member, 12 Elm St, tore a page of Dune"
	)
	forEachKeyedLog(t, func(t *testing.T, log keyedLog) {
		ctx := t.Context()
		before := accounts.NewService(log, aggregate.Options{}) // as the service was before sealing
		_, err := before.ChargeFine(ctx, "m-erin", accounts.ChargeFine{Amount: 100, Reason: legacyReason}, aggregate.Origin{})
		require.NoError(t, err)

		svc := accounts.NewService(log, aggregate.Options{Cipher: keyring(log)})
		fine := accounts.ChargeFine{Amount: 300, Reason: reason}
		first, err := svc.ChargeFine(ctx, "m-erin", fine, aggregate.Origin{CommandID: "fine-1"})
		require.NoError(t, err)
		require.Equal(t, accounts.FineCharged{Amount: 300, Reason: reason}, first.Events[0].Data, "the answer shows the reason")

		stored, err := log.ReadStream(ctx, "account-m-erin", 0)
		require.NoError(t, err)
		require.Len(t, stored, 2)
		require.Equal(t, legacyReason, storedFine(t, stored[0]).Reason, "a reason from before sealing stays as it was")
		sealed := storedFine(t, stored[1])
		require.True(t, pii.IsSealed(sealed.Reason), "the log holds the reason sealed: %s", stored[1].Data)
		require.NotContains(t, string(stored[1].Data), "12 Elm St")
		require.EqualValues(t, 300, sealed.Amount, "the amount is not personal")

		again, err := accounts.NewService(log, aggregate.Options{Cipher: keyring(log)}).
			ChargeFine(ctx, "m-erin", fine, aggregate.Origin{CommandID: "fine-1"})
		require.NoError(t, err)
		require.True(t, again.Replayed)
		require.Equal(t, string(mustJSON(t, first)), string(mustJSON(t, again)), "a replay, read back from the log, is the first answer")

		reasons := func() []string {
			t.Helper()
			_, opened, err := svc.Everything(ctx, "m-erin")
			require.NoError(t, err)
			var out []string
			for _, e := range opened {
				if f, ok := e.(accounts.FineCharged); ok {
					out = append(out, f.Reason)
				}
			}
			return out
		}
		require.Equal(t, []string{legacyReason, reason}, reasons(), "an export reads both")

		_, err = svc.Pay(ctx, "m-erin", accounts.Pay{Amount: 400}, aggregate.Origin{})
		require.NoError(t, err)
		_, err = svc.Erase(ctx, "m-erin", aggregate.Origin{})
		require.NoError(t, err)
		require.Equal(t, []string{legacyReason, pii.Erased}, reasons(),
			"once erased, the sealed reason can't be read; one from before sealing was never sealed")
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}

// A change of contact seals both the new name and the new email: either can be erased only if
// it is sealed. Every reader sees them opened.
func TestContactChangesAreSealed(t *testing.T) {
	t.Parallel()
	forEachKeyedLog(t, func(t *testing.T, log keyedLog) {
		ctx := t.Context()
		svc := accounts.NewService(log, aggregate.Options{Cipher: keyring(log)})
		_, err := svc.SetContact(ctx, "m-ann", accounts.SetContact{Name: "Ann Reader", Email: "ann@example.org"}, aggregate.Origin{})
		require.NoError(t, err)
		_, err = svc.SetContact(ctx, "m-ann", accounts.SetContact{Name: "Ann Writer", Email: "ann.writer@example.org"}, aggregate.Origin{})
		require.NoError(t, err)

		stored, err := log.ReadStream(ctx, "account-m-ann", 0)
		require.NoError(t, err)
		require.Len(t, stored, 2)
		for _, e := range stored {
			var contact struct{ Name, Email string }
			require.NoError(t, json.Unmarshal(e.Data, &contact))
			require.True(t, pii.IsSealed(contact.Name), "%s: the name is sealed: %s", e.Type, e.Data)
			require.True(t, pii.IsSealed(contact.Email), "%s: the email is sealed: %s", e.Type, e.Data)
			for _, plain := range []string{"Ann Reader", "Ann Writer", "@example.org"} {
				require.NotContains(t, string(e.Data), plain)
			}
		}
		require.Equal(t, "ContactChanged", stored[1].Type)
		_, opened, err := svc.Everything(ctx, "m-ann")
		require.NoError(t, err)
		require.Equal(t, accounts.ContactChanged{Name: "Ann Writer", Email: "ann.writer@example.org"}, opened[1])
	})
}
