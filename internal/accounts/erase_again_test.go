package accounts_test

import (
	"io"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/eventstore/pgstore"
	"library/internal/pii"
	"library/internal/testkit/pgtest"
)

// A restore of a backup taken before an erasure brings the member's data key back to
// member_keys. Erasing them again, as the runbook says, records nothing (the account holds
// MemberErased already) yet deletes the key again, whether the repeat has no Idempotency-Key,
// the first erasure's (a replay) or a new one; and the key is gone from the keyring's memory
// too, so that nothing of theirs opens again. (A restore is of a database: this is on
// PostgreSQL, whose member_keys the backup's row replaces.)
func TestEraseAgainDeletesARestoredKey(t *testing.T) {
	t.Parallel()
	pool := pgtest.Connect(t, pgtest.NewDatabase(t))
	log := pgstore.New(pool, slog.New(slog.NewTextHandler(io.Discard, nil)))
	t.Cleanup(log.Close)
	restore := func(t *testing.T, owner string, k pii.WrappedKey) {
		t.Helper()
		_, err := pool.Exec(t.Context(), `UPDATE member_keys SET kek_id = $2, wrapped = $3 WHERE owner = $1`, owner, k.KEKID, k.Wrapped)
		require.NoError(t, err)
	}
	ctx := t.Context()
	ring := keyring(log)
	svc := accounts.NewService(log, aggregate.Options{Cipher: ring})

	_, err := svc.SetContact(ctx, "m-erin", accounts.SetContact{Name: "Erin Zweistein", Email: "erin@example.org"}, aggregate.Origin{})
	require.NoError(t, err)
	backup, err := log.DataKey(ctx, "m-erin") // as a backup taken now holds it
	require.NoError(t, err)
	first, err := svc.Erase(ctx, "m-erin", aggregate.Origin{CommandID: "erase-1"})
	require.NoError(t, err)
	require.True(t, first.Recorded(), "MemberErased")
	_, err = log.DataKey(ctx, "m-erin")
	require.ErrorIs(t, err, pii.ErrNoKey, "the erasure deleted the key")

	nameRead := func() string {
		t.Helper()
		_, opened, err := svc.Everything(ctx, "m-erin")
		require.NoError(t, err)
		return opened[0].(accounts.AccountOpened).Name
	}
	for _, again := range []struct{ what, key string }{
		{"without an Idempotency-Key", ""},
		{"with the first erasure's key (a replay)", "erase-1"},
		{"with a new key", "erase-2"},
	} {
		// The restore: the key is back, and the member's name opens again (and the
		// keyring keeps the key in memory).
		restore(t, "m-erin", backup)
		require.Equal(t, "Erin Zweistein", nameRead(), "the restored key opens the name")

		_, err := svc.Erase(ctx, "m-erin", aggregate.Origin{CommandID: again.key})
		require.NoError(t, err, again.what)
		_, err = log.DataKey(ctx, "m-erin")
		require.ErrorIs(t, err, pii.ErrNoKey, "erasing again %s deletes the restored key", again.what)
		seal, err := ring.Sealer(ctx, "m-erin", false)
		require.NoError(t, err)
		require.Nil(t, seal, "erasing again %s drops the key from the keyring's memory", again.what)
		require.Equal(t, pii.Erased, nameRead(), again.what)
	}
	account, _, err := svc.Get(ctx, "m-erin")
	require.NoError(t, err)
	require.True(t, account.Erased)
}
