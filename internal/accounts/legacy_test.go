package accounts_test

import (
	"bytes"
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"library/internal/accounts"
	"library/internal/aggregate"
	"library/internal/errs"
	"library/internal/eventstore"
	"library/internal/pii"
)

// loads is a log that records what each cold load of a stream read: its snapshot (nil for
// none), and how many events after it.
type loads struct {
	keyedLog
	mu        sync.Mutex
	snapshots []*eventstore.Snapshot
	tails     []int
}

func (l *loads) LoadStream(ctx context.Context, streamID string, schemaVersion int) (*eventstore.Snapshot, []eventstore.Event, error) {
	snap, tail, err := l.keyedLog.LoadStream(ctx, streamID, schemaVersion)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.snapshots, l.tails = append(l.snapshots, snap), append(l.tails, len(tail))
	return snap, tail, err
}

// openedBeforeSealing opens m-old's account as the service did before it sealed personal
// values (and before it kept snapshots): name, email and fines' reasons in clear in the log,
// and no data key. fines fines of 1 cent follow the opening.
func openedBeforeSealing(t *testing.T, log keyedLog, fines int) {
	t.Helper()
	ctx := t.Context()
	before := accounts.NewService(log, aggregate.Options{SnapshotEvery: -1})
	_, err := before.SetContact(ctx, "m-old", accounts.SetContact{Name: "Olga Oldtimer", Email: "olga@example.org"}, aggregate.Origin{})
	require.NoError(t, err)
	for range fines {
		_, err := before.ChargeFine(ctx, "m-old", accounts.ChargeFine{Amount: 1, Reason: "late"}, aggregate.Origin{})
		require.NoError(t, err)
	}
	_, err = log.DataKey(ctx, "m-old")
	require.ErrorIs(t, err, pii.ErrNoKey, "an account from before sealing has no key")
}

// An account opened before personal values were sealed holds its name and email in clear in
// the log, and has no data key. It gets one when its first snapshot is written, and the
// snapshot, sealed with it, spares every later cold load the whole stream.
func TestAnAccountFromBeforeSealingGetsASnapshot(t *testing.T) {
	t.Parallel()
	forEachKeyedLog(t, func(t *testing.T, log keyedLog) {
		ctx := t.Context()
		openedBeforeSealing(t, log, 24)
		opts := aggregate.Options{Cipher: keyring(log), SnapshotEvery: 10}
		account, version, err := accounts.NewService(log, opts).Get(ctx, "m-old") // a long read: a snapshot is due
		require.NoError(t, err)
		require.EqualValues(t, 25, version)
		require.Equal(t, "Olga Oldtimer", account.Name)
		_, err = log.DataKey(ctx, "m-old")
		require.NoError(t, err, "the snapshot made the account its key")

		counted := &loads{keyedLog: log}
		cold, coldVersion, err := accounts.NewService(counted, opts).Get(ctx, "m-old") // another replica: nothing kept
		require.NoError(t, err)
		require.Equal(t, account, cold)
		require.Equal(t, version, coldVersion)
		require.Len(t, counted.snapshots, 1)
		snap := counted.snapshots[0]
		require.NotNil(t, snap, "the cold load read the snapshot")
		require.EqualValues(t, 25, snap.Version)
		require.Equal(t, []int{0}, counted.tails, "and no event before it")
		require.True(t, pii.IsSealed(string(snap.State)), "the snapshot is sealed")
		require.NotContains(t, string(snap.State), "Olga Oldtimer")
	})
}

// An erased member never gets a data key again, whoever asks late: here a replica that still
// keeps an account from before sealing (which had no key) as it was before the member was
// erased on another replica, and charges it a fine, whose reason it must seal. The fine is
// refused, as erased, and no key is made for the member.
func TestAnErasedMemberNeverGetsAKeyAgain(t *testing.T) {
	t.Parallel()
	forEachKeyedLog(t, func(t *testing.T, log keyedLog) {
		ctx := t.Context()
		openedBeforeSealing(t, log, 0)
		late := accounts.NewService(log, aggregate.Options{Cipher: keyring(log)})
		_, _, err := late.Get(ctx, "m-old") // kept, from before the erasure
		require.NoError(t, err)
		erased, err := accounts.NewService(log, aggregate.Options{Cipher: keyring(log)}).Erase(ctx, "m-old", aggregate.Origin{})
		require.NoError(t, err)
		require.True(t, erased.Recorded())

		_, err = late.ChargeFine(ctx, "m-old", accounts.ChargeFine{Amount: 100, Reason: "late"}, aggregate.Origin{})
		require.True(t, errs.Is(err, errs.Gone), "got %v", err)
		_, err = log.DataKey(ctx, "m-old")
		require.ErrorIs(t, err, pii.ErrNoKey, "no key was made for the erased member")
		seal, err := keyring(log).Sealer(ctx, "m-old", true)
		require.NoError(t, err)
		require.Nil(t, seal, "nor will one be, when asked")
	})
}

// An erased member's mark in member_keys holds no key: a rotation passes it by, and rewraps
// everyone else's.
func TestKeysRotateAfterAnErasure(t *testing.T) {
	t.Parallel()
	forEachKeyedLog(t, func(t *testing.T, log keyedLog) {
		ctx := t.Context()
		svc := accounts.NewService(log, aggregate.Options{Cipher: keyring(log)})
		for _, m := range []string{"m-ann", "m-bob"} {
			_, err := svc.SetContact(ctx, m, accounts.SetContact{Name: "Reader " + m}, aggregate.Origin{})
			require.NoError(t, err)
		}
		_, err := svc.Erase(ctx, "m-bob", aggregate.Origin{})
		require.NoError(t, err)

		next := pii.NewKEK("2", [32]byte{2})
		n, err := pii.NewKeyring(pii.KEKs{next, pii.NewKEK("1", [32]byte(bytes.Repeat([]byte{7}, 32)))}, log).Rotate(ctx)
		require.NoError(t, err)
		require.Equal(t, 1, n, "ann's key, not bob's mark")
		account, _, err := accounts.NewService(log, aggregate.Options{Cipher: pii.NewKeyring(pii.KEKs{next}, log)}).Get(ctx, "m-ann")
		require.NoError(t, err)
		require.Equal(t, "Reader m-ann", account.Name, "read with the new KEK alone")
	})
}
